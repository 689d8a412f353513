// Analyse, part 3, item 1: the C2PA Conformance Program's trust list ships with the service and
// is used with no setting. The fixture (Google's generator, signed through a chain that ends in
// that list) reads valid and trusted; a manifest signed by a throwaway authority made here reads
// valid and untrusted; OBSCURA_C2PA_EXTRA_TRUST_ANCHORS adds to the list, and
// OBSCURA_C2PA_TRUST_ANCHORS=none trusts no one.
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';
import { analyse } from './helpers/analyse.ts';
import { C2PA_PNG } from './helpers/media.ts';
import { throwawaySigner } from './helpers/c2pa-sign.ts';

const picture = () => sharp({ create: { width: 96, height: 64, channels: 3, background: '#336699' } }).png().toBuffer();

async function c2paOf(env: Record<string, string>, files: [string, Buffer][]) {
  const svc = await startService(env);
  try {
    const { key } = await svc.account();
    const { files: items } = await analyse(svc, key, files);
    return Object.fromEntries(items.map((i: any) => [i.name, i.verdicts.c2pa]));
  } finally {
    await svc.close();
  }
}

test('with no setting, the shipped trust list: the fixture reads valid and trusted, a throwaway signer valid and untrusted', async (t) => {
  const signer = throwawaySigner();
  const v = await c2paOf({}, [
    ['fixture.png', readFileSync(C2PA_PNG)],
    ['throwaway.png', signer.signPng(await picture())],
  ]);
  t.like(v['fixture.png'], { verdict: 'valid', has_manifest: true, trusted: true, signer: 'Google Media Processing Services (Google LLC)' });
  t.deepEqual(v['fixture.png'].validation_errors, []);
  t.like(v['throwaway.png'], { verdict: 'valid', has_manifest: true, trusted: false, signer: 'Obscura test signer (Obscura tests)' });
  t.true(v['throwaway.png'].validation_errors.includes('signingCredential.untrusted'));
});

test('OBSCURA_C2PA_EXTRA_TRUST_ANCHORS adds to the shipped list; OBSCURA_C2PA_TRUST_ANCHORS replaces it, and "none" trusts no one', async (t) => {
  const signer = throwawaySigner();
  const files: [string, Buffer][] = [
    ['fixture.png', readFileSync(C2PA_PNG)],
    ['throwaway.png', signer.signPng(await picture())],
  ];
  const added = await c2paOf({ OBSCURA_C2PA_EXTRA_TRUST_ANCHORS: signer.caFile }, files);
  t.true(added['fixture.png'].trusted, 'the shipped list still holds');
  t.true(added['throwaway.png'].trusted, 'and the added authority is trusted');
  const replaced = await c2paOf({ OBSCURA_C2PA_TRUST_ANCHORS: signer.caFile }, files);
  t.false(replaced['fixture.png'].trusted, 'the shipped list is replaced');
  t.true(replaced['throwaway.png'].trusted);
  const none = await c2paOf({ OBSCURA_C2PA_TRUST_ANCHORS: 'none' }, files);
  t.like(none['fixture.png'], { verdict: 'valid', trusted: false });
  t.like(none['throwaway.png'], { verdict: 'valid', trusted: false });
});
