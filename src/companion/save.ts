// Writing a result to the user's disk: under a safe name, never over an existing file (opened
// with 'wx', so even a file made between the check and the write is never touched), and
// removed again if the download breaks off, so no half file is left looking like a result.
import { open, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Api } from './api.ts';
import { cancelled, CompanionError } from './errors.ts';
import { errorFrom } from './service-errors.ts';

const MAX_TRIES = 1000;

/**
 * A name from the service (or, for reveal, from inside the stego file) made safe to write:
 * its last segment only, no control characters, never empty, "." or "..".
 */
export function localName(raw: string | undefined, fallback: string): string {
  let name = (raw ?? '').split(/[\\/]/).pop() ?? '';
  name = name.replace(/[\u0000-\u001f\u007f]/g, '_').trim();
  if (!name || name === '.' || name === '..') name = fallback;
  // most file systems allow 255 bytes; the service's names are shorter, a hostile one might not be
  while (Buffer.byteLength(name) > 200) name = name.slice(0, -1);
  return name;
}

/** Opens dir/name for writing, or "name (1).ext", "name (2).ext"... if that is taken. */
export async function createUnique(dir: string, name: string): Promise<{ handle: FileHandle; path: string }> {
  const ext = path.extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let n = 0; n < MAX_TRIES; n++) {
    const candidate = path.join(dir, n === 0 ? name : `${stem} (${n})${ext}`);
    try {
      // 0600: outputs are as private as what they came from (a revealed secret above all)
      return { handle: await open(candidate, 'wx', 0o600), path: candidate };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw writeError(err, dir);
    }
  }
  throw new CompanionError('no_free_name', `${MAX_TRIES} files named like ${name} already exist in ${dir}; choose another output_dir.`);
}

/** GET path (a download_path of the service) into a new file in dir; returns where it went. */
export async function download(api: Api, downloadPath: string, dir: string, name: string, expected: number | undefined, signal?: AbortSignal, onBytes?: (n: number) => void): Promise<{ path: string; bytes: number }> {
  const res = await api.send('GET', downloadPath, { signal, idleMs: 120_000 });
  if (res.statusCode !== 200) {
    let text = '';
    try {
      for await (const c of res as AsyncIterable<Buffer>) if (text.length < 65536) text += c.toString('utf8');
    } catch {
      /* the status says enough */
    }
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    throw errorFrom(res.statusCode ?? 0, res.headers, body);
  }
  const { handle, path: target } = await createUnique(dir, name);
  let bytes = 0;
  try {
    res.on('data', (c: Buffer) => {
      bytes += c.length;
      onBytes?.(bytes);
    });
    await pipeline(res, handle.createWriteStream(), { signal });
    if (expected !== undefined && bytes !== expected) throw new CompanionError('download_incomplete', `The download stopped at ${bytes} of ${expected} bytes; try again.`);
    return { path: target, bytes };
  } catch (err) {
    await handle.close().catch(() => {});
    await unlink(target).catch(() => {});
    if (err instanceof CompanionError) throw err;
    if (signal?.aborted) throw cancelled();
    if ((err as NodeJS.ErrnoException).code === 'ENOSPC') throw writeError(err, dir);
    throw new CompanionError('download_incomplete', 'The connection broke during the download; nothing was kept. Try again.');
  }
}

function writeError(err: unknown, dir: string): CompanionError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC') return new CompanionError('disk_full', `No space left in ${dir}; free some or choose another output_dir.`);
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return new CompanionError('permission_denied', `The companion may not write into ${dir}; choose another output_dir.`);
  return new CompanionError('write_failed', `Could not write into ${dir} (${code ?? 'unknown error'}).`);
}
