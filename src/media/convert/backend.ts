// The seam every codec backend sits behind (one file each in backends/, like @tus/server's
// handlers): a backend says which formats it decodes and encodes, and does only that.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Sharp } from 'sharp';
import type { MediaLimits } from '../limits.ts';
import type { DetailedProbe, ImageDetail } from '../probe.ts';
import { CpuBudget } from './cpu-budget.ts';
import type { ConvertOptions, ImageTarget, VideoTarget } from './options.ts';

/** One conversion's working context: its scratch folder, limits, cancellation and tool hooks. */
export class Conversion {
  readonly dir: string;
  readonly limits: MediaLimits;
  readonly signal?: AbortSignal;
  readonly onSpawn?: (pid: number) => void;
  readonly onReap?: (pid: number) => void;
  /** The file's CPU time: every tool and sharp pipeline of this conversion draws on it. */
  readonly budget: CpuBudget;
  readonly notes: string[] = [];
  /** ffmpeg filters run on a video's decoded frames before any scaling (redaction), in its pixels. */
  readonly sourceFilters: string[] = [];
  readonly #temps: string[] = [];

  constructor(init: { dir: string; limits: MediaLimits; signal?: AbortSignal; onSpawn?: (pid: number) => void; onReap?: (pid: number) => void; cpuBudgetMs?: number }) {
    this.dir = init.dir;
    this.limits = init.limits;
    this.signal = init.signal;
    this.onSpawn = init.onSpawn;
    this.onReap = init.onReap;
    this.budget = new CpuBudget(init.cpuBudgetMs);
  }

  /** A fresh path inside the scratch folder for an intermediate file, removed by cleanup(). */
  temp(ext: string): string {
    const p = path.join(this.dir, `.work-${randomBytes(6).toString('hex')}.${ext}`);
    this.#temps.push(p);
    return p;
  }

  /** Tool options shared by every spawn of this conversion. */
  get toolOptions() {
    return { signal: this.signal, onSpawn: this.onSpawn, onReap: this.onReap, cwd: this.dir, cpu: this.budget };
  }

  /**
   * Renders a sharp pipeline to a clean sRGB PNG intermediate, for encoders that read files
   * (heif-enc, cjxl). Fast compression: the file lives only until cleanup().
   */
  async pngIntermediate(pipeline: Sharp): Promise<{ path: string; width: number; height: number }> {
    const png = this.temp('png');
    const info = await this.budget.sharp(pipeline.toColourspace('srgb').png({ compressionLevel: 1 }), (p) => p.toFile(png));
    return { path: png, width: info.width, height: info.height };
  }

  note(text: string): void {
    if (!this.notes.includes(text)) this.notes.push(text);
  }

  /** Removes every intermediate; safe to call again (work that outlived an abort calls it late). */
  async cleanup(): Promise<void> {
    await Promise.all(this.#temps.map((p) => rm(p, { force: true })));
  }
}

export interface Backend {
  readonly name: string;
  canDecode(format: string): boolean;
  canEncode(format: string): boolean;
}

/** Pixels a sharp pipeline can open. */
export interface Decoded {
  /** A file, or the input's bytes in memory (formats sharp decodes itself). */
  path: string | Buffer;
  /** Whether sharp should apply the EXIF orientation (false when the decoder already did). */
  autoOrient: boolean;
}

export interface EncodeSettings {
  quality?: number;
  lossless: boolean;
  /** Keep an animation (WebP only). */
  animated: boolean;
}

export interface ImageBackend extends Backend {
  /** Turns the input into something sharp opens: the input itself, or a lossless PNG in scratch. */
  decode(input: string, detail: ImageDetail, conversion: Conversion): Promise<Decoded>;
  /** Writes `out` from a pipeline that is already oriented, resized and flattened. Answers the output size. */
  encode(pipeline: Sharp, target: ImageTarget, settings: EncodeSettings, out: string, conversion: Conversion): Promise<{ width: number; height: number }>;
}

export interface VideoBackend extends Backend {
  transcode(
    input: string,
    probed: DetailedProbe,
    options: ConvertOptions & { format: VideoTarget },
    out: string,
    conversion: Conversion,
    onProgress?: (fraction: number) => void,
  ): Promise<{ width: number; height: number }>;
}
