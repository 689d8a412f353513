// Revealing files hidden by other tools (media/stego/foreign.ts): each picture is made here by
// Debian's own program (steghide on JPEG and BMP, outguess on JPEG, stegosuite on PNG and BMP),
// then revealed through the API as a person would: the file comes back bit-exact, under the name
// the tool kept, and the result says which tool's format it was. A wrong passphrase is the same
// nothing_found as for this service's own files, and no tool is mistaken for another.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';
import { FIXTURES, PHOTO } from './helpers/media.ts';
import { sha256 } from './helpers/payload.ts';
import { revealFile } from './helpers/stego-jobs.ts';
import { mcpClient } from './helpers/mcp.ts';
import { readsAsAFile } from '../src/media/stego/foreign.ts';
import { productFormView } from '../src/http/web/views/forms.ts';

const NOTHING = 'No hidden content could be recovered with this passphrase.';
const PASS = 'a passphrase sent with the picture';
const SECRET = readFileSync(path.join(FIXTURES, 'secret-small.png'));
const NOTE = Buffer.from('Meet at the north gate at six.\nBring the second key.\n', 'utf8');

function run(cmd: string, args: string[], cwd?: string): void {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args[0]}: ${r.status} ${r.stderr}`);
}

/** The pictures, each made by its own program with PASS, in a folder of their own. */
async function made() {
  const dir = mkdtempSync(path.join(tmpdir(), 'obscura-foreign-'));
  const at = (n: string) => path.join(dir, n);
  const base = sharp(PHOTO).resize(640, 480, { fit: 'cover' });
  await base.clone().jpeg({ quality: 90 }).toFile(at('cover.jpg'));
  await base.clone().png().toFile(at('cover.png'));
  run('ffmpeg', ['-v', 'error', '-i', at('cover.png'), '-pix_fmt', 'bgr24', at('cover.bmp')]);
  writeFileSync(at('secret-small.png'), SECRET);
  writeFileSync(at('notes.txt'), NOTE);

  run('steghide', ['embed', '-cf', at('cover.jpg'), '-ef', at('secret-small.png'), '-sf', at('steghide.jpg'), '-p', PASS, '-q', '-f']);
  run('steghide', ['embed', '-cf', at('cover.bmp'), '-ef', at('notes.txt'), '-sf', at('steghide.bmp'), '-p', PASS, '-q', '-f']);
  // outguess's default quality (75) loses the last byte here; 90 keeps it whole
  run('outguess', ['-k', PASS, '-p', '90', '-d', at('secret-small.png'), at('cover.jpg'), at('outguess.jpg')]);
  run('stegosuite', ['embed', '-k', PASS, '-f', at('notes.txt'), '-o', at('stegosuite.png'), at('cover.png')]);
  run('stegosuite', ['embed', '-k', PASS, '-f', at('secret-small.png'), '-o', at('stegosuite.bmp'), at('cover.bmp')]);
  const read = (n: string) => readFileSync(at(n));
  return {
    steghideJpeg: read('steghide.jpg'),
    steghideBmp: read('steghide.bmp'),
    outguessJpeg: read('outguess.jpg'),
    stegosuitePng: read('stegosuite.png'),
    stegosuiteBmp: read('stegosuite.bmp'),
    plainJpeg: read('cover.jpg'),
  };
}

test('files hidden by steghide, outguess and stegosuite come back bit-exact, under the names their tools kept, and the result names the tool', async (t) => {
  const files = await made();
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const cases = [
    { what: 'steghide JPEG', name: 'sent.jpg', bytes: files.steghideJpeg, tool: 'steghide', file: 'secret-small.png', secret: SECRET },
    { what: 'steghide BMP', name: 'sent.bmp', bytes: files.steghideBmp, tool: 'steghide', file: 'notes.txt', secret: NOTE },
    // outguess keeps no name: the file is named by what it is
    { what: 'outguess JPEG', name: 'sent.jpg', bytes: files.outguessJpeg, tool: 'outguess', file: 'revealed.png', secret: SECRET },
    { what: 'stegosuite PNG', name: 'sent.png', bytes: files.stegosuitePng, tool: 'stegosuite', file: 'notes.txt', secret: NOTE },
    // a BMP is asked of steghide first: it must not claim stegosuite's file
    { what: 'stegosuite BMP', name: 'sent.bmp', bytes: files.stegosuiteBmp, tool: 'stegosuite', file: 'secret-small.png', secret: SECRET },
  ];
  for (const c of cases) {
    const r = await revealFile(svc, key, c.name, c.bytes, PASS);
    t.is(r.done.status, 'completed', `${c.what}: ${r.done.progress_message}`);
    t.is(r.done.progress_message, `Recovered 1 hidden file, hidden with ${c.tool}.`, c.what);
    t.is(r.results.hidden_with, c.tool, c.what);
    t.is(r.files.length, 1, c.what);
    t.is(r.files[0].name, c.file, c.what);
    t.is(sha256(r.files[0].bytes), sha256(c.secret), `${c.what}: bit-exact`);
  }
});

test('the reveal says what else it reads: get_capabilities, the start tool, the OpenAPI answer and the reveal page', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const mcp = await mcpClient(svc.url.clearnet, key);
  const caps = (await mcp.call('get_capabilities')).structuredContent;
  t.deepEqual(caps.reveal.also_reads, { steghide: ['jpeg', 'bmp'], outguess: ['jpeg'], stegosuite: ['bmp', 'png'] });
  t.is(caps.limits.stegosuite_max_pixels, 4_000_000);
  const { tools } = await mcp.client.listTools();
  t.regex(tools.find((x) => x.name === 'start_reveal_job')!.description!, /steghide \(JPEG, BMP\), outguess \(JPEG\) or stegosuite \(PNG, BMP\)/);
  const doc = (await svc.api('GET', '/openapi.json', key)).body;
  t.deepEqual(doc.components.schemas.StegoResults.properties.hidden_with.enum, ['obscura', 'steghide', 'outguess', 'stegosuite']);
  await mcp.close();
  const form = productFormView('reveal', { csrf: 'x', values: {}, limits: { fileMaxBytes: 1 << 30, sessionMaxFiles: 20, expiryMax: '7d', imageFormats: [], videoFormats: [], stegoImageFormats: [], stegoVideoFormats: [], stegosuiteMaxPixels: 4_000_000, fits: [] } }).toString();
  t.regex(form, /<p class="hint">Also a JPEG hidden with steghide or outguess, or a PNG or BMP of up to 4 megapixels hidden with stegosuite/);
});

test("a wrong passphrase is nothing_found for every tool's file, as for this service's own; a picture with nothing hidden is the same", async (t) => {
  const files = await made();
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  for (const [what, name, bytes] of [
    ['steghide JPEG', 'a.jpg', files.steghideJpeg],
    ['outguess JPEG', 'a.jpg', files.outguessJpeg],
    ['stegosuite PNG', 'a.png', files.stegosuitePng],
    ['stegosuite BMP', 'a.bmp', files.stegosuiteBmp],
    ['plain JPEG', 'a.jpg', files.plainJpeg],
  ] as const) {
    for (const wrong of ['not the passphrase', 'a passphrase sent with the picturE']) {
      const r = await revealFile(svc, key, name, bytes, wrong);
      t.is(r.done.status, 'failed', what);
      t.is(r.done.error, 'nothing_found', what);
      t.is(r.done.progress_message, NOTHING, what);
      t.is(r.files.length, 0, what);
      t.is(r.results.hidden_with, undefined, what);
    }
  }
  // the right passphrase on a plain picture: nothing either
  const plain = await revealFile(svc, key, 'b.jpg', files.plainJpeg, PASS);
  t.is(plain.done.error, 'nothing_found');
});

test('outguess noise is never taken for a file: what a wrong key writes reads as nothing, a file or text reads as one', (t) => {
  // outguess has no check of its key: what it writes with a wrong one is noise
  let taken = 0;
  for (let i = 0; i < 2000; i++) {
    const noise = randomBytes(64 + (i % 500));
    if (readsAsAFile(noise)) taken++;
  }
  t.is(taken, 0, 'noise read as a file');
  t.true(readsAsAFile(SECRET));
  t.true(readsAsAFile(NOTE));
  t.true(readsAsAFile(Buffer.from('Привет, это сообщение.\n', 'utf8')));
  // a multi-byte character cut by the 4 KiB head is not a reason to refuse
  t.true(readsAsAFile(Buffer.from('é'.repeat(3000), 'utf8').subarray(0, 4095)));
});

test("stegosuite is not given a picture over OBSCURA_STEGOSUITE_MAX_PIXELS; under it, it runs in a small memory share", async (t) => {
  const files = await made();
  // 640 x 480 is 307,200 pixels: one less and stegosuite is not asked; steghide still is for a BMP
  const small = await startService({ OBSCURA_STEGOSUITE_MAX_PIXELS: '307199' });
  t.teardown(() => small.close());
  const a = await small.account();
  for (const [what, name, bytes] of [['stegosuite PNG', 'sent.png', files.stegosuitePng], ['stegosuite BMP', 'sent.bmp', files.stegosuiteBmp]] as const) {
    const r = await revealFile(small, a.key, name, bytes, PASS);
    t.is(r.done.error, 'nothing_found', what);
    t.is(r.done.progress_message, NOTHING, what);
  }
  t.is((await revealFile(small, a.key, 'sent.bmp', files.steghideBmp, PASS)).results.hidden_with, 'steghide');

  // the JVM's heap is sized by the picture (about 100 bytes a pixel): 0.3 MP fits a job share of
  // 320 MiB (a reveal of this service's own needs 271 MiB of it), held under the budget
  const tight = await startService({ OBSCURA_MEDIA_MEMORY_PER_JOB: '320MiB' });
  t.teardown(() => tight.close());
  const b = await tight.account();
  const r = await revealFile(tight, b.key, 'sent.png', files.stegosuitePng, PASS);
  t.is(r.done.status, 'completed', r.done.progress_message);
  t.is(r.results.hidden_with, 'stegosuite');
  t.is(sha256(r.files[0].bytes), sha256(NOTE));
});
