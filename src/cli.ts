// Admin CLI. Scriptable: `key create` prints only the key; errors go to stderr with a
// non-zero exit. Usage: bin/obscura <command>, or npm run cli -- <command> (see USAGE).
// Every run says on stderr which data folder (or engine) and master key it works on, and it
// never makes a new master key or database unless told to with --init.
import { existsSync } from 'node:fs';
import { assertEmbedded, backup } from './admin/backup.ts';
import { restore } from './admin/restore.ts';
import { missingStores, whereLine } from './admin/where.ts';
import { ConfigError, loadConfig } from './config.ts';
import { AppError } from './domain/errors.ts';
import { DuplicateError, type Repositories } from './domain/ports.ts';
import { createServices } from './services.ts';
import { MasterKey, MasterKeyError } from './store/master-key.ts';

const USAGE = `usage: bin/obscura <command> [--init]     (or: npm run cli -- <command>)
  account create <email> [--verified]
  account verify|deactivate|reactivate <email>
  account show <email>
  account password <email>    sets the web password, read from stdin (never an argument:
                              arguments show in ps and in the shell's history)
  key create <email>          prints the new key, once; it is never shown again
  key list <email>            id, prefix and last four characters of each key
  key revoke <key-id>
  maintenance on|off|status
  engine copy-accounts        copies every account, its web password and its keys (as HMACs)
                              to the engine in OBSCURA_TARGET_DATABASE_URL (moving to PostgreSQL);
                              accounts already there are left alone and counted
  backup <dir>                an online snapshot of the embedded engine (database and blobs,
                              ciphertext) into a new folder, while the service runs; the master
                              key is not in it: keep it apart
  restore <dir>               a backup into a new data folder (OBSCURA_DATA_DIR), checked first
                              against its manifest and the master key (OBSCURA_MASTER_KEY_FILE)
  --init                      allows a run to create a new master key and database where none is
                              (the service's first start does that by itself)`;

const iso = (t: number | null) => (t === null ? '-' : new Date(t).toISOString());

async function run(argv: string[]): Promise<number> {
  const [group, action, ...rest] = argv;
  const flags = new Set(rest.filter((a) => a.startsWith('--')));
  const args = rest.filter((a) => !a.startsWith('--'));
  const known = new Set(['--verified', '--init']);
  const bad = [...flags].find((f) => !known.has(f));
  if (!group || !action || bad) {
    process.stderr.write(`${bad ? `unknown option ${bad}\n` : ''}${USAGE}\n`);
    return 2;
  }
  const need = (n: number) => {
    if (args.length !== n) throw new UsageError();
  };

  const config = loadConfig({ ...process.env, OBSCURA_LOG_LEVEL: 'silent' });
  process.stderr.write(whereLine(config) + '\n');
  if (group === 'restore') {
    // the data folder is the new one; the master key must be the backup's, never a new one
    if (args.length || flags.size) throw new UsageError();
    if (!config.masterKey.inline && !existsSync(config.masterKey.file)) {
      throw new AppError('no_master_key', `no master key at ${config.masterKey.file}: put the service's master key there, or point OBSCURA_MASTER_KEY_FILE at it (restore never makes a new one)`);
    }
    const m = await restore(config, loadKey(config)!, action);
    // opened once as the service opens it: migrated if the backup is older, and the key checked again
    await (await createServices(config, { alongside: true })).close();
    process.stdout.write(`restored ${m.counts.accounts} accounts, ${m.counts.jobs} jobs and ${m.counts.blobs} blobs (backup of ${m.createdAt}) into ${config.dataDir}\n`);
    return 0;
  }
  if (group === 'backup') assertEmbedded(config);
  if (!flags.has('--init')) {
    loadKey(config); // a key file that is there but unreadable says so first
    const missing = missingStores(config);
    if (missing) throw new AppError('no_stores', missing);
  }
  const s = await createServices(config, { alongside: true });
  if (s.masterKeyCreated) process.stderr.write(`obscura: created a new master key at ${s.masterKeyCreated}: back it up, apart from the data\n`);
  try {
    const out = (line: string) => process.stdout.write(line + '\n');
    if (group === 'backup') {
      if (args.length || flags.size) throw new UsageError();
      const { manifest: m, gone } = await backup(s.config, s.masterKey, action);
      out(`backed up ${m.counts.accounts} accounts, ${m.counts.jobs} jobs and ${m.counts.blobs} blobs (schema ${m.schemaVersion}) into ${action}`);
      if (gone) out(`${gone} blob(s) were deleted (expired or removed) between the snapshot and their copy: their rows restore without them`);
      const where = config.masterKey.inline ? 'OBSCURA_MASTER_KEY' : config.masterKey.file;
      process.stderr.write(`obscura: the master key is NOT in the backup. Keep it apart (${where}): without it the backup cannot be read, and whoever holds both can read everything\n`);
      return 0;
    }
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
      case 'engine copy-accounts': {
        need(0);
        const url = process.env.OBSCURA_TARGET_DATABASE_URL;
        if (!url) throw new AppError('no_target');
        // the target opened as an instance would open it: migrated, and checked for the same master key
        const target = await createServices(loadConfig({ ...process.env, OBSCURA_DATABASE_URL: url, OBSCURA_BLOB_URL: undefined, OBSCURA_LOG_LEVEL: 'silent', OBSCURA_RUN_JOBS: 'off' }), { alongside: true });
        try {
          const n = await copyAccounts(s.repos, target.repos);
          out(`copied ${n.accounts} account${n.accounts === 1 ? '' : 's'} and ${n.keys} key${n.keys === 1 ? '' : 's'}; ${n.skipped} already there`);
        } finally {
          await target.close();
        }
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

/** The master key where the configuration points, if there is one; never a new one. */
function loadKey(config: ReturnType<typeof loadConfig>): MasterKey | undefined {
  if (!config.masterKey.inline && !existsSync(config.masterKey.file)) return undefined;
  try {
    return MasterKey.load(config.masterKey).key;
  } catch (err) {
    throw err instanceof MasterKeyError ? new ConfigError(err.message) : err;
  }
}

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

/** Every account, its password hash and its keys, from one engine's rows to another's. */
async function copyAccounts(from: Repositories, to: Repositories): Promise<{ accounts: number; keys: number; skipped: number }> {
  const n = { accounts: 0, keys: 0, skipped: 0 };
  for (let after = ''; ; ) {
    const page = await from.accounts.list(after, 500);
    if (!page.length) return n;
    for (const account of page) {
      try {
        await to.accounts.insert(account);
      } catch (err) {
        if (!(err instanceof DuplicateError)) throw err;
        n.skipped++;
        continue;
      }
      const hash = await from.accounts.passwordHash(account.id);
      if (hash) await to.accounts.setPasswordHash(account.id, hash);
      for (const key of await from.apiKeys.listForAccount(account.id)) {
        await to.apiKeys.insert(key);
        n.keys++;
      }
      n.accounts++;
    }
    after = page[page.length - 1].id;
  }
}
