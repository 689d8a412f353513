// The local companion (obscura-mcp) end to end: the real service in this process, the
// companion as a child spoken to over stdio by the SDK's StdioClientTransport, launched by
// bin/obscura-mcp.js with this Node, with the machine's older Node, and by `npx obscura-mcp`.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import sharp from 'sharp';
import type { ExecutionContext } from 'ava';
import { test } from './helpers/test.ts';
import { startService, tempDir, type RunningService } from './helpers/service.ts';
import { C2PA_PNG, PHOTO } from './helpers/media.ts';
import { payload, sha256 } from './helpers/payload.ts';
import { LAUNCHER, ROOT, olderNode, startCompanion, type Companion } from './helpers/companion.ts';
import { IMAGE_FORMATS, VIDEO_FORMATS } from '../src/companion/formats.ts';
import { IMAGE_TARGETS, VIDEO_TARGETS } from '../src/media/convert/options.ts';

const TOOLS = ['analyse_file', 'convert_file', 'hide_file', 'reveal_file'];
const PASSWORD = 'correct horse battery staple, twice over';

let svc: RunningService;
test.before(async () => {
  svc = await startService();
});
test.after.always(async () => {
  await svc?.close();
});

/** A companion for this test, closed at its end; stdout must have carried only protocol. */
async function companion(t: ExecutionContext, env: Record<string, string>, launch?: Parameters<typeof startCompanion>[1]): Promise<Companion> {
  const c = await startCompanion({ HOME: tempDir('obscura-companion-home-'), ...env }, launch);
  t.teardown(() => c.close());
  return c;
}

/** After the calls: no protocol errors, and nothing private on stderr. */
function quiet(t: ExecutionContext, c: Companion, secrets: string[]): void {
  t.deepEqual(c.protocolErrors.map(String), [], 'stdout carried the protocol and nothing else');
  const err = c.stderr();
  for (const s of secrets) t.false(err.includes(s), `stderr does not hold ${s.slice(0, 12)}…`);
  t.notRegex(err, /npm (warn|notice)/);
}

test('the companion keeps the service\'s list of convert formats', (t) => {
  t.deepEqual([...IMAGE_FORMATS], [...IMAGE_TARGETS]);
  t.deepEqual([...VIDEO_FORMATS], [...VIDEO_TARGETS]);
});

test('the launcher starts the companion with this Node, with the machine\'s older Node and through npx: four tools with schemas and annotations, stdout only protocol', async (t) => {
  const { key } = await svc.account();
  const env = { OBSCURA_API_KEY: key, OBSCURA_BASE_URL: svc.url.clearnet };
  const older = olderNode();
  const launches: [string, Parameters<typeof startCompanion>[1]][] = [[`this Node (${process.version})`, { command: process.execPath, args: [LAUNCHER] }]];
  if (older) {
    launches.push([`${older}`, { command: older, args: [LAUNCHER] }]);
    // npx of the machine's npm on the machine's Node, from the repository, with a clean home
    // (no user npmrc): it finds the project's own bin and prints nothing of its own
    launches.push(['npx obscura-mcp', { command: 'npx', args: ['obscura-mcp'], cwd: ROOT }]);
  } else t.log('no Node older than 24.7 on this machine: the launcher\'s fallback is not exercised');
  for (const [label, launch] of launches) {
    const path_ = launch!.command === 'npx' ? `${path.dirname(older!)}:${process.env.PATH}` : process.env.PATH!;
    const c = await companion(t, { ...env, PATH: path_ }, launch);
    const { tools } = await c.client.listTools();
    t.deepEqual(tools.map((x) => x.name).sort(), TOOLS, label);
    const byName = Object.fromEntries(tools.map((x) => [x.name, x]));
    for (const tool of tools) {
      t.truthy(tool.outputSchema, `${label}: ${tool.name} has an output schema`);
      t.is(tool.annotations?.destructiveHint, false, `${label}: ${tool.name} overwrites nothing`);
      t.is(tool.annotations?.openWorldHint, true);
    }
    t.is(byName.analyse_file.annotations?.readOnlyHint, true);
    const convert = byName.convert_file.inputSchema as any;
    t.deepEqual(convert.required.sort(), ['file_path', 'output_format']);
    t.deepEqual(convert.properties.output_format.enum, [...IMAGE_TARGETS, ...VIDEO_TARGETS]);
    const analyse = byName.analyse_file.inputSchema as any;
    t.is(analyse.properties.face_detection.default, true);
    t.is(analyse.properties.text_detection.default, true);
    t.deepEqual((byName.hide_file.inputSchema as any).required.sort(), ['cover_path', 'password', 'secret_path']);
    t.deepEqual((byName.reveal_file.inputSchema as any).required.sort(), ['password', 'stego_path']);
    await c.close();
    quiet(t, c, [key]);
  }
});

test('convert_file: a JPEG to WebP beside the input, checked with sharp; a second run overwrites nothing; output_dir; progress rises', async (t) => {
  const { key } = await svc.account();
  const c = await companion(t, { OBSCURA_API_KEY: key, OBSCURA_BASE_URL: svc.url.clearnet });
  const dir = tempDir('obscura-companion-convert-');
  const input = path.join(dir, 'Berg Foto.jpg');
  copyFileSync(PHOTO, input);
  const source = await sharp(PHOTO).metadata();

  const first = await c.call('convert_file', { file_path: input, output_format: 'webp' });
  t.false(first.isError, first.text);
  t.is(first.data.saved_to, path.join(dir, 'Berg Foto.webp'));
  t.is(first.data.output_format, 'webp');
  t.is(first.data.mime_type, 'image/webp');
  const out = readFileSync(first.data.saved_to);
  t.is(out.length, first.data.bytes);
  const meta = await sharp(out).metadata();
  t.is(meta.format, 'webp');
  t.is(meta.width, source.width);
  t.is(meta.height, source.height);
  t.deepEqual(JSON.parse(first.text), first.data, 'the text content is the same JSON');
  // progress: notifications came, never went back, and stayed within 0..100
  t.true(first.progress.length > 0, 'progress notifications while the task ran');
  const values = first.progress.map((p) => p.progress);
  t.deepEqual(values, [...values].sort((a, b) => a - b));
  t.true(values.every((v) => v >= 0 && v <= 100));
  t.true(first.progress.every((p) => p.total === 100));

  const again = await c.call('convert_file', { file_path: input, output_format: 'WEBP' });
  t.false(again.isError, again.text);
  t.is(again.data.saved_to, path.join(dir, 'Berg Foto (1).webp'), 'a new name, never the existing file');
  t.true(readFileSync(first.data.saved_to).equals(out), 'the first output is untouched');
  t.is(sha256(readFileSync(input)), sha256(readFileSync(PHOTO)), 'the input is untouched');

  const elsewhere = tempDir('obscura-companion-out-');
  const third = await c.call('convert_file', { file_path: input, output_format: 'png', output_dir: elsewhere });
  t.false(third.isError, third.text);
  t.is(third.data.saved_to, path.join(elsewhere, 'Berg Foto.png'));
  t.is((await sharp(readFileSync(third.data.saved_to)).metadata()).format, 'png');
  t.deepEqual(readdirSync(dir).sort(), ['Berg Foto (1).webp', 'Berg Foto.jpg', 'Berg Foto.webp']);
  await c.close();
  quiet(t, c, [key, 'Berg Foto', dir]);
});

test('analyse_file: the per-file verdicts come back, and nothing is written', async (t) => {
  const { key } = await svc.account();
  const c = await companion(t, { OBSCURA_API_KEY: key, OBSCURA_BASE_URL: svc.url.clearnet });
  const dir = tempDir('obscura-companion-analyse-');
  const input = path.join(dir, 'Urlaub am See.jpg');
  copyFileSync(PHOTO, input);
  const r = await c.call('analyse_file', { file_path: input });
  t.false(r.isError, r.text);
  t.is(r.data.file_path, input);
  t.regex(r.data.grade, /^[ABCDF]$/);
  t.true(Array.isArray(r.data.grade_reasons));
  for (const k of ['ai_generation', 'c2pa', 'camera_fingerprint', 'forensic', 'privacy', 'hidden_content']) t.true(k in r.data.verdicts, k);
  t.true(Array.isArray(r.data.verdicts.findings) && r.data.verdicts.findings.length > 0);
  for (const f of r.data.verdicts.findings) t.true(['info', 'low', 'medium', 'high'].includes(f.severity));
  for (const k of ['face_count', 'text_region_count', 'watermark_flagged', 'steganography_suspected']) t.true(k in r.data, k);
  t.true(r.data.assets.some((a: any) => a.category === 'display_image'));
  t.regex(r.data.note, /null verdict .* never means clean/);
  t.deepEqual(readdirSync(dir), ['Urlaub am See.jpg']);
  const off = await c.call('analyse_file', { file_path: input, face_detection: false, text_detection: false });
  t.false(off.isError, off.text);
  await c.close();
  quiet(t, c, [key, 'Urlaub', dir]);
});

test('hide_file then reveal_file, launched with the machine\'s older Node: the secret comes back bit-exact under its name; a wrong passphrase is an {error}', async (t) => {
  const { key } = await svc.account();
  const older = olderNode();
  const c = await companion(t, { OBSCURA_API_KEY: key, OBSCURA_BASE_URL: svc.url.clearnet }, older ? { command: older, args: [LAUNCHER] } : undefined);
  const dir = tempDir('obscura-companion-stego-');
  const secret = payload(5000);
  const secretPath = path.join(dir, 'plan notes.bin');
  const coverPath = path.join(dir, 'holiday.png');
  writeFileSync(secretPath, secret);
  const cover = await sharp(PHOTO).resize(800, 600, { fit: 'cover' }).png().toBuffer();
  writeFileSync(coverPath, cover);

  const hidden = await c.call('hide_file', { secret_path: secretPath, cover_path: coverPath, password: PASSWORD });
  t.false(hidden.isError, hidden.text);
  t.is(hidden.data.saved_to, path.join(dir, 'holiday (1).png'), 'beside the cover, under a name that overwrites nothing');
  t.is(hidden.data.mime_type, 'image/png');
  t.true(readFileSync(coverPath).equals(cover), 'the cover is untouched');
  const stego = readFileSync(hidden.data.saved_to);
  t.is(stego.length, hidden.data.bytes);
  const [a, b] = await Promise.all([sharp(cover).raw().toBuffer(), sharp(stego).raw().toBuffer()]);
  t.is(a.length, b.length, 'the same picture');

  const outDir = tempDir('obscura-companion-revealed-');
  const back = await c.call('reveal_file', { stego_path: hidden.data.saved_to, password: PASSWORD, output_dir: outDir });
  t.false(back.isError, back.text);
  t.is(back.data.files.length, 1);
  t.is(back.data.files[0].name, 'plan notes.bin');
  t.is(back.data.files[0].saved_to, path.join(outDir, 'plan notes.bin'));
  t.is(sha256(readFileSync(back.data.files[0].saved_to)), sha256(secret), 'bit-exact');

  // beside the stego file, where the original secret still is: a new name
  const beside = await c.call('reveal_file', { stego_path: hidden.data.saved_to, password: PASSWORD });
  t.false(beside.isError, beside.text);
  t.is(beside.data.files[0].saved_to, path.join(dir, 'plan notes (1).bin'));
  t.is(sha256(readFileSync(beside.data.files[0].saved_to)), sha256(secret));
  t.is(sha256(readFileSync(secretPath)), sha256(secret), 'the original is untouched');

  const wrong = await c.call('reveal_file', { stego_path: hidden.data.saved_to, password: 'not the passphrase at all', output_dir: outDir });
  t.true(wrong.isError);
  t.is(wrong.data.error, 'nothing_found');
  t.is(wrong.data.message, 'No hidden content could be recovered with this passphrase.');
  t.deepEqual(readdirSync(outDir), ['plan notes.bin'], 'a failed reveal writes nothing');
  await c.close();
  quiet(t, c, [key, PASSWORD, 'not the passphrase', 'plan notes', 'holiday', dir, outDir]);
});

test('a file above the session\'s max_upload_bytes goes up with TUS; one below with a direct upload; one above max_file_bytes is refused before it is sent', async (t) => {
  const small = await startService({ OBSCURA_DIRECT_UPLOAD_MAX: '100KiB', OBSCURA_CHUNK_MAX: '1MiB', OBSCURA_FILE_MAX: '1MiB' });
  t.teardown(() => small.close());
  const { key } = await small.account();
  const c = await companion(t, { OBSCURA_API_KEY: key, OBSCURA_BASE_URL: small.url.clearnet });
  const dir = tempDir('obscura-companion-tus-');
  const big = path.join(dir, 'big.jpg');
  copyFileSync(PHOTO, big); // about 400 KB
  const requests = () =>
    small.logs
      .flatMap((chunk) => chunk.split('\n'))
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((l) => l.msg === 'request')
      .map((l) => `${l.method} ${l.route} ${l.status}`);

  const r = await c.call('convert_file', { file_path: big, output_format: 'avif' });
  t.false(r.isError, r.text);
  t.is((await sharp(readFileSync(r.data.saved_to)).metadata()).format, 'heif');
  const seen = requests();
  t.true(seen.includes('POST /api/tus 201'), seen.join('\n'));
  t.true(seen.includes('PATCH /api/tus/:id 204'), seen.join('\n'));
  t.false(seen.some((s) => s.startsWith('POST /api/upload')), 'no direct upload');

  const before = requests().length;
  const little = path.join(dir, 'little.jpg');
  await sharp(PHOTO).resize(200).jpeg().toFile(little);
  const r2 = await c.call('convert_file', { file_path: little, output_format: 'png' });
  t.false(r2.isError, r2.text);
  const after = requests().slice(before);
  t.true(after.includes('POST /api/upload 201'), after.join('\n'));
  t.false(after.some((s) => s.includes('/api/tus')));

  const huge = path.join(dir, 'huge.png');
  copyFileSync(C2PA_PNG, huge); // about 2.4 MB
  const refused = await c.call('analyse_file', { file_path: huge });
  t.is(refused.data.error, 'file_too_large', refused.text);
  t.is(refused.data.max_file_bytes, 1024 * 1024);
  t.false(requests().some((s) => s.startsWith('POST /api/tus 4') || s.startsWith('POST /api/upload 4')), 'refused before any byte went up');
  await c.close();
  quiet(t, c, [key, 'big.jpg', 'little.jpg', 'huge.png']);
});

test('errors a model can act on: arguments checked before any call, a stopped service, a bad or missing key, an onion without a proxy', async (t) => {
  const dir = tempDir('obscura-companion-errors-');
  const photo = path.join(dir, 'photo.jpg');
  copyFileSync(PHOTO, photo);
  const aFile = path.join(dir, 'not-a-folder.txt');
  writeFileSync(aFile, 'x');
  mkdirSync(path.join(dir, 'a folder'));

  // a service that was running and is stopped: nothing listens on its port any more
  const stopped = await startService();
  const { key } = await stopped.account();
  const base = stopped.url.clearnet;
  await stopped.close();
  const c = await companion(t, { OBSCURA_API_KEY: key, OBSCURA_BASE_URL: base });
  const expect = async (name: string, args: Record<string, unknown>, error: string, message?: RegExp) => {
    const r = await c.call(name, args);
    t.true(r.isError, `${name} ${JSON.stringify(args)}`);
    t.is(r.data.error, error, r.text);
    t.is(typeof r.data.message, 'string');
    if (message) t.regex(r.data.message, message);
    return r.data;
  };
  // each of these is answered before the network is touched: the service is gone, and the
  // answer is about the argument, not about the connection
  const missing = await expect('convert_file', { file_path: path.join(dir, 'nope.jpg'), output_format: 'webp' }, 'file_not_found', /nope\.jpg/);
  t.is(missing.argument, 'file_path');
  await expect('analyse_file', { file_path: path.join(dir, 'a folder') }, 'not_a_file', /is a folder/);
  const unknown = await expect('convert_file', { file_path: photo, output_format: 'bmp' }, 'unknown_output_format', /webp/);
  t.deepEqual(unknown.image_formats, [...IMAGE_TARGETS]);
  t.deepEqual(unknown.video_formats, [...VIDEO_TARGETS]);
  await expect('convert_file', { file_path: photo, output_format: 'webp', output_dir: aFile }, 'output_dir_not_a_folder');
  await expect('convert_file', { file_path: photo, output_format: 'webp', output_dir: path.join(dir, 'missing') }, 'output_dir_not_found');
  await expect('hide_file', { secret_path: aFile, cover_path: photo, password: '' }, 'empty_password');
  await expect('reveal_file', { stego_path: path.join(dir, 'a folder'), password: PASSWORD }, 'not_a_file');
  // now a valid call: the service is what is missing
  const down = await expect('convert_file', { file_path: photo, output_format: 'webp' }, 'service_unreachable');
  t.true(down.message.startsWith(`cannot reach the service at ${base}`), down.message);
  t.deepEqual(readdirSync(dir).sort(), ['a folder', 'not-a-folder.txt', 'photo.jpg'], 'nothing written');
  await c.close();
  quiet(t, c, [key, PASSWORD, 'photo.jpg', 'nope.jpg', dir]);

  // a wrong key against the running service: its code, and where the key comes from
  const wrongKey = `sw_${randomBytes(32).toString('base64url')}`;
  const bad = await companion(t, { OBSCURA_API_KEY: wrongKey, OBSCURA_BASE_URL: svc.url.clearnet });
  const refused = await bad.call('analyse_file', { file_path: photo });
  t.true(refused.isError);
  t.is(refused.data.error, 'invalid_api_key', refused.text);
  t.regex(refused.data.message, /OBSCURA_API_KEY/);
  t.false(refused.text.includes(wrongKey), 'the key is never repeated');
  await bad.close();
  quiet(t, bad, [wrongKey, 'photo.jpg']);

  // no key at all, and an onion origin without a proxy (its name must never reach the system resolver)
  const none = await companion(t, { OBSCURA_BASE_URL: svc.url.clearnet });
  t.is((await none.call('analyse_file', { file_path: photo })).data.error, 'missing_api_key');
  const onion = await companion(t, { OBSCURA_API_KEY: key, OBSCURA_BASE_URL: `http://${'a'.repeat(56)}.onion` });
  const o = await onion.call('analyse_file', { file_path: photo });
  t.is(o.data.error, 'bad_configuration');
  t.regex(o.data.message, /OBSCURA_SOCKS_PROXY.*socks5h:\/\/127\.0\.0\.1:9050/);
  await none.close();
  await onion.close();
  quiet(t, onion, [key]);
});
