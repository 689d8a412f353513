// Builds the AnalyseInput of a file: each costly reading (bytes, pixels, tags) is made once,
// on first use, and shared by the detectors that need it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodePixels } from '../decode.ts';
import type { MediaLimits } from '../limits.ts';
import type { Probe } from '../probe.ts';
import { runTool } from '../tools.ts';
import type { AnalyseInput, AnalyseOptions, Tags } from './detector.ts';
import { detectFacesOnThread } from './faces/thread.ts';
import { readText } from './text/ocr.ts';

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= load());
}

export function analyseInput(path: string, probe: Probe, limits: MediaLimits, options: AnalyseOptions): AnalyseInput {
  const tool = { signal: options.signal, onSpawn: options.onSpawn, onReap: options.onReap };
  const input: AnalyseInput = {
    path,
    probe,
    // one detection on the shared pixels, for the faces detector and whatever else needs faces;
    // on the faces thread, so it can run beside the detectors of this thread
    faces: once(async () => detectFacesOnThread(await input.pixels(), options.faces?.sensitivity ?? 0.5, options.signal)),
    // one OCR pass on the shared pixels, for the text detector and the visible-watermark check
    text: once(async () => readText(await input.pixels(), { recycleAfter: options.text?.recycleAfter, signal: options.signal })),
    bytes: once(() => readFile(path)),
    pixels: once(async () => {
      let file = path;
      let format: string = probe.format;
      if (probe.kind === 'video') {
        // the first frame, as the display image of a video
        file = join(options.outDir, 'first-frame.png');
        format = 'png';
        const r = await runTool('ffmpeg', ['-v', 'error', '-nostdin', '-i', `file:${path}`, '-map', '0:v:0', '-frames:v', '1', '-f', 'image2', '-c:v', 'png', '-y', `file:${file}`], { ...tool, timeoutMs: 60_000 });
        if (r.code !== 0) throw new Error('the first frame could not be decoded');
      }
      return decodePixels(file, { format }, options.outDir, { limits, ...tool });
    }),
    tags: once(async () => {
      // -G1: the precise group ("EXIF:Make" vs "XMP-tiff:Make"); -a: repeated tags too;
      // -n: numbers as numbers (GPS as signed degrees); -b off: binary blocks are summarised.
      const r = await runTool('exiftool', ['-j', '-G1', '-a', '-n', '-u', '-q', '-q', '--', path], { ...tool, timeoutMs: 60_000, maxStdout: 32 << 20 });
      let parsed: Tags[];
      try {
        parsed = JSON.parse(r.stdout.toString('utf8')) as Tags[];
      } catch {
        throw new Error('exiftool could not read this file');
      }
      const tags: Tags = {};
      // the System group is the scratch file's own name, folder and dates, nothing of the user's
      for (const [k, v] of Object.entries(parsed[0] ?? {})) if (k !== 'SourceFile' && !k.startsWith('System:')) tags[k] = v;
      return tags;
    }),
  };
  return input;
}
