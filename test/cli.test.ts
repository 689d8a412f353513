import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from './helpers/test.ts';
import { startService, tempDir } from './helpers/service.ts';
import { OBSCURA, obscura } from './helpers/obscura-cli.ts';
import { pausedUpload } from './helpers/slow-upload.ts';
import { until } from './helpers/until.ts';

function cli(dataDir: string, ...args: string[]) {
  return cliWith(dataDir, '', ...args);
}

function cliWith(dataDir: string, input: string, ...args: string[]) {
  const r = spawnSync(process.execPath, ['src/cli.ts', ...args], { env: { ...process.env, OBSCURA_DATA_DIR: dataDir }, encoding: 'utf8', input });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('accounts and keys from the admin CLI, end to end against the running service', async (t) => {
  const dataDir = tempDir();
  const svc = await startService({ OBSCURA_DATA_DIR: dataDir });
  t.teardown(() => svc.close());
  // A fresh connection per probe: the CLI runs under spawnSync, which stalls this process (the
  // service's timers and the client's alike), so a kept-alive connection can meet the service's
  // 5 s idle timeout just as it is reused ("fetch failed" on a loaded machine).
  const probe = (key: string) =>
    new Promise<{ status: number; error?: string }>((resolve, reject) => {
      const req = http.get(`${svc.url.clearnet}/api/account`, { agent: false, headers: { 'X-Api-Key': key } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, error: (JSON.parse(body) as { error?: string }).error }));
        res.on('error', reject);
      });
      req.on('error', reject);
    });

  t.is(cli(dataDir, 'account', 'create', 'reporter@example.org').code, 0);
  const created = cli(dataDir, 'key', 'create', 'reporter@example.org');
  t.is(created.code, 0);
  const key = created.out.trim();
  t.regex(created.out, /^sw_[A-Za-z0-9_-]{43}\n$/, 'prints only the key');
  t.deepEqual(await probe(key), { status: 401, error: 'account_not_verified' });

  t.is(cli(dataDir, 'account', 'verify', 'reporter@example.org').code, 0);
  t.is((await probe(key)).status, 200);

  const listed = cli(dataDir, 'key', 'list', 'reporter@example.org');
  t.is(listed.code, 0);
  const [id, shown] = listed.out.trim().split('\t');
  t.regex(id, /^key_/);
  t.is(shown, `sw_…${key.slice(-4)}`);
  t.false(listed.out.includes(key.slice(3, -4)), 'the list never shows the key');

  t.is(cli(dataDir, 'account', 'deactivate', 'reporter@example.org').code, 0);
  t.deepEqual(await probe(key), { status: 401, error: 'account_inactive' });
  t.is(cli(dataDir, 'account', 'reactivate', 'reporter@example.org').code, 0);
  t.is((await probe(key)).status, 200);

  t.is(cli(dataDir, 'key', 'revoke', id).code, 0);
  t.deepEqual(await probe(key), { status: 401, error: 'invalid_api_key' });
  t.regex(cli(dataDir, 'key', 'list', 'reporter@example.org').out, /revoked/);

  t.is(cli(dataDir, 'account', 'create', 'pre@example.org', '--verified').code, 0);
  t.is((await probe(cli(dataDir, 'key', 'create', 'pre@example.org').out.trim())).status, 200);
});

test('bad input: clear message on stderr and a non-zero exit', (t) => {
  const dataDir = tempDir();
  const dup = (cli(dataDir, 'account', 'create', 'a@example.org', '--init'), cli(dataDir, 'account', 'create', 'a@example.org'));
  t.is(dup.code, 1);
  t.regex(dup.err, /already exists/);
  t.regex(cli(dataDir, 'account', 'create', 'not-an-email').err, /not an e-mail/);
  t.regex(cli(dataDir, 'key', 'create', 'nobody@example.org').err, /no account/);
  t.regex(cli(dataDir, 'key', 'revoke', 'key_nope').err, /no key/);
  t.is(cli(dataDir, 'account', 'create').code, 2);
  t.is(cli(dataDir, 'frobnicate', 'now').code, 2);
  t.is(cli(dataDir, 'account', 'create', 'b@example.org', '--admin').code, 2);
  const badConfig = spawnSync(process.execPath, ['src/cli.ts', 'maintenance', 'status'], {
    env: { ...process.env, OBSCURA_DATA_DIR: dataDir, OBSCURA_SESSION_LIFE: 'soon' },
    encoding: 'utf8',
  });
  t.is(badConfig.status, 1);
  t.regex(badConfig.stderr, /OBSCURA_SESSION_LIFE/);
});

test('a master key that cannot be had: one clear line naming the file, exit 78 for the service and 1 for the CLI, nothing left in the data folder', (t) => {
  for (const [make, said] of [
    [(file: string) => mkdirSync(file), /cannot read the master key file .*master\.key \(EISDIR\)/],
    [(file: string) => writeFileSync(file, 'too short\n'), /master key file .*master\.key does not hold 32 bytes in base64/],
  ] as const) {
    const dataDir = tempDir();
    const keyDir = tempDir();
    const file = path.join(keyDir, 'master.key');
    make(file);
    const env = { ...process.env, OBSCURA_DATA_DIR: dataDir, OBSCURA_MASTER_KEY_FILE: file };
    const service = spawnSync(process.execPath, ['src/main.ts'], { env, encoding: 'utf8', timeout: 30_000 });
    t.is(service.status, 78, service.stderr);
    t.regex(service.stderr, said);
    t.notRegex(service.stderr, /\n\s+at /, 'no stack trace');
    const admin = spawnSync(process.execPath, ['src/cli.ts', 'account', 'show', 'a@example.org'], { env, encoding: 'utf8' });
    t.is(admin.status, 1);
    t.regex(admin.stderr, said);
    t.deepEqual(readdirSync(dataDir), [], 'no database made before the key was had');
  }
});

test('account password: set from stdin, never an argument; the person signs in to the pages with it', async (t) => {
  const dataDir = tempDir();
  t.is(cli(dataDir, 'account', 'create', 'web@example.org', '--verified', '--init').code, 0);
  const short = cliWith(dataDir, 'short\n', 'account', 'password', 'web@example.org');
  t.is(short.code, 1);
  t.regex(short.err, /at least 10 characters/);
  const common = cliWith(dataDir, 'password12\n', 'account', 'password', 'web@example.org');
  t.is(common.code, 1);
  t.regex(common.err, /among the most common passwords: choose another/);
  const own = cliWith(dataDir, 'web@example.org\n', 'account', 'password', 'web@example.org');
  t.is(own.code, 1);
  t.regex(own.err, /contains your e-mail address/);
  const set = cliWith(dataDir, 'a password from stdin\n', 'account', 'password', 'web@example.org');
  t.is(set.code, 0, set.err);
  t.regex(set.out, /web@example.org: password set/);
  t.false(set.out.includes('a password from stdin'));
  const svc = await startService({ OBSCURA_DATA_DIR: dataDir });
  t.teardown(() => svc.close());
  const page = await fetch(`${svc.url.clearnet}/sign-in`);
  const cookie = page.headers.get('set-cookie')!.split(';')[0];
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1];
  const signIn = (password: string) =>
    fetch(`${svc.url.clearnet}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, method: 'password', email: 'web@example.org', password }),
    });
  t.is((await signIn('a password from stdin')).status, 303);
  t.is((await signIn('short')).status, 401);
});

test('bin/obscura names its data folder and master key on every run and never makes a second set: another folder than the service’s is refused and left empty, --init makes one, the service’s gives a key alone on stdout that works', async (t) => {
  const dataDir = tempDir();
  const svc = await startService({ OBSCURA_DATA_DIR: dataDir });
  t.teardown(() => svc.close());

  const elsewhere = tempDir();
  const stray = await obscura({ OBSCURA_DATA_DIR: elsewhere }, 'account', 'create', 'ops@example.org', '--verified');
  t.is(stray.code, 1);
  t.true(stray.err.startsWith(`obscura: data folder ${elsewhere} (SQLite), master key file ${path.join(elsewhere, 'master.key')}\n`), stray.err);
  t.regex(stray.err, /no master key \(.*master\.key\) and no database in the data folder .*: this is not the folder of a service that has started\. Point OBSCURA_DATA_DIR .* or run with --init/);
  t.deepEqual(readdirSync(elsewhere), [], 'nothing created there');
  const keyElsewhere = path.join(tempDir(), 'key');
  const noKey = await obscura({ OBSCURA_DATA_DIR: dataDir, OBSCURA_MASTER_KEY_FILE: keyElsewhere }, 'key', 'list', 'ops@example.org');
  t.is(noKey.code, 1, 'the service’s folder with a key file that is not there');
  t.regex(noKey.err, /no master key \(.*key\) in the data folder/);
  t.false(existsSync(keyElsewhere));

  const init = await obscura({ OBSCURA_DATA_DIR: elsewhere }, 'account', 'create', 'ops@example.org', '--verified', '--init');
  t.is(init.code, 0, init.err);
  t.regex(init.err, /created a new master key at .*master\.key: back it up/);
  t.true(existsSync(path.join(elsewhere, 'master.key')) && existsSync(path.join(elsewhere, 'obscura.db')));

  t.is((await obscura({ OBSCURA_DATA_DIR: dataDir }, 'account', 'create', 'ops@example.org', '--verified')).code, 0);
  // as the README scripts it (Getting a key)
  const shell = await new Promise<{ out: string; err: string }>((resolve, reject) =>
    execFile('bash', ['-c', `KEY=$("$OBSCURA" key create ops@example.org) && printf '[%s]' "$KEY"`], { env: { ...process.env, OBSCURA: OBSCURA, OBSCURA_DATA_DIR: dataDir }, encoding: 'utf8' }, (err, out, errOut) =>
      err ? reject(err) : resolve({ out, err: errOut }),
    ),
  );
  t.regex(shell.out, /^\[sw_[A-Za-z0-9_-]{43}\]$/, 'the key alone');
  t.is(shell.err, `obscura: data folder ${dataDir} (SQLite), master key file ${path.join(dataDir, 'master.key')}\n`);
  const key = shell.out.slice(1, -1);
  t.is((await svc.api('GET', '/api/account', key)).status, 200, 'the key works against the running service');
});

test('a CLI run next to the running service leaves its work alone: a direct upload stopped mid-body finishes whole', async (t) => {
  const dataDir = tempDir();
  const svc = await startService({ OBSCURA_DATA_DIR: dataDir });
  t.teardown(() => svc.close());
  const { key } = await svc.account();
  const uid = (await svc.api('POST', '/api/convert/session', key, {})).body.upload_uid;
  const upload = pausedUpload(svc, key, uid, 1, 'big.bin', randomBytes(4 * 1024 * 1024), 2 * 1024 * 1024);
  await upload.atPause;
  const blobs = path.join(dataDir, 'blobs');
  await until('the service is mid-append', 30_000, () => (readdirSync(blobs, { recursive: true, encoding: 'utf8' }).some((f) => f.endsWith('.journal')) ? true : undefined));
  const r = await obscura({ OBSCURA_DATA_DIR: dataDir }, 'maintenance', 'status');
  t.is(r.code, 0, r.err);
  upload.release();
  t.is(await upload.done, 201);
  const files = (await svc.api('GET', `/api/convert/session/${uid}/files`, key)).body;
  t.like(files, { files: [{ name: 'big.bin', size: 4 * 1024 * 1024, status: 'completed' }] });
});
