// Generated requests for the HTTP fuzz tests: v1 multipart PATCH bodies (well-formed ones,
// ones with odd parts, boundaries and headers, and damaged bytes) and TUS requests with every
// header the protocol reads set to valid, odd and hostile values. Some values are symbols
// ('current' offset, the n-th known upload) that the test resolves against the service's state,
// so a good share of requests is accepted and the later states get exercised too.
import fc from 'fast-check';

/** null most of the time; the value one time in `oneIn` (fc.option is the reverse: null one time in freq). */
const rarely = <T>(a: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | null> => fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: a });

/** Characters Node lets a header value hold (no CR, LF or NUL). */
const headerChar = fc.oneof(
  { weight: 20, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.constantFrom('\t', 'é', '\u00ff', '\u0080') },
);
export const headerText = (maxLength = 40) => fc.string({ unit: headerChar, maxLength });
const token = fc.stringMatching(/^[A-Za-z0-9_.~-]{1,24}$/);

/** Numbers as clients send them, and as they should not. */
const NUMBERS = ['0', '1', '-1', '-0', '00', '+5', '1e3', '1.5', ' 7 ', '0x10', '', 'abc', '9007199254740993', '99999999999999999999999', '4294967296', '1'.padEnd(400, '0'), Buffer.from('١٢').toString('latin1')]; // Arabic-Indic digits, as UTF-8 bytes
export const numberText = fc.oneof(
  { weight: 3, arbitrary: fc.nat({ max: 2000 }).map(String) },
  { weight: 2, arbitrary: fc.constantFrom(...NUMBERS) },
  { weight: 1, arbitrary: headerText(12) },
);

// ---- v1 multipart ------------------------------------------------------------------------

/** 'current' stands for the media-url's offset at send time. */
export type Offset = { current: true } | { text: string };
const offset: fc.Arbitrary<Offset> = fc.oneof({ weight: 3, arbitrary: fc.constant({ current: true as const }) }, { weight: 2, arbitrary: numberText.map((text) => ({ text })) });

export interface Part {
  name: string;
  filename: string | null;
  type: string | null;
  value: Offset | Uint8Array;
  extra: string | null;
}

const part: fc.Arbitrary<Part> = fc.record({
  name: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('offset', 'file') }, { weight: 1, arbitrary: fc.oneof(token, headerText(20), fc.constantFrom('', 'OFFSET', 'file"; x="', 'offset\u00e9')) }),
  filename: fc.option(fc.oneof(fc.constant('chunk'), headerText(30)), { freq: 2 }),
  type: fc.option(fc.constantFrom('application/octet-stream', 'text/plain; charset=utf-8', 'text/plain; charset=x-unknown', 'multipart/mixed; boundary=inner', 'x'), { freq: 2 }),
  value: fc.oneof(offset, fc.uint8Array({ maxLength: 600 })),
  extra: rarely(fc.constantFrom('Content-Transfer-Encoding: base64', 'Content-Length: 99999', 'X-Junk: 1', ': no name', 'Content-Disposition: form-data; name="file"'), 6),
});

/** The common case: an offset field and a file part, in that order. */
const wellFormed: fc.Arbitrary<Part[]> = fc.tuple(offset, fc.uint8Array({ minLength: 0, maxLength: 600 })).map(([o, bytes]) => [
  { name: 'offset', filename: null, type: null, value: o, extra: null },
  { name: 'file', filename: 'chunk', type: 'application/octet-stream', value: bytes, extra: null },
]);

export interface MultipartSpec {
  boundary: string;
  parts: Part[];
  contentType: 'plain' | 'quoted' | 'none' | 'upper' | 'mixed' | 'text' | { raw: string };
  preamble: string;
  /** Bytes damaged after the body is built: [position, value] or a cut. */
  damage: { at: number; value: number } | { cut: number } | null;
  lineEnd: '\r\n' | '\n';
  closed: boolean;
  chunked: boolean;
}

export const multipart: fc.Arbitrary<MultipartSpec> = fc.record({
  boundary: fc.oneof({ weight: 6, arbitrary: fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,70}$/) }, { weight: 1, arbitrary: fc.oneof(headerText(90), fc.constantFrom('', ' ', 'a'.repeat(200), 'b"c', '--')) }),
  parts: fc.oneof({ weight: 3, arbitrary: wellFormed }, { weight: 2, arbitrary: fc.array(part, { maxLength: 10 }) }),
  contentType: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('plain' as const, 'quoted' as const) },
    { weight: 2, arbitrary: fc.constantFrom('none' as const, 'upper' as const, 'mixed' as const, 'text' as const) },
    { weight: 1, arbitrary: headerText(60).map((raw) => ({ raw })) },
  ),
  preamble: fc.oneof({ weight: 8, arbitrary: fc.constant('') }, { weight: 1, arbitrary: headerText(20) }),
  damage: fc.oneof(
    { weight: 6, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.record({ at: fc.nat(), value: fc.nat({ max: 255 }) }) },
    { weight: 1, arbitrary: fc.record({ cut: fc.nat() }) },
  ),
  lineEnd: fc.oneof({ weight: 9, arbitrary: fc.constant('\r\n' as const) }, { weight: 1, arbitrary: fc.constant('\n' as const) }),
  closed: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  chunked: fc.boolean(),
});

/** The body and Content-Type of a spec, with 'current' replaced by the given offset. */
export function buildMultipart(m: MultipartSpec, current: number): { body: Buffer; contentType: string | undefined } {
  const nl = m.lineEnd;
  const pieces: Buffer[] = [Buffer.from(m.preamble ? m.preamble + nl : '', 'latin1')];
  for (const p of m.parts) {
    let head = `--${m.boundary}${nl}Content-Disposition: form-data; name="${p.name}"${p.filename === null ? '' : `; filename="${p.filename}"`}${nl}`;
    if (p.type !== null) head += `Content-Type: ${p.type}${nl}`;
    if (p.extra !== null) head += `${p.extra}${nl}`;
    const value = p.value instanceof Uint8Array ? Buffer.from(p.value) : Buffer.from('current' in p.value ? String(current) : p.value.text, 'latin1');
    pieces.push(Buffer.from(head + nl, 'latin1'), value, Buffer.from(nl, 'latin1'));
  }
  if (m.closed) pieces.push(Buffer.from(`--${m.boundary}--${nl}`, 'latin1'));
  let body = Buffer.concat(pieces);
  if (m.damage && body.length) {
    if ('cut' in m.damage) body = body.subarray(0, m.damage.cut % body.length);
    else body[m.damage.at % body.length] = m.damage.value;
  }
  const types: Record<string, string | undefined> = {
    plain: `multipart/form-data; boundary=${m.boundary}`,
    quoted: `multipart/form-data; boundary="${m.boundary}"`,
    none: undefined,
    upper: `MULTIPART/FORM-DATA; BOUNDARY=${m.boundary}`,
    mixed: `multipart/mixed; boundary=${m.boundary}`,
    text: 'text/plain',
  };
  const contentType = typeof m.contentType === 'object' ? m.contentType.raw : types[m.contentType];
  return { body, contentType };
}

/** A header value Node sends: anything past Latin-1 or a control character becomes '?'. */
export const headerSafe = (v: string) => v.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');

// ---- TUS ---------------------------------------------------------------------------------

/** An upload the test knows (the n-th created, modulo), or a made-up id. */
export type Target = { none: true } | { known: number } | { id: string };

interface MetaPair {
  key: string;
  value: string | null;
  encoding: 'base64' | 'raw' | 'broken';
}

const metaPair = (sessionUids: string[]): fc.Arbitrary<MetaPair> =>
  fc.record({
    key: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('upload_uid', 'step', 'name', 'filename', 'client_upload_id') }, { weight: 1, arbitrary: fc.oneof(token, headerText(10)) }),
    value: fc.option(fc.oneof(fc.constantFrom(...sessionUids), fc.constantFrom('1', '2', '0', '3', '99', '-1', '1.5', '', ' 1'), fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 30 })), { freq: 8 }),
    encoding: fc.oneof({ weight: 8, arbitrary: fc.constant('base64' as const) }, { weight: 1, arbitrary: fc.constantFrom('raw' as const, 'broken' as const) }),
  });

/** A metadata header that names a real session and step, the way clients send it. */
const goodMetadata = (sessionUids: string[]): fc.Arbitrary<MetaPair[]> =>
  fc.tuple(fc.constantFrom(...sessionUids), fc.constantFrom('1', '2'), fc.string({ maxLength: 20 })).map(([uid, step, name]) => [
    { key: 'upload_uid', value: uid, encoding: 'base64' as const },
    { key: 'step', value: step, encoding: 'base64' as const },
    { key: 'name', value: name || 'a.bin', encoding: 'base64' as const },
  ]);

export interface TusSpec {
  method: string;
  override: string | null;
  target: Target;
  tusResumable: string | null;
  uploadLength: string | null;
  uploadOffset: Offset | null;
  deferLength: string | null;
  metadata: { pairs: MetaPair[]; separator: string } | { raw: string } | null;
  contentType: string | null;
  extra: [string, string] | null;
  body: Uint8Array | null;
  chunked: boolean;
}


export const tusRequest = (sessionUids: string[]): fc.Arbitrary<TusSpec> =>
  fc.record({
    method: fc.oneof({ weight: 10, arbitrary: fc.constantFrom('POST', 'POST', 'PATCH', 'PATCH', 'HEAD', 'DELETE', 'OPTIONS') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'PROPFIND') }),
    override: rarely(fc.constantFrom('PATCH', 'DELETE', 'HEAD', 'POST', 'GET', 'PROPFIND', 'patch', ''), 12),
    target: fc.oneof(
      { weight: 4, arbitrary: fc.constant({ none: true as const }) },
      { weight: 6, arbitrary: fc.nat().map((known) => ({ known })) },
      { weight: 1, arbitrary: fc.oneof(token, fc.constantFrom('st_0000000000000000', '..', '%2e%2e', 'a%00b', '%ff')).map((id) => ({ id })) },
    ),
    tusResumable: fc.oneof({ weight: 12, arbitrary: fc.constant('1.0.0') }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.oneof(fc.constantFrom('0.2.2', '1.0.0, 1.0.0', '1.0', ''), headerText(10)) }),
    // each header is mostly valid, so that requests with all of them valid are common
    uploadLength: fc.oneof({ weight: 6, arbitrary: fc.nat({ max: 2000 }).map(String) }, { weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: numberText }),
    uploadOffset: fc.oneof({ weight: 5, arbitrary: fc.constant({ current: true as const }) }, { weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: numberText.map((text) => ({ text })) }),
    deferLength: rarely(fc.constantFrom('1', '0', 'true', ''), 12),
    metadata: fc.option(
      fc.oneof(
        { weight: 6, arbitrary: fc.record({ pairs: goodMetadata(sessionUids), separator: fc.constant(',') }) },
        { weight: 2, arbitrary: fc.record({ pairs: fc.array(metaPair(sessionUids), { maxLength: 6 }), separator: fc.constantFrom(',', ', ', ',,', ' , ') }) },
        { weight: 1, arbitrary: headerText(80).map((raw) => ({ raw })) },
      ),
      { freq: 6 },
    ),
    contentType: fc.oneof({ weight: 8, arbitrary: fc.constant('application/offset+octet-stream') }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.oneof(fc.constantFrom('application/json', 'APPLICATION/OFFSET+OCTET-STREAM', 'application/offset+octet-stream; x=1'), headerText(30)) }),
    extra: rarely(
      fc.oneof(
        fc.tuple(fc.constantFrom('Upload-Concat', 'Upload-Checksum', 'Upload-Expires', 'X-Forwarded-Host', 'Forwarded', 'X-Forwarded-Proto'), headerText(40)),
        fc.constant(['Upload-Concat', 'final;/api/tus/a /api/tus/b'] as [string, string]),
        fc.constant(['Upload-Checksum', 'sha1 Kq5sNclPz7QV2+lfQIuc6R7oRu0='] as [string, string]),
      ),
      8,
    ),
    body: fc.option(fc.uint8Array({ maxLength: 300 }), { freq: 2 }),
    chunked: fc.boolean(),
  });

function encodeMeta(p: MetaPair): string {
  if (p.value === null) return p.key;
  if (p.encoding === 'raw') return `${p.key} ${p.value}`;
  const b64 = Buffer.from(p.value).toString('base64');
  return `${p.key} ${p.encoding === 'broken' ? `${b64.slice(1)}!` : b64}`;
}

/** The request of a spec, with symbols resolved: `id` for a known upload, `offset` for 'current'. */
export function buildTus(t: TusSpec, resolve: { id(n: number): string | undefined; offset(id: string | undefined): number }): { path: string; headers: Record<string, string>; body?: Buffer } {
  const id = 'known' in t.target ? resolve.id(t.target.known) : 'id' in t.target ? t.target.id : undefined;
  const headers: Record<string, string> = {};
  if (t.override !== null) headers['x-http-method-override'] = t.override;
  if (t.tusResumable !== null) headers['tus-resumable'] = t.tusResumable;
  if (t.uploadLength !== null) headers['upload-length'] = t.uploadLength;
  if (t.uploadOffset !== null) headers['upload-offset'] = 'current' in t.uploadOffset ? String(resolve.offset(id)) : t.uploadOffset.text;
  if (t.deferLength !== null) headers['upload-defer-length'] = t.deferLength;
  if (t.metadata !== null) headers['upload-metadata'] = 'raw' in t.metadata ? t.metadata.raw : t.metadata.pairs.map(encodeMeta).join(t.metadata.separator);
  if (t.contentType !== null) headers['content-type'] = t.contentType;
  if (t.extra !== null) headers[t.extra[0].toLowerCase()] = t.extra[1];
  // Node refuses to send what a header cannot hold (the server could never see it)
  for (const [k, v] of Object.entries(headers)) headers[k] = headerSafe(v);
  return { path: id === undefined ? '/api/tus' : `/api/tus/${id}`, headers, body: t.body ? Buffer.from(t.body) : undefined };
}
