// Structured logs that are safe to keep: request ids, routes and timings only. Callers never
// pass client addresses, file names, keys, passphrases or network headers; the redact list
// is a second line of defence should a header object slip through.
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'obscura' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['headers', 'req', 'res', 'ip', 'remoteAddress', 'password', 'passphrase', 'name', 'filename', 'key'],
        remove: true,
      },
      serializers: { err: errSerializer },
    },
    destination,
  );
}

// Error messages can quote user input; keep the type and the stack frames, not the text.
function errSerializer(err: unknown): unknown {
  if (!(err instanceof Error)) return { type: typeof err };
  return { type: err.name, code: (err as { code?: unknown }).code, stack: stackFrames(err.stack) };
}

function stackFrames(stack: string | undefined): string | undefined {
  return stack?.split('\n').slice(1).join('\n');
}
