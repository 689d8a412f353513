// What went wrong, in the users' words. The HTTP layer maps each kind to a status; the
// domain never speaks HTTP.
export type ErrorKind =
  | 'bad_request'
  | 'invalid'
  | 'unauthorized'
  | 'payment_required'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'length_required'
  | 'too_large'
  | 'range_not_satisfiable'
  | 'unsupported_media'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

export class AppError extends Error {
  override name = 'AppError';
  readonly kind: ErrorKind;
  /** Machine-readable code, sent as `error`. */
  readonly code: string;
  readonly details?: Record<string, unknown>;

  constructor(kind: ErrorKind, code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.kind = kind;
    this.code = code;
    this.details = details;
  }
}
