// The C2PA provenance and AI-generation detectors on a real signed file (an AI-generated PNG
// with a Google C2PA manifest), on copies of it altered byte by byte, and on files given AI
// metadata by real tools. The C2PA library is native code, out of reach of the Node egress
// guard: the remote-manifest case checks with a local server that it never goes out.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { C2PA_PNG, PHOTO } from './helpers/media.ts';
import { pngChunk } from './helpers/media-kit.ts';
import { analyseInput } from '../src/media/analyse/input.ts';
import { c2paDetector, type C2paVerdict } from '../src/media/analyse/detectors/c2pa.ts';
import { aiGenerationDetector, type AiGenerationVerdict } from '../src/media/analyse/detectors/ai-generation.ts';
import { readC2paIsolated } from '../src/media/analyse/c2pa-reader.ts';
import type { AnalyseInput, AnalyseOptions, DetectorResult } from '../src/media/analyse/detector.ts';
import { probe } from '../src/media/probe.ts';
import { DEFAULT_LIMITS } from '../src/media/limits.ts';

const TRAINED = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';

function workDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-c2pa-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function inputFor(file: string, options: AnalyseOptions): Promise<AnalyseInput> {
  return analyseInput(file, await probe(file, DEFAULT_LIMITS), DEFAULT_LIMITS, options);
}

/** Both detectors on one input (they share one C2PA reading). */
async function analyse(file: string, dir: string, extra: Partial<AnalyseOptions> = {}): Promise<{ c2pa: DetectorResult<C2paVerdict>; ai: DetectorResult<AiGenerationVerdict> }> {
  const options: AnalyseOptions = { depth: 'standard', outDir: dir, ...extra };
  const input = await inputFor(file, options);
  return { c2pa: await c2paDetector.run(input, options), ai: await aiGenerationDetector.run(input, options) };
}

/** The PNG's chunks: type, offset of the chunk, length of its data. */
function chunks(png: Buffer): { type: string; at: number; length: number }[] {
  const out = [];
  for (let o = 8; o + 8 <= png.length; ) {
    const length = png.readUInt32BE(o);
    out.push({ type: png.toString('latin1', o + 4, o + 8), at: o, length });
    o += 12 + length;
  }
  return out;
}

/** The C2PA manifest store (the caBX chunk's data) of the fixture. */
function manifestStore(png: Buffer): { start: number; data: Buffer } {
  const c = chunks(png).find((x) => x.type === 'caBX');
  if (!c) throw new Error('no caBX chunk');
  return { start: c.at + 8, data: png.subarray(c.at + 8, c.at + 8 + c.length) };
}

function flipped(png: Buffer, offset: number): Buffer {
  const copy = Buffer.from(png);
  copy[offset] ^= 0x01;
  return copy;
}

/** The DER certificates embedded in the manifest (the COSE x5chain of each signature). */
function embeddedCertificates(store: Buffer): X509Certificate[] {
  const seen = new Map<string, X509Certificate>();
  for (let i = 0; i + 4 < store.length; i++) {
    if (store[i] !== 0x30 || store[i + 1] !== 0x82) continue;
    try {
      const c = new X509Certificate(store.subarray(i, i + 4 + store.readUInt16BE(i + 2)));
      seen.set(c.fingerprint256, c);
    } catch {
      // not a certificate
    }
  }
  return [...seen.values()];
}

test('the AI-generated PNG: a valid, untrusted manifest with a created action of trained algorithmic media; declared AI', async (t) => {
  const dir = workDir(t);
  const { c2pa, ai } = await analyse(C2PA_PNG, dir);
  const v = c2pa.verdict;
  t.truthy(v);
  t.is(v!.verdict, 'valid');
  t.true(v!.applicable);
  t.true(v!.has_manifest);
  t.false(v!.trusted);
  t.truthy(v!.claim_generator);
  t.regex(v!.claim_generator!, /Google/);
  t.regex(v!.signer ?? '', /Google/);
  t.regex(v!.signed_at ?? '', /^\d{4}-\d\d-\d\dT/);
  t.deepEqual(v!.validation_errors, [], 'an untrusted signer without a trust list is not a validation error');
  t.true(v!.actions.some((a) => a.action === 'c2pa.created' && a.digital_source_type === TRAINED), JSON.stringify(v!.actions));
  t.is(v!.digital_source_type, TRAINED);
  t.deepEqual(c2pa.findings.map((f) => f.severity), ['low']);
  t.regex(c2pa.findings[0].label, /signed.*but the signer is not on the trust list/);
  t.true(c2pa.findings.every((f) => f.detector === 'c2pa'));
  t.deepEqual(JSON.parse(JSON.stringify(v)), v, 'JSON-ready');

  t.is(ai.verdict?.verdict, 'declared_aigc');
  t.true(ai.verdict!.signals.some((s) => s.source === 'c2pa' && /trainedAlgorithmicMedia/.test(s.detail)));
  t.true(ai.findings.every((f) => f.detector === 'ai_generation'));
});

test('a byte changed in the signed claim of the active manifest: invalid, with a high finding', async (t) => {
  const dir = workDir(t);
  const png = readFileSync(C2PA_PNG);
  const store = manifestStore(png);
  // the active manifest is the last one of the store; its claim box follows its label
  const claim = store.data.lastIndexOf('c2pa.claim');
  t.true(claim > 0);
  const file = path.join(dir, 'claim.png');
  writeFileSync(file, flipped(png, store.start + claim + 60));
  const { c2pa, ai } = await analyse(file, dir);
  t.is(c2pa.verdict?.verdict, 'invalid');
  t.true(c2pa.verdict!.has_manifest);
  t.false(c2pa.verdict!.trusted);
  t.true(c2pa.verdict!.validation_errors.length > 0);
  t.false(c2pa.verdict!.validation_errors.includes('signingCredential.untrusted'));
  t.true(c2pa.findings.some((f) => f.severity === 'high' && /present but does not validate/.test(f.label)));
  // the file still says it is AI-generated, even if the statement no longer validates
  t.is(ai.verdict?.verdict, 'declared_aigc');
});

test('a byte changed in the signature (its certificate chain): invalid, not "no answer"', async (t) => {
  const dir = workDir(t);
  const png = readFileSync(C2PA_PNG);
  const store = manifestStore(png);
  const sig = store.data.indexOf('c2pa.signature');
  t.true(sig > 0);
  const file = path.join(dir, 'signature.png');
  writeFileSync(file, flipped(png, store.start + sig + 200));
  const { c2pa } = await analyse(file, dir);
  t.is(c2pa.verdict?.verdict, 'invalid');
  t.true(c2pa.verdict!.has_manifest);
  t.true(c2pa.verdict!.validation_errors.length > 0);
  t.true(c2pa.findings.some((f) => f.severity === 'high'));
});

test('a byte changed in the image data (first IDAT): invalid with a data hash mismatch', async (t) => {
  const dir = workDir(t);
  const png = readFileSync(C2PA_PNG);
  const idat = chunks(png).find((c) => c.type === 'IDAT')!;
  const file = path.join(dir, 'idat.png');
  writeFileSync(file, flipped(png, idat.at + 8 + 100));
  const { c2pa } = await analyse(file, dir);
  t.is(c2pa.verdict?.verdict, 'invalid');
  t.true(c2pa.verdict!.validation_errors.includes('assertion.dataHash.mismatch'), JSON.stringify(c2pa.verdict!.validation_errors));
  t.true(c2pa.findings.some((f) => f.severity === 'high' && /changed after it was signed/.test(f.label)));
});

test('the photo, which has no manifest: verdict none, and no indication of AI', async (t) => {
  const dir = workDir(t);
  const { c2pa, ai } = await analyse(PHOTO, dir);
  t.is(c2pa.verdict?.verdict, 'none');
  t.false(c2pa.verdict!.has_manifest);
  t.false(c2pa.verdict!.trusted);
  t.deepEqual(c2pa.verdict!.actions, []);
  t.deepEqual(c2pa.findings.map((f) => [f.severity, f.label]), [['info', 'No C2PA provenance in this file.']]);
  t.is(ai.verdict?.verdict, 'no_indication');
  t.deepEqual(ai.verdict!.signals, []);
  t.regex(ai.findings[0].label, /proves nothing/);
});

test('a PNG made with sharp and given an AUTOMATIC1111 "parameters" text chunk: possible AI', async (t) => {
  const dir = workDir(t);
  const plain = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#7a8a9a' } }).png().toBuffer();
  const text = Buffer.from('parameters\0a lighthouse at dusk\nSteps: 20, Sampler: Euler a, CFG scale: 7, Seed: 1234, Model: sd_xl_base_1.0', 'latin1');
  const ihdrEnd = 8 + 12 + 13;
  const file = path.join(dir, 'a1111.png');
  writeFileSync(file, Buffer.concat([plain.subarray(0, ihdrEnd), pngChunk('tEXt', text), plain.subarray(ihdrEnd)]));
  const { c2pa, ai } = await analyse(file, dir);
  t.is(c2pa.verdict?.verdict, 'none');
  t.is(ai.verdict?.verdict, 'possible_aigc');
  t.true(ai.verdict!.signals.some((s) => s.source === 'PNG:Parameters'), JSON.stringify(ai.verdict!.signals));
  t.true(ai.findings.some((f) => f.severity === 'low'));
  // the same picture without the chunk: nothing
  const bare = path.join(dir, 'bare.png');
  writeFileSync(bare, plain);
  t.is((await analyse(bare, dir)).ai.verdict?.verdict, 'no_indication');
});

test('a JPEG given an IPTC digital source type of trained algorithmic media by exiftool: declared AI', async (t) => {
  const dir = workDir(t);
  const file = path.join(dir, 'declared.jpg');
  await sharp(PHOTO).resize(320).jpeg().toFile(file);
  execFileSync('exiftool', ['-q', '-overwrite_original', `-XMP-iptcExt:DigitalSourceType=${TRAINED}`, file]);
  const { c2pa, ai } = await analyse(file, dir);
  t.is(c2pa.verdict?.verdict, 'none');
  t.is(ai.verdict?.verdict, 'declared_aigc');
  t.deepEqual(ai.verdict!.signals.map((s) => s.source), ['XMP-iptcExt:DigitalSourceType']);
});

test('software and credit tags naming generators: possible AI', async (t) => {
  const dir = workDir(t);
  const file = path.join(dir, 'tags.jpg');
  await sharp(PHOTO).resize(320).jpeg().toFile(file);
  execFileSync('exiftool', ['-q', '-overwrite_original', '-XMP-xmp:CreatorTool=Adobe Firefly Image 3', '-XMP-photoshop:Credit=Made with Google AI', file]);
  const { ai } = await analyse(file, dir);
  t.is(ai.verdict?.verdict, 'possible_aigc');
  t.deepEqual(ai.verdict!.signals.map((s) => s.source).sort(), ['XMP-photoshop:Credit', 'XMP-xmp:CreatorTool']);
  // a camera's software line is not a signal
  const camera = path.join(dir, 'camera.jpg');
  await sharp(PHOTO).resize(320).jpeg().toFile(camera);
  execFileSync('exiftool', ['-q', '-overwrite_original', '-IFD0:Software=Adobe Photoshop Lightroom Classic 13.0', camera]);
  t.is((await analyse(camera, dir)).ai.verdict?.verdict, 'no_indication');
});

test('trust: with the signer\'s issuing CA as trust anchor the manifest is trusted; with an unrelated CA it is not', async (t) => {
  const dir = workDir(t);
  const certs = embeddedCertificates(manifestStore(readFileSync(C2PA_PNG)).data);
  // the signing certificate's issuer (the chain's intermediate CA; the root is not embedded)
  const signers = certs.filter((c) => !c.ca && /Media Processing/.test(c.subject));
  t.true(signers.length > 0);
  const issuer = certs.find((c) => c.ca && signers.some((s) => s.checkIssued(c)));
  t.truthy(issuer, certs.map((c) => c.subject).join(' | '));
  const trusted = await analyse(C2PA_PNG, dir, { c2paTrustAnchors: issuer!.toString() });
  t.is(trusted.c2pa.verdict?.verdict, 'valid');
  t.true(trusted.c2pa.verdict!.trusted);
  t.deepEqual(trusted.c2pa.verdict!.validation_errors, []);
  t.deepEqual(trusted.c2pa.findings.map((f) => f.severity), ['info']);
  t.regex(trusted.c2pa.findings[0].label, /trusted signer/);

  // the time-stamping CA (same root, but it did not issue the signing certificate)
  const other = certs.find((c) => c.ca && c !== issuer && !signers.some((s) => s.checkIssued(c)));
  t.truthy(other);
  const untrusted = await analyse(C2PA_PNG, dir, { c2paTrustAnchors: other!.toString() });
  t.is(untrusted.c2pa.verdict?.verdict, 'valid');
  t.false(untrusted.c2pa.verdict!.trusted);
  t.true(untrusted.c2pa.verdict!.validation_errors.includes('signingCredential.untrusted'), 'with a trust list, the code is reported');
  t.true(untrusted.c2pa.findings.some((f) => f.severity === 'low'));
});

test('an MKV (a container the library does not read): no c2pa answer with a finding; AI still judged from the tags', async (t) => {
  const dir = workDir(t);
  const file = path.join(dir, 'clip.mkv');
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=5', '-t', '1', '-c:v', 'ffv1', file]);
  const { c2pa, ai } = await analyse(file, dir);
  t.is(c2pa.verdict, null);
  t.is(c2pa.findings.length, 1);
  t.is(c2pa.findings[0].severity, 'info');
  t.regex(c2pa.findings[0].label, /could not be checked for this format \(MKV\)/);
  t.is(ai.verdict?.verdict, 'no_indication');
});

test('a truncated PNG: no c2pa answer; no AI answer either when the metadata cannot be read', async (t) => {
  const dir = workDir(t);
  const file = path.join(dir, 'truncated.png');
  writeFileSync(file, readFileSync(C2PA_PNG).subarray(0, 3000));
  // the probe refuses such a file, so the input is built from the whole file's probe
  const options: AnalyseOptions = { depth: 'standard', outDir: dir };
  const p = await probe(C2PA_PNG, DEFAULT_LIMITS);
  const c2pa = await c2paDetector.run(analyseInput(file, p, DEFAULT_LIMITS, options), options);
  t.is(c2pa.verdict, null);
  t.regex(c2pa.findings[0].label, /could not be checked/);

  const noTags: AnalyseInput = { ...analyseInput(file, p, DEFAULT_LIMITS, options), tags: () => Promise.reject(new Error('exiftool could not read this file')) };
  const ai = await aiGenerationDetector.run(noTags, options);
  t.is(ai.verdict, null);
  t.is(ai.findings.length, 1);
});

test('a file that points to a remote manifest: nothing is fetched, and the check gives no answer', async (t) => {
  const dir = workDir(t);
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/manifest.c2pa`;
  const xmp = path.join(dir, 'provenance.xmp');
  writeFileSync(xmp, `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dcterms="http://purl.org/dc/terms/" dcterms:provenance="${url}"/></rdf:RDF></x:xmpmeta>`);
  const file = path.join(dir, 'remote.jpg');
  await sharp(PHOTO).resize(320).jpeg().toFile(file);
  execFileSync('exiftool', ['-q', '-overwrite_original', `-XMP<=${xmp}`, file]);
  const { c2pa, ai } = await analyse(file, dir);
  t.deepEqual(requests, [], 'the C2PA library fetched the remote manifest');
  t.is(c2pa.verdict, null);
  t.regex(c2pa.findings[0].label, /not fetched/);
  t.is(ai.verdict?.verdict, 'no_indication');
});

test('an abort stops the reading: its child process is killed and reaped, and the call rejects as aborted', async (t) => {
  const controller = new AbortController();
  const spawned: number[] = [];
  const reaped: number[] = [];
  const err = await t.throwsAsync(
    readC2paIsolated(C2PA_PNG, 'image/png', {
      signal: controller.signal,
      onSpawn: (pid) => {
        spawned.push(pid);
        controller.abort();
      },
      onReap: (pid) => reaped.push(pid),
    }),
  );
  t.is((err as { code?: string }).code, 'aborted');
  t.is(spawned.length, 1);
  t.deepEqual(reaped, spawned);
  t.throws(() => process.kill(spawned[0], 0), undefined, 'the child is gone');
});
