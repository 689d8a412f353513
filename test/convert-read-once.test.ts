// A convert job reads each stored file once at its start (its first MiB: sniff and limits) and
// once at its run, and an image sharp decodes goes to the worker as bytes in memory: nothing of
// it is copied into scratch. The result is the very bytes convert() makes from the file.
import { mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { convert, parseConvertOptions } from '../src/media/convert/index.ts';
import type { UploadRow } from '../src/domain/ports.ts';
import { DEFAULT_LIMITS } from '../src/media/limits.ts';
import { test } from './helpers/test.ts';
import { PHOTO } from './helpers/media.ts';
import { EXT, INPUT_FORMATS, encodeAs, photoCrop, workDir } from './helpers/media-kit.ts';
import { startService, tempDir } from './helpers/service.ts';
import { convertSession } from './helpers/upload-files.ts';

test('convert reads a JPEG over 1 MiB and a small PNG once at the start and once at the run, copies neither into scratch, and gives the bytes convert() makes', async (t) => {
  const scratch = mkdtempSync('/dev/shm/obscura-read-once-');
  t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
  const svc = await startService({ OBSCURA_SCRATCH_DIR: scratch });
  t.teardown(() => svc.close());
  const { key } = await svc.account();

  const jpeg = await sharp(PHOTO).resize(3000, 2000, { fit: 'fill' }).jpeg({ quality: 95 }).toBuffer();
  const png = await sharp(PHOTO).resize(400).png().toBuffer();
  t.true(jpeg.length > 1 << 20, 'the JPEG is larger than the head read at start');
  t.true(png.length < 1 << 20);
  const uid = await convertSession(svc, key, [['big.jpg', jpeg], ['small.png', png]]);

  // every read of a stored upload, by the real store, counted
  const uploads = svc.services.uploads;
  const real = uploads.read.bind(uploads);
  const reads: string[] = [];
  uploads.read = (row: UploadRow, range?: { start?: number; end?: number }) => {
    reads.push(row.id);
    return real(row, range);
  };
  t.teardown(() => (uploads.read = real));
  // folders made in scratch (the watch sees the root's own entries, made and removed)
  const made = new Set<string>();
  const watcher = watch(scratch, (_e, name) => name && made.add(name));
  t.teardown(() => watcher.close());

  const options = { image_format: 'webp', quality: 80, width: 300 };
  const start = await svc.api('POST', '/api/convert/job', key, { upload_uid: uid, ...options });
  t.is(start.status, 201, JSON.stringify(start.body));
  let done: any;
  do done = (await svc.api('GET', `/api/convert/job/${uid}?wait=30`, key)).body;
  while (!['completed', 'partial', 'failed'].includes(done.status));
  t.is(done.status, 'completed', done.progress_message);

  const ids = [...new Set(reads)];
  t.is(ids.length, 2);
  for (const id of ids) t.is(reads.filter((r) => r === id).length, 2, 'one read at the start (its first MiB) and one at the run');
  // one folder per file, for its output: none at the start, none for a copy of the input
  t.true(made.size <= 2, `scratch folders: ${made.size}`);

  // what the user downloads is what convert() makes of the file itself
  const results = (await svc.api('GET', `/api/convert/job/${uid}/results`, key)).body.result_files;
  const dir = tempDir();
  for (const [name, bytes] of [['big.webp', jpeg], ['small.webp', png]] as const) {
    const f = results.find((r: any) => r.output_name === name);
    const got = Buffer.from(await (await fetch(f.download_url, { headers: { 'X-Api-Key': key } })).arrayBuffer());
    const file = path.join(dir, name + '.in');
    writeFileSync(file, bytes);
    const outDir = mkdtempSync(path.join(dir, 'out-'));
    const direct = await convert(file, outDir, parseConvertOptions(options), { limits: { ...svc.services.config.media, memoryPerJob: svc.services.config.memory.perJob } });
    t.true(got.equals(readFileSync(direct.path)), `${name}: the same bytes as convert() on the file`);
    t.like(await sharp(got).metadata(), { format: 'webp', width: 300 });
  }
});

test('convert() takes a file as bytes in memory: each format gives the same bytes as from the file (sharp decodes from memory, the tools get a scratch copy)', async (t) => {
  const { dir, done } = await workDir('convert-bytes');
  t.teardown(done);
  const src = await photoCrop(path.join(dir, 'src.png'));
  const options = parseConvertOptions({ image_format: 'webp', quality: 80, width: 200 });
  for (const format of INPUT_FORMATS) {
    const file = await encodeAs(src, format, path.join(dir, `in.${EXT[format]}`));
    const fileOut = path.join(dir, `${format}-file`);
    await mkdir(fileOut);
    const fromFile = await convert(file, fileOut, options, { limits: DEFAULT_LIMITS });
    const outDir = path.join(dir, `${format}-bytes`);
    await mkdir(outDir);
    const fromBytes = await convert(readFileSync(file), outDir, options, { limits: DEFAULT_LIMITS });
    t.true(readFileSync(fromBytes.path).equals(readFileSync(fromFile.path)), `${format}: the same bytes`);
    t.deepEqual(await readdir(outDir), [path.basename(fromBytes.path)], `${format}: no copy left in scratch`);
  }
});
