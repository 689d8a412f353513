// The companion's log: JSON lines on stderr (stdout is the protocol). Agent clients show
// stderr to people, so it says little, and never a file name, path, key or passphrase:
// only what happened, error codes and counts.
import pino from 'pino';

export type Log = pino.Logger;

export function createLog(level = process.env.OBSCURA_LOG_LEVEL || 'info'): Log {
  const known = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
  return pino({ level: known.includes(level) ? level : 'info', base: undefined, formatters: { level: (label) => ({ level: label }) } }, pino.destination({ fd: 2, sync: true }));
}
