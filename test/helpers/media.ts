import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from './service.ts';

export const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');
export const PHOTO = path.join(FIXTURES, 'photo-mountain.jpg');
export const C2PA_PNG = path.join(FIXTURES, 'c2pa-ai-generated.png');

export function run(cmd: string, args: string[]): Buffer {
  const r = spawnSync(cmd, args, { maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr?.toString().slice(-500)}`);
  return r.stdout;
}

/** An MP4 (H.264 + AAC) test pattern with a tone. */
export function makeVideo(opts: { seconds: number; width?: number; height?: number; fps?: number } = { seconds: 2 }): Buffer {
  const dir = tempDir('obscura-media-');
  const out = path.join(dir, 'clip.mp4');
  const w = opts.width ?? 320;
  const h = opts.height ?? 240;
  run('ffmpeg', [
    '-v', 'error', '-y',
    '-f', 'lavfi', '-i', `testsrc2=size=${w}x${h}:rate=${opts.fps ?? 25}:duration=${opts.seconds}`,
    '-f', 'lavfi', '-i', `sine=frequency=440:duration=${opts.seconds}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', out,
  ]);
  return readFileSync(out);
}

/** exiftool -j -a -G1 of a file's bytes, as one flat object. */
export function exif(bytes: Buffer, ext: string): Record<string, unknown> {
  const p = path.join(tempDir('obscura-exif-'), `f.${ext}`);
  writeFileSync(p, bytes);
  return JSON.parse(run('exiftool', ['-j', '-a', '-G1', '-n', p]).toString())[0];
}
