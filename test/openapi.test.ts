import { Validator } from '@seriousme/openapi-schema-validator';
import { z } from 'zod';
import { NETWORKS, type Network } from '../src/config.ts';
import { createApp } from '../src/http/app.ts';
import { DESCRIPTION_VERSION } from '../src/http/openapi/document.ts';
import { mountedRoutes } from '../src/http/route-list.ts';
import { startBodies } from '../src/products/index.ts';
import { Account, Status } from '../src/http/schemas/service.ts';
import { HideRevealSessionBody, Session, SessionFiles } from '../src/http/schemas/sessions.ts';
import { FileMetadata, JobAnalyse, MediaUrlCreated } from '../src/http/schemas/v1.ts';
import { validate } from '../src/http/schemas/validate.ts';
import { test } from './helpers/test.ts';
import { startService } from './helpers/service.ts';

type Svc = Awaited<ReturnType<typeof startService>>;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

async function documentOf(svc: Svc, network: Network): Promise<{ doc: any; text: string; type: string | null }> {
  const res = await fetch(`${svc.url[network]}/openapi.json`); // no key
  if (res.status !== 200) throw new Error(`${network}: /openapi.json answered ${res.status}`);
  const text = await res.text();
  return { doc: JSON.parse(text), text, type: res.headers.get('content-type') };
}

/** What validate() refuses the body with, as the route would answer it; undefined when it passes. */
function refusal(schema: Parameters<typeof validate>[0], body: unknown): { error: string; message: string } | undefined {
  try {
    validate(schema, body);
    return undefined;
  } catch (err) {
    const e = err as { code: string; message: string };
    return { error: e.code, message: e.message };
  }
}

test('/openapi.json validates as OpenAPI 3.1 on every listener, names only that listener, and matches its mounted routes both ways', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  for (const network of NETWORKS) {
    const { doc, text, type } = await documentOf(svc, network);
    const validator = new Validator();
    const result = await validator.validate(doc);
    t.true(result.valid, `${network}: ${JSON.stringify(result.errors)}`);
    t.is(validator.version, '3.1');
    t.notThrows(() => validator.resolveRefs(), `${network}: every $ref resolves`);
    t.regex(type ?? '', /^application\/json/);

    t.deepEqual(doc.servers, [{ url: svc.url[network] }]);
    for (const other of NETWORKS.filter((n) => n !== network)) {
      t.false(text.includes(new URL(svc.url[other]).host), `${network}'s document names the ${other} listener`);
    }
    t.is(doc.info.version, DESCRIPTION_VERSION, "SEED-SPEC's description version");
    t.is(doc.info['x-service-version'], svc.services.config.version);
    t.like(doc.components.securitySchemes, { api_key: { type: 'apiKey', in: 'header', name: 'api_key' }, 'X-Api-Key': { type: 'apiKey', in: 'header', name: 'X-Api-Key' } });

    // both ways: what the app mounts (a fresh app of the same network) is what the document says
    const mounted = mountedRoutes(createApp(network, svc.services));
    t.true(mounted.length > 30, `${network}: ${mounted.length} routes found`);
    const described: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of Object.keys(item).filter((k) => METHODS.includes(k))) described.push(`${method.toUpperCase()} ${path}`);
    }
    for (const r of mounted) {
      if (r.method === '*') t.true(described.some((d) => d.endsWith(` ${r.path}`)), `${network}: ${r.path} (every method) is not described`);
      else t.true(described.includes(`${r.method} ${r.path}`), `${network}: ${r.method} ${r.path} is mounted but not described`);
    }
    for (const d of described) {
      const path = d.slice(d.indexOf(' ') + 1);
      t.true(mounted.some((r) => `${r.method} ${r.path}` === d || (r.method === '*' && r.path === path)), `${network}: ${d} is described but not mounted`);
    }
    // /mcp: described where mounted; the onion and I2P apps mount it nowhere
    t.is('/mcp' in doc.paths, mounted.some((r) => r.path === '/mcp'), network);
    if (network !== 'clearnet') t.false('/mcp' in doc.paths, `${network} describes /mcp`);
  }
});

test('every operation carries the statuses the middleware answers; v1 keeps to the statuses SEED-SPEC gives', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  for (const network of NETWORKS) {
    const { doc } = await documentOf(svc, network);
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const statuses = Object.keys(op.responses).map(Number);
        const where = `${network} ${method.toUpperCase()} ${path}`;
        t.true(statuses.includes(500) && statuses.includes(503), where);
        if (path.startsWith('/v1/')) {
          const allowed = [200, 201, 204, 401, 422, 500, 503, ...(method === 'delete' ? [404, 410] : [])];
          t.deepEqual(statuses.filter((s) => !allowed.includes(s)), [], where);
          t.deepEqual(op.security, [{ api_key: [] }], where);
          t.true(statuses.includes(401) && statuses.includes(422), where);
          continue;
        }
        if (op.security?.some((s: object) => 'X-Api-Key' in s) && path !== '/mcp') {
          t.true(statuses.includes(401) && statuses.includes(429), where);
          // a HEAD answer carries no body, so its 401 is the shared one without content
          if (method === 'head') t.is(op.responses[401].description, doc.components.responses.Unauthorized.description, where);
          else t.is(op.responses[401].$ref, '#/components/responses/Unauthorized', where);
        }
        if (op.requestBody) t.true(statuses.includes(408), `${where}: body_too_slow`);
        // a route without a key is rate limited per Tor circuit or I2P destination, never on the clearnet
        if (op.security?.length === 0) t.is(statuses.includes(429), network !== 'clearnet', where);
      }
    }
    t.deepEqual(Object.keys(doc.components.responses.RateLimited.headers), ['Retry-After']);
    t.deepEqual(Object.keys(doc.components.responses.Unavailable.headers), ['Retry-After']);
    t.deepEqual(doc.components.schemas.Unauthorized.properties.error.enum, ['missing_api_key', 'malformed_api_key', 'invalid_api_key', 'account_not_verified', 'account_inactive']);
    const tus = doc.paths['/api/tus'].post.responses[201].headers;
    t.true(['Location', 'Tus-Resumable', 'Upload-Expires', 'Upload-Offset'].every((h) => h in tus));
    t.true(['Upload-Offset', 'Upload-Length'].every((h) => h in doc.paths['/api/tus/{id}'].head.responses[200].headers));
    t.true(['X-Upload-Uid', 'X-Upload-Step', 'X-Filename', 'X-Client-Upload-Id'].every((p) => doc.paths['/api/upload'].post.parameters.some((r: any) => r.$ref.endsWith(`/${p}`))));
  }
});

test("the document's request schemas are the routes' validators: what they refuse is the route's 422, what they accept is not refused for its shape", async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const { doc } = await documentOf(svc, 'clearnet');
  const starts = startBodies(svc.services.jobs.limits.expiryMaxMs);

  // the components are these very schemas, written by z.toJSONSchema
  const named: Record<string, z.ZodType> = { HideRevealSessionBody, ConvertJobBody: starts.convert, AnalyseJobBody: starts.analyse, HideJobBody: starts.hide, FileMetadata, JobAnalyse };
  for (const [name, schema] of Object.entries(named)) {
    const { $schema: _s, ...expected } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
    t.deepEqual(doc.components.schemas[name], expected, name);
  }

  const post = (path: string, body: unknown, header = 'X-Api-Key') =>
    fetch(`${svc.url.clearnet}${path}`, { method: 'POST', headers: { [header]: key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => ({
      status: r.status,
      headers: r.headers,
      body: (await r.json()) as any,
    }));
  const refused = async (path: string, schema: Parameters<typeof validate>[0], body: unknown, header?: string) => {
    const expected = refusal(schema, body);
    t.truthy(expected, `the schema accepts ${JSON.stringify(body)}`);
    const r = await post(path, body, header);
    t.is(r.status, 422, `${path} ${JSON.stringify(body)}`);
    t.deepEqual({ error: r.body.error, message: r.body.message }, expected);
  };

  // sessions
  await refused('/api/session', HideRevealSessionBody, { type: 'analyse' });
  await refused('/api/session', HideRevealSessionBody, { type: 'hide', colour: 'red' });
  t.is(refusal(HideRevealSessionBody, { type: 'hide' }), undefined);
  const created = await post('/api/session', { type: 'hide' });
  t.is(created.status, 201);
  t.notThrows(() => Session.parse(created.body));

  // a convert start on a session without files: shape refusals first; a good shape reaches the domain
  const convert = (await post('/api/convert/session', {})).body.upload_uid;
  for (const body of [
    { upload_uid: convert, image_format: 'bmp' },
    { upload_uid: convert, image_format: 'webp', quality: 0 },
    { upload_uid: convert, image_format: 'webp', colour: 'red' },
    { upload_uid: convert, image_format: 'png', video_format: 'mkv' },
    { upload_uid: convert, image_format: 'webp', expiry: '30d' },
    { image_format: 'webp' },
  ]) {
    await refused('/api/convert/job', starts.convert, body);
  }
  const good = { upload_uid: convert, image_format: 'webp', quality: 80, fit: null, expiry: '1h' };
  t.is(refusal(starts.convert, good), undefined);
  const start = await post('/api/convert/job', good);
  t.is(start.body.error, 'no_files', 'refused for what the session holds, not for its shape');

  // v1 bodies
  await refused('/v1/upload/create-media-url', FileMetadata, { name: 'a.jpg' }, 'api_key');
  await refused('/v1/upload/create-media-url', FileMetadata, { name: 'a.jpg', size: 1.5 }, 'api_key');
  const media = await post('/v1/upload/create-media-url', { name: 'a.jpg', size: 10 }, 'api_key');
  t.is(media.status, 201);
  t.notThrows(() => MediaUrlCreated.parse(media.body));
  await refused('/v1/job/analyse', JobAnalyse, { key: 'x', enableTips: 'yes', enableExtraAnalysis: false }, 'api_key');
  await refused('/v1/job/analyse', JobAnalyse, { key: media.body.key, enableTips: true }, 'api_key');
  const analyse = await post('/v1/job/analyse', { key: media.body.key, enableTips: true, enableExtraAnalysis: false }, 'api_key');
  t.is(analyse.body.error, 'upload_incomplete', 'refused for the upload, not for its shape');
});

test('answers match their response schemas', async (t) => {
  const svc = await startService();
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const status = await svc.api('GET', '/api/status', key);
  t.notThrows(() => Status.parse(status.body));
  const account = await svc.api('GET', '/api/account', key, undefined, 'onion');
  t.notThrows(() => Account.parse(account.body));
  const session = await svc.api('POST', '/api/analyse/session', key, {}, 'i2p');
  t.notThrows(() => Session.parse(session.body));
  const files = await svc.api('GET', `/api/analyse/session/${session.body.upload_uid}/files`, key, undefined, 'i2p');
  t.notThrows(() => SessionFiles.parse(files.body));
});
