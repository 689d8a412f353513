// The admin CLI as an operator runs it: the real executable bin/obscura, in its own process,
// without blocking this one (a service under test keeps serving while it runs).
import { execFile } from 'node:child_process';
import path from 'node:path';

export const OBSCURA = path.resolve(import.meta.dirname, '../../bin/obscura');

export function obscura(env: Record<string, string>, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(OBSCURA, args, { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 110_000 }, (err, out, errOut) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out, err: errOut });
    });
  });
}
