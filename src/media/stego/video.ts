// Hide and reveal in videos. Frames are decoded to RGB with ffmpeg and streamed through this
// process one at a time: the header sits in frame 0, and the payload is split evenly over
// every frame, each frame with its own keyed positions. The output is lossless (FFV1 in MKV,
// or VP9 lossless in WebM, both bit-exact in RGB). The audio keeps every decoded sample (FLAC
// in MKV; Opus in WebM, which takes nothing else) rather than being copied as it came: a
// copied stream can carry its encoder's identification. No metadata or encoder string is kept.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { scrubMatroska } from '../convert/container-scrub.ts';
import { MediaError, abortedError } from '../errors.ts';
import { runTool, toolEnv, withinShare } from '../tools.ts';
import { probe, type Probe } from '../probe.ts';
import { admitStego } from './admission.ts';
import { pack, type Secret } from './container.ts';
import { checkRevealable, keptThrough, revealBound, writeSecrets } from './reveal-files.ts';
import { keysOf, type PassphraseKeys } from './keys.ts';
import { MAX_FILL, Strata, headerPositions, inLane, laneSize } from './positions.ts';
import { HEADER_BITS, LANES, NOTHING_FOUND, blocksFor, chooseP, fillLanes, findHeader, openPayload, readMatrix, seal, writeMatrix, writePlain, type FoundHeader, type SealingKeys } from './stream.ts';
import type { Decoy, HideResult, RevealedFile, StegoContext } from './image.ts';

export type StegoVideoFormat = 'mkv' | 'webm';
export const STEGO_VIDEO_FORMATS: readonly StegoVideoFormat[] = ['mkv', 'webm'];
export const VIDEO_DOMAIN = 'video';
const TAG = 16;

interface VideoFacts {
  width: number;
  height: number;
  rate: string;
  frames: number;
  hasAudio: boolean;
}

async function facts(file: string, p: Probe, ctx: StegoContext): Promise<VideoFacts> {
  const r = await runTool('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-count_packets', '-show_entries', 'stream=width,height,avg_frame_rate,r_frame_rate,nb_read_packets', '-of', 'json', `file:${file}`], { signal: ctx.signal, onSpawn: ctx.onSpawn, onReap: ctx.onReap, timeoutMs: 120_000 });
  const s = JSON.parse(r.stdout.toString()).streams?.[0];
  if (!s) throw new MediaError('corrupt', 'The video could not be read.');
  const rate = s.avg_frame_rate && s.avg_frame_rate !== '0/0' ? s.avg_frame_rate : s.r_frame_rate;
  return { width: s.width, height: s.height, rate, frames: Number(s.nb_read_packets), hasAudio: Boolean(p.hasAudio) };
}

/** Capacity in bytes of one stream over `frames` frames of `samples` each. */
function capacityOver(samples: number, frames: number): number {
  const perFrame = Math.floor(samples * MAX_FILL) - HEADER_BITS;
  return Math.max(0, Math.floor((perFrame * frames) / 8) - TAG - 64);
}

/** Capacity in bytes for a video of these dimensions and frame count: a lane's, as for a picture (stream.ts). */
export function videoCapacity(width: number, height: number, frames: number): number {
  return capacityOver(laneSize(width * height * 3, LANES[0]), frames);
}

function spawnTool(args: string[], ctx: StegoContext, stdin: 'pipe' | 'ignore'): ChildProcess {
  // within the job's memory share, like every tool (media/tools.ts)
  const [cmd, argv] = withinShare('ffmpeg', args);
  const child = spawn(cmd, argv, { stdio: [stdin, 'pipe', 'pipe'], shell: false, env: toolEnv() });
  if (child.pid) ctx.onSpawn?.(child.pid);
  child.once('exit', () => child.pid && ctx.onReap?.(child.pid));
  const kill = () => child.kill('SIGKILL');
  ctx.signal?.addEventListener('abort', kill, { once: true });
  child.once('exit', () => ctx.signal?.removeEventListener('abort', kill));
  child.stderr!.resume();
  return child;
}

const exit = (c: ChildProcess) => new Promise<number>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code ?? 1))));

/** Yields whole frames from a decoder's stdout. */
async function* frames(out: Readable, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let have = 0;
  for await (const chunk of out) {
    pending.push(chunk as Buffer);
    have += (chunk as Buffer).length;
    while (have >= size) {
      const all = Buffer.concat(pending);
      yield Buffer.from(all.subarray(0, size));
      pending = [all.subarray(size)];
      have -= size;
    }
  }
}

function decoder(file: string, ctx: StegoContext): ChildProcess {
  return spawnTool(['-v', 'error', '-nostdin', '-i', `file:${file}`, '-map', '0:v:0', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], ctx, 'ignore');
}

/**
 * `keys` come from sealingKeys(passphrase, VIDEO_DOMAIN), and may still be in the making. Every
 * frame is two lanes, as a picture is (stream.ts): the secret's stream in one, the decoy's (or
 * noise) in the other, each with its header in frame 0 and its payload split over the frames.
 */
export async function hideInVideo(cover: string, secrets: Secret[], keys: Promise<SealingKeys>, outDir: string, format: StegoVideoFormat, ctx: StegoContext, decoy?: Decoy): Promise<HideResult> {
  const p = await probe(cover, ctx.limits, ctx);
  if (p.kind !== 'video') throw new MediaError('invalid_option', 'This cover is an image; image covers are written as PNG, WebP or AVIF.');
  await admitStego('hide', p, ctx);
  const v = await facts(cover, p, ctx);
  const S = v.width * v.height * 3;
  const capacity = videoCapacity(v.width, v.height, v.frames);
  // nothing the reveal would refuse (reveal-files.ts); the frame count is known only now
  for (const files of [secrets, decoy?.secrets ?? []]) checkRevealable(files.map((s) => s.data.byteLength), revealBound(ctx.limits, capacity));
  const { streams } = fillLanes({ container: pack(secrets), keys }, capacity, decoy && { container: pack(decoy.secrets), keys: decoy.keys });
  const K = v.frames;
  const m = laneSize(S, LANES[0]);
  const room = Math.floor(m * MAX_FILL) - HEADER_BITS;
  const lanes = await Promise.all(
    streams.map(async (s, i) => {
      const L = (s.container.length + TAG) * 8;
      const q = Math.ceil(L / K);
      const sealed = seal(await s.keys, s.container, K, chooseP(q, room));
      return { lane: LANES[i], sealed, L, q, head: headerPositions(sealed.locator, m, HEADER_BITS) };
    }),
  );

  const out = path.join(outDir, `hidden.${format}`);
  const dec = decoder(cover, ctx);
  const enc = spawnTool([
    '-v', 'error', '-nostdin', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${v.width}x${v.height}`, '-framerate', v.rate, '-i', 'pipe:0',
    '-i', `file:${cover}`, '-map', '0:v:0', '-map', '1:a:0?',
    ...(format === 'mkv' ? ['-c:v', 'ffv1', '-level', '3', '-c:a', 'flac'] : ['-c:v', 'libvpx-vp9', '-lossless', '1', '-pix_fmt', 'gbrp', '-row-mt', '1', '-c:a', 'libopus']),
    '-map_metadata', '-1', '-map_chapters', '-1', '-fflags', '+bitexact', '-flags:v', '+bitexact', '-flags:a', '+bitexact', '-y', `file:${out}`,
  ], ctx, 'pipe');
  let changed = 0;
  let f = 0;
  try {
    for await (const frame of frames(dec.stdout!, S)) {
      if (f < K) {
        const space = frame; // rgb24: every sample carries
        for (const { lane, sealed, L, q, head } of lanes) {
          const start = f * q;
          const count = Math.max(0, Math.min(q, L - start));
          if (f === 0) changed += writePlain(space, head.map((h) => inLane(h, lane)), sealed.header);
          if (count > 0) changed += writeMatrix(space, (n) => new Strata(sealed.locator, f, m, n, f === 0 ? head : undefined, lane), sealed.payload, sealed.p, { bitOffset: start, bitCount: count });
        }
      }
      f++;
      if (!enc.stdin!.write(frame)) await new Promise((r) => enc.stdin!.once('drain', r));
    }
    enc.stdin!.end();
    const [dc, ec] = await Promise.all([exit(dec), exit(enc)]);
    if (ctx.signal?.aborted) throw abortedError();
    if (dc !== 0 || ec !== 0 || f < K) throw new MediaError('corrupt', 'The video could not be decoded to the end: the file is damaged or incomplete.');
  } catch (err) {
    dec.kill('SIGKILL');
    enc.kill('SIGKILL');
    throw err;
  }
  await scrubMatroska(out);
  return {
    path: out,
    mime: format === 'mkv' ? 'video/x-matroska' : 'video/webm',
    extension: format,
    width: v.width,
    height: v.height,
    capacity,
    changed,
    notes: [`The video is written losslessly as ${format === 'mkv' ? 'FFV1 in MKV' : 'VP9 lossless in WebM'}; it is much larger than the cover.`],
  };
}

export async function revealFromVideo(file: string, passphrase: string | PassphraseKeys, outDir: string, ctx: StegoContext): Promise<RevealedFile[]> {
  let container: Buffer;
  let capacity: number;
  try {
    const p = await probe(file, ctx.limits, ctx);
    if (p.kind !== 'video') throw new Error('not a video');
    await admitStego('reveal', p, ctx);
    const S = p.width * p.height * 3;
    if (!S) throw new Error('no size');
    const keys = keysOf(passphrase);
    const locator = await keys.locator(VIDEO_DOMAIN);
    const dec = decoder(file, ctx);
    let found: FoundHeader | undefined;
    let m = 0;
    let sealedBuf: Buffer | undefined;
    let q = 0;
    let f = 0;
    try {
      for await (const frame of frames(dec.stdout!, S)) {
        const space = frame; // rgb24: every sample carries
        if (f === 0) {
          found = await findHeader(space, locator, keys, VIDEO_DOMAIN);
          if (!found) throw new Error('no header');
          m = laneSize(S, found.lane);
          const { length, p: P, units } = found.opened.header;
          sealedBuf = Buffer.alloc(length);
          q = Math.ceil((length * 8) / units);
          if (blocksFor(q, P) * ((1 << P) - 1) + HEADER_BITS > Math.floor(m * MAX_FILL)) throw new Error('bad header');
        }
        const { lane, head, opened } = found!;
        const { length, p: P, units } = opened.header;
        const start = f * q;
        const count = Math.max(0, Math.min(q, length * 8 - start));
        if (count > 0) readMatrix(space, (n) => new Strata(locator, f, m, n, f === 0 ? head : undefined, lane), P, sealedBuf!, { bitOffset: start, bitCount: count });
        f++;
        if (f >= units) break;
      }
    } finally {
      dec.kill('SIGKILL');
    }
    if (!found || f < found.opened.header.units) throw new Error('too few frames');
    const opens = openPayload(sealedBuf!, found.opened.payloadKey, found.opened.nonce);
    if (!opens) throw new Error('no payload');
    container = opens;
    capacity = capacityOver(m, found.opened.header.units); // as the hide counted it, in the stream's lane
  } catch (err) {
    if (ctx.signal?.aborted) throw abortedError();
    if (keptThrough(err)) throw err;
    throw new MediaError('nothing_found', NOTHING_FOUND);
  }
  return writeSecrets(container, outDir, revealBound(ctx.limits, capacity), ctx.signal);
}
