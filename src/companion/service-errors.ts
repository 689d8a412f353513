// What the service or the network said, turned into a CompanionError a model can act on:
// the service's own code and message, when to retry, and what to check.
import type { IncomingHttpHeaders } from 'node:http';
import { CompanionError, type Details } from './errors.ts';

const KEY_CODES = ['missing_api_key', 'malformed_api_key', 'invalid_api_key', 'account_not_verified', 'account_inactive'];

export function errorFrom(status: number, headers: IncomingHttpHeaders, body: unknown): CompanionError {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const code = typeof b.error === 'string' ? b.error : undefined;
  const said = typeof b.message === 'string' ? b.message : undefined;
  const retryAfter = seconds(b.retry_after) ?? seconds(headers['retry-after']);
  if (status === 503 && b.status === 'MAINTENANCE') {
    const n = retryAfter ?? 300;
    return new CompanionError('maintenance', `The service is in maintenance; try again in ${n} seconds.`, { retry_after_seconds: n });
  }
  if (status === 429) {
    const n = retryAfter ?? 60;
    return new CompanionError(code ?? 'rate_limited', `${said ?? 'Too many requests.'} Try again in ${n} seconds.`.trim(), { retry_after_seconds: n });
  }
  if (status === 401 || (code && KEY_CODES.includes(code))) {
    return new CompanionError(code ?? 'unauthorized', `${said ?? 'The key was refused.'} The key comes from OBSCURA_API_KEY in the companion's environment; the person running the agent has to fix it.`);
  }
  // the rest of the body (capacity_bytes, max_upload_bytes, job_uid, request_id...) helps the model
  const details: Details = {};
  for (const [k, v] of Object.entries(b)) {
    if (k !== 'error' && k !== 'message' && (v === null || ['string', 'number', 'boolean'].includes(typeof v))) details[k] = v as string | number | boolean | null;
  }
  if (retryAfter !== undefined) details.retry_after_seconds = retryAfter;
  return new CompanionError(code ?? `http_${status}`, said ?? `The service answered ${status}.`, details);
}

/** Worth a second try, as the service's clients do: 500, 502, 503 (not maintenance) and 504. */
export function retryable(status: number, body: unknown): boolean {
  if (status === 503) return (body as { status?: unknown } | undefined)?.status !== 'MAINTENANCE';
  return [500, 502, 504].includes(status);
}

/** A connection that failed before any answer: the service is down, or the address is wrong. */
export function unreachable(err: NodeJS.ErrnoException, origin: string, via?: string): CompanionError {
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ENOTFOUND: 'host name not found',
    EAI_AGAIN: 'host name not found',
    ETIMEDOUT: 'no answer in time',
    ECONNRESET: 'the connection was cut',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
  };
  const reason = (err.code && reasons[err.code]) || err.message || String(err.code);
  const through = via ? ` through the SOCKS proxy ${via}` : '';
  const check = via ? 'Is the service up, is the proxy (tor) running, and are OBSCURA_BASE_URL and OBSCURA_SOCKS_PROXY right?' : 'Is the service running, and is OBSCURA_BASE_URL right?';
  return new CompanionError('service_unreachable', `cannot reach the service at ${origin}${through}: ${reason}. ${check}`, { base_url: origin });
}

function seconds(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,9}$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 ? Math.ceil(n) : undefined;
}
