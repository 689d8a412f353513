// The one catalogue of error codes (domain/errors.ts ERRORS): every code has a status, every
// AppError the sources make names a catalogued code, and the OpenAPI document names only
// catalogued codes, each at the status its kind gives.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AppError, ERRORS, hasCode, isErrorCode, type ErrorCode } from '../src/domain/errors.ts';
import { STATUS_OF } from '../src/http/middleware/errors.ts';
import { errorStatus, openApiDocument } from '../src/http/openapi/document.ts';
import { mcpOperations } from '../src/http/openapi/operations-mcp.ts';
import { newerOperations } from '../src/http/openapi/operations-newer.ts';
import { v1Operations } from '../src/http/openapi/operations-v1.ts';
import { v1StatusOf } from '../src/http/v1/errors.ts';
import { test } from './helpers/test.ts';

const SRC = path.join(import.meta.dirname, '..', 'src');
const CODES = Object.keys(ERRORS) as ErrorCode[];
const EXPIRY_MAX_MS = 7 * 24 * 3600 * 1000;

function sources(dir = SRC): { file: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') ? [{ file: path.relative(SRC, p), text: readFileSync(p, 'utf8') }] : [];
  });
}

test('every code in the catalogue has a kind with a status, on the newer API and on v1, and a summary', (t) => {
  t.true(CODES.length > 100, `${CODES.length} codes`);
  for (const code of CODES) {
    const spec: { kind: keyof typeof STATUS_OF; summary: string; message?: string } = ERRORS[code];
    const status = STATUS_OF[spec.kind];
    t.true(Number.isInteger(status) && status >= 400 && status < 600, `${code}: kind ${spec.kind} has no error status (${status})`);
    for (const unlink of [false, true]) t.true([401, 404, 410, 422, 500].includes(v1StatusOf(spec.kind, { unlink })), `${code}: no v1 status`);
    t.regex(spec.summary, /^[^;\n]{5,}$/, `${code}: a summary of one line, without the '; ' that separates them`);
    if ('message' in spec) t.regex(spec.message!, /\S/, `${code}: an empty default message`);
    t.is(new AppError(code, 'x').kind, spec.kind, `${code}: an AppError's kind is the catalogue's`);
  }
  t.is(new AppError('no_files').message, ERRORS.no_files.message, 'without a message, the catalogue’s');
  t.true(hasCode(new AppError('no_files'), 'session_used', 'no_files'));
  t.false(hasCode(new AppError('no_files'), 'session_used'));
  t.false(hasCode({ code: 'no_files' }, 'no_files'), 'only an AppError has a code of ours');
  t.throws(() => new AppError('no_such_code' as ErrorCode, 'x'), { message: /not in the catalogue/ });
});

// What may stand as the code of `new AppError(` other than a literal: each has its codes checked below or by type.
const DYNAMIC = new Map([
  ['code', ['domain/uploads-v1.ts', 'http/v1/upload.ts']], // fail(code, ...) / bad(code, ...): their literal codes are checked below
  ['errorCode(f.error', ['products/convert/limits.ts', 'products/stego/runner.ts']], // the engine's codes, checked at run time
  ["typeof code === 'function' ? code(issue", ['http/schemas/validate.ts']], // withCodes' codes: ErrorCode by type
]);

test('every new AppError in src names a catalogue code, and its kind is the catalogue\'s', (t) => {
  let sites = 0;
  for (const { file, text } of sources()) {
    for (const m of text.matchAll(/new AppError\(\s*([^,)]+?)\s*[,)]/g)) {
      if (file === 'domain/errors.ts') continue; // the class itself
      sites++;
      const arg = m[1];
      const literal = /^'([^']*)'$/.exec(arg);
      if (literal) t.true(isErrorCode(literal[1]), `${file}: new AppError('${literal[1]}', ...): not in the catalogue`);
      else t.true(DYNAMIC.get(arg)?.includes(file), `${file}: new AppError(${arg}, ...): a code the catalogue cannot check`);
    }
    // the codes of the v1 helpers that make AppErrors, and of every hasCode
    if (DYNAMIC.get('code')!.includes(file)) {
      for (const m of text.matchAll(/\b(?:bad|fail)\('([^']+)'/g)) t.true(isErrorCode(m[1]), `${file}: ${m[0]}: not in the catalogue`);
    }
    for (const m of text.matchAll(/\bhasCode\([^,)]+((?:,\s*'[^']*')+)\)/g)) {
      for (const c of m[1].matchAll(/'([^']*)'/g)) t.true(isErrorCode(c[1]), `${file}: hasCode(..., '${c[1]}'): not in the catalogue`);
    }
    // no string test of one of our codes is left: hasCode does it (the media engine's own codes aside)
    if (!/^(media|queue)\//.test(file)) {
      for (const m of text.matchAll(/\.code\s*[!=]==\s*'([a-z_]+)'/g)) t.false(isErrorCode(m[1]), `${file}: ${m[0]}: tests a code by string; use hasCode`);
    }
  }
  t.true(sites >= 100, `${sites} sites of new AppError found`); // the regex still finds them (137 when this was written)
});

test("the OpenAPI document names only catalogue codes, each at its kind's status with its summary", (t) => {
  const mounted = ['POST', 'GET', 'DELETE'].map((method) => ({ method, path: '/mcp' }));
  const ops = [...newerOperations(EXPIRY_MAX_MS), ...v1Operations(), ...mcpOperations()];
  const doc = openApiDocument({ network: 'clearnet', serviceVersion: 'test', expiryMaxMs: EXPIRY_MAX_MS, mounted }) as any;
  const standard = new Set(Object.values<any>(doc.components.responses).map((r) => r.description));
  // named in the notes, and not AppErrors: @tus/server's and the MCP endpoint's own refusals
  const notOurs = new Set(['tus_version_required', 'invalid_tus_header', 'origin_not_allowed']);
  let named = 0;
  for (const op of ops) {
    const where = `${op.method.toUpperCase()} ${op.path}`;
    const responses: Record<string, any> | undefined = doc.paths[op.path.replace(/:(\w+)/g, '{$1}')]?.[op.method]?.responses;
    if (!t.truthy(responses, `${where} is in the document`)) continue;
    for (const code of op.errors ?? []) {
      t.true(isErrorCode(code), `${where}: ${code} is not in the catalogue`);
      const description: string = responses[errorStatus(op, code)]?.description ?? '';
      t.true(description.split('; ').includes(`${code}: ${ERRORS[code]?.summary}`), `${where}: ${code} is not said at ${errorStatus(op, code)}`);
    }
    for (const [status, r] of Object.entries<any>(responses)) {
      if (Number(status) < 400 || r.$ref || standard.has(r.description)) continue;
      for (const part of String(r.description).split('; ')) {
        const code = /^([a-z][a-z0-9_]*): /.exec(part)?.[1];
        if (!code) continue;
        named++;
        t.true(isErrorCode(code) || notOurs.has(code), `${where} ${status}: ${code} is not in the catalogue`);
        if (isErrorCode(code) && part === `${code}: ${ERRORS[code].summary}`) t.is(errorStatus(op, code), Number(status), `${where}: ${code} at ${status}`);
      }
    }
  }
  t.true(named > 100, `${named} codes named`);
});
