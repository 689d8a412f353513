// A file name sent in a request header (X-Filename). Node hands header values over as latin1,
// one character per byte; clients send either percent-encoded ASCII (as a header should carry
// text) or the name's raw UTF-8 bytes (curl -H "X-Filename: café.jpg", most HTTP libraries).
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The name as the client meant it, and whether it is still to be percent-decoded: an all-ASCII
 * value is percent-encoding (or plain ASCII) and is decoded downstream; a value with bytes
 * over 0x7F is raw text, taken as UTF-8 when its bytes are valid UTF-8 (else as latin1, as
 * sent), and then never percent-decoded: a `%` next to raw bytes is a literal percent sign.
 */
export function headerFileName(value: string): { name: string; percentEncoded: boolean } {
  if (!/[^\x00-\x7f]/.test(value)) return { name: value, percentEncoded: true };
  const bytes = Buffer.from(value, 'latin1');
  try {
    return { name: UTF8.decode(bytes), percentEncoded: false };
  } catch {
    return { name: value, percentEncoded: false };
  }
}
