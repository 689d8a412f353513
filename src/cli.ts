// Admin CLI. Scriptable: `key create` prints only the key; errors go to stderr with a
// non-zero exit. Usage: npm run cli -- <command> (see USAGE).
import { ConfigError, loadConfig } from './config.ts';
import { AppError } from './domain/errors.ts';
import { createServices } from './services.ts';

const USAGE = `usage: npm run cli -- <command>
  account create <email> [--verified]
  account verify|deactivate|reactivate <email>
  account show <email>
  account password <email>    sets the web password, read from stdin (never an argument:
                              arguments show in ps and in the shell's history)
  key create <email>          prints the new key, once; it is never shown again
  key list <email>            id, prefix and last four characters of each key
  key revoke <key-id>
  maintenance on|off|status`;

const iso = (t: number | null) => (t === null ? '-' : new Date(t).toISOString());

async function run(argv: string[]): Promise<number> {
  const [group, action, ...rest] = argv;
  const flags = new Set(rest.filter((a) => a.startsWith('--')));
  const args = rest.filter((a) => !a.startsWith('--'));
  const known = new Set(['--verified']);
  const bad = [...flags].find((f) => !known.has(f));
  if (!group || !action || bad) {
    process.stderr.write(`${bad ? `unknown option ${bad}\n` : ''}${USAGE}\n`);
    return 2;
  }
  const need = (n: number) => {
    if (args.length !== n) throw new UsageError();
  };

  const config = loadConfig({ ...process.env, OBSCURA_LOG_LEVEL: 'silent' });
  const s = await createServices(config);
  try {
    const out = (line: string) => process.stdout.write(line + '\n');
    switch (`${group} ${action}`) {
      case 'account create': {
        need(1);
        const a = await s.accounts.create(args[0], { verified: flags.has('--verified') });
        out(`created account ${a.email} (${a.verifiedAt ? 'verified' : 'not verified'})`);
        break;
      }
      case 'account verify':
      case 'account deactivate':
      case 'account reactivate': {
        need(1);
        const a = await s.accounts[action as 'verify' | 'deactivate' | 'reactivate'](args[0]);
        if (action === 'deactivate') await s.webSessions.closeAll(a.id);
        out(`${a.email}: ${a.verifiedAt ? 'verified' : 'not verified'}, ${a.deactivatedAt ? 'inactive' : 'active'}`);
        break;
      }
      case 'account password': {
        need(1);
        const a = await s.accounts.get(args[0]);
        const line = (await readStdin()).replace(/\r?\n$/, '');
        await s.selfService.setPassword(a, line);
        const ended = await s.webSessions.closeAll(a.id);
        out(`${a.email}: password set${ended ? `; ${ended} web session${ended === 1 ? '' : 's'} ended` : ''}`);
        break;
      }
      case 'account show': {
        need(1);
        const a = await s.accounts.get(args[0]);
        out(`${a.email}: ${a.verifiedAt ? 'verified' : 'not verified'}, ${a.deactivatedAt ? 'inactive' : 'active'}, created ${iso(a.createdAt)}`);
        break;
      }
      case 'key create': {
        need(1);
        out((await s.apiKeys.issue(args[0])).key);
        break;
      }
      case 'key list': {
        need(1);
        for (const k of await s.apiKeys.list(args[0])) {
          const state = k.revokedAt ? `revoked ${iso(k.revokedAt)}` : k.expiresAt && k.expiresAt <= Date.now() ? 'expired' : 'active';
          out(`${k.id}\t${k.shown}\tcreated ${iso(k.createdAt)}\t${state}`);
        }
        break;
      }
      case 'key revoke': {
        need(1);
        await s.apiKeys.revoke(args[0]);
        out(`revoked ${args[0]}`);
        break;
      }
      case 'maintenance on':
      case 'maintenance off':
        need(0);
        await s.maintenance.set(action === 'on');
        out(`maintenance ${action}`);
        break;
      case 'maintenance status':
        need(0);
        out(`maintenance ${await s.maintenance.isOn() ? 'on' : 'off'}`);
        break;
      default:
        throw new UsageError();
    }
    return 0;
  } finally {
    await s.close();
  }
}

class UsageError extends Error {}

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (err) {
  if (err instanceof UsageError) {
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = 2;
  } else if (err instanceof AppError || err instanceof ConfigError) {
    process.stderr.write(`obscura: ${err.message}\n`);
    process.exitCode = 1;
  } else {
    throw err;
  }
}

/** The first line of stdin (the password), at most 4 KiB. */
async function readStdin(): Promise<string> {
  let data = '';
  for await (const chunk of process.stdin) {
    data += String(chunk);
    if (data.length > 4096 || data.includes('\n')) break;
  }
  return data.split('\n')[0];
}
