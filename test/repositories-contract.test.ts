// One contract for the row repositories, run against every backend (SQLite, PostgreSQL): the
// same tests, the same expectations, so the domain cannot tell which one it talks to.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { ExecutionContext } from 'ava';
import { test } from './helpers/test.ts';
import { startPostgres, type Postgres } from './helpers/postgres.ts';
import {
  DuplicateError,
  type Account,
  type ApiKeyRow,
  type AssetRow,
  type ClaimedJob,
  type JobRow,
  type MailTokenRow,
  type Repositories,
  type SessionRow,
  type UploadRow,
  type WebSessionRow,
} from '../src/domain/ports.ts';
import { openDb, sqliteRepositories } from '../src/store/sqlite/index.ts';
import { openPostgres, postgresRepositories } from '../src/store/postgres/index.ts';
import { migrations as sqliteMigrations } from '../src/store/sqlite/migrations.ts';
import { migrations as postgresMigrations } from '../src/store/postgres/migrations.ts';
import { AccountAddresses } from '../src/store/account-addresses.ts';
import { MasterKey } from '../src/store/master-key.ts';

/** What a test reads past the repositories: the rows as the engine holds them, and (SQLite) the bytes of its files. */
interface Raw {
  rows(sql: string): Promise<Record<string, unknown>[]>;
  /** The database's files on disk, WAL included; undefined where the engine keeps its own (PostgreSQL). */
  files?(): Buffer;
}
type Open = (t: ExecutionContext) => Promise<{ repos: Repositories; raw: Raw }>;

const masterKey = new MasterKey(randomBytes(32));
const addresses = new AccountAddresses(masterKey);

// ---- rows to store ------------------------------------------------------------

/** Past 2^32 ms (and 2^31), where a 32-bit column or a string BIGINT would show. */
const T0 = 1_764_000_000_000;
const BIG = 2 ** 33 + 7; // a size in bytes past 4 GiB

const bytes = (...b: number[]): Buffer => Buffer.from(b);
/** Every byte value, zeros and high bytes included. */
const allBytes = (): Buffer => Buffer.from(Array.from({ length: 256 }, (_, i) => i));

const account = (id: string, email = `${id}@example.org`, over: Partial<Account> = {}): Account => ({
  id,
  email,
  verifiedAt: null,
  deactivatedAt: null,
  createdAt: T0,
  ...over,
});

const session = (id: string, accountId: string, over: Partial<SessionRow> = {}): SessionRow => ({
  id,
  accountId,
  type: 'convert',
  createdAt: T0,
  expiresAt: T0 + 3_600_000,
  ...over,
});

const upload = (id: string, accountId: string, sessionId: string | null, over: Partial<UploadRow> = {}): UploadRow => ({
  id,
  accountId,
  sessionId,
  via: 'tus',
  step: 1,
  size: 1234,
  sealed: bytes(1, 2, 3),
  clientRef: null,
  state: 'uploading',
  createdAt: T0,
  expiresAt: T0 + 60_000,
  completedAt: null,
  endedAt: null,
  ...over,
});

const job = (id: string, accountId: string, sessionId: string, over: Partial<JobRow> = {}): JobRow => ({
  id,
  accountId,
  sessionId,
  product: 'convert',
  state: 'queued',
  progress: 0,
  progressMessage: '',
  error: null,
  sealed: bytes(9, 8, 7),
  expiryMs: 86_400_000,
  attempts: 0,
  createdAt: T0,
  startedAt: null,
  finishedAt: null,
  expiresAt: null,
  resultsState: 'none',
  ...over,
});

const asset = (id: string, jobId: string, accountId: string, over: Partial<AssetRow> = {}): AssetRow => ({
  id,
  jobId,
  accountId,
  category: 'result',
  position: 0,
  sealed: bytes(4, 5),
  mimeType: 'image/png',
  size: 100,
  state: 'available',
  createdAt: T0,
  ...over,
});

/** An account with one session: what most rows hang from. */
async function owner(r: Repositories, id = 'acc', sessionIds: string[] = ['ses']): Promise<void> {
  await r.accounts.insert(account(id));
  for (const s of sessionIds) await r.sessions.insert(session(s, id));
}

const ids = (rows: { id: string }[]): string[] => rows.map((x) => x.id);

// ---- the contract -------------------------------------------------------------

function contract(name: string, open: Open): void {
  const it = (title: string, fn: (t: ExecutionContext, r: Repositories, raw: Raw) => Promise<void>): void => {
    test(`${name}: ${title}`, async (t) => {
      const { repos, raw } = await open(t);
      await fn(t, repos, raw);
    });
  };

  it('accounts: every field round-trips, e-mail is found in any case and unique in any case', async (t, r) => {
    const a = account('a1', 'Alice@Example.org', { verifiedAt: T0 + 1, deactivatedAt: null, createdAt: T0 });
    await r.accounts.insert(a);
    t.deepEqual(await r.accounts.byId('a1'), a);
    t.deepEqual(await r.accounts.byEmail('alice@example.org'), a);
    t.deepEqual(await r.accounts.byEmail('ALICE@EXAMPLE.ORG'), a, 'the address comes back as it was given');
    t.is(await r.accounts.byEmail('bob@example.org'), undefined);
    t.is(await r.accounts.byId('nobody'), undefined);
    t.is(typeof (await r.accounts.byId('a1'))!.createdAt, 'number');

    await t.throwsAsync(async () => r.accounts.insert(account('a2', 'alice@example.org')), { instanceOf: DuplicateError });
    await t.throwsAsync(async () => r.accounts.insert(account('a3', 'ALICE@example.ORG')), { instanceOf: DuplicateError });
    await t.throwsAsync(async () => r.accounts.insert(account('a1', 'other@example.org')), { instanceOf: DuplicateError }, 'the same id');
    t.is(await r.accounts.byId('a2'), undefined);

    await r.accounts.update('a1', { deactivatedAt: T0 + 5 });
    t.deepEqual(await r.accounts.byId('a1'), { ...a, deactivatedAt: T0 + 5 });
    await r.accounts.update('a1', { verifiedAt: null, deactivatedAt: null });
    t.deepEqual(await r.accounts.byId('a1'), { ...a, verifiedAt: null });
    await r.accounts.update('a1', {});
    t.deepEqual(await r.accounts.byId('a1'), { ...a, verifiedAt: null });

    t.is(await r.accounts.passwordHash('a1'), undefined);
    const phc = '$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo';
    await r.accounts.setPasswordHash('a1', phc);
    t.is(await r.accounts.passwordHash('a1'), phc);
    await r.accounts.setPasswordHash('a1', null);
    t.is(await r.accounts.passwordHash('a1'), undefined);
    t.is(await r.accounts.passwordHash('nobody'), undefined);
  });

  it('accounts: the address is kept only as its HMAC and sealed: in no column, nor (SQLite) anywhere in the database files', async (t, r, raw) => {
    const a = account('a1', 'Carol.Private@Example.org');
    await r.accounts.insert(a);
    await r.accounts.insert(account('a2', 'dave@example.org'));
    t.deepEqual(await r.accounts.byEmail('  carol.private@EXAMPLE.org '), a, 'found by any spelling of the address');
    t.deepEqual((await r.accounts.list('', 10)).map((x) => x.email), ['Carol.Private@Example.org', 'dave@example.org']);

    const rows = await raw.rows('SELECT * FROM accounts ORDER BY id');
    t.deepEqual(Object.keys(rows[0]).filter((c) => /mail/.test(c)).sort(), ['email_lookup', 'email_sealed'], 'no plain address column');
    const text = JSON.stringify(rows, (_, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
    t.false(/carol|dave|example/i.test(text), 'no column holds the address, or a part of it');
    t.deepEqual(Buffer.from(rows[0].email_lookup as Uint8Array), addresses.lookup('carol.private@example.org'));
    const files = raw.files?.();
    if (files) {
      t.true(files.length > 0);
      t.is(files.indexOf('Carol.Private'), -1, 'the database files do not hold the address');
      t.is(files.toString('latin1').toLowerCase().indexOf('carol.private'), -1, 'in any case');
      t.is(files.indexOf('dave@example'), -1);
    }
    // a sealed address opens on its own row only: moved to another, it is refused
    const other = account('a3', 'erin@example.org');
    await r.accounts.insert(other);
    t.throws(() => addresses.open('a3', Buffer.from(rows[0].email_sealed as Uint8Array)));
  });

  it('api keys: found by digest and id, listed oldest first, revoked once, digest unique', async (t, r) => {
    await owner(r);
    await r.accounts.insert(account('other'));
    const k1: ApiKeyRow = { id: 'k1', accountId: 'acc', prefix: 'obs_live', last4: 'ab12', digest: allBytes(), createdAt: T0 + 2, expiresAt: T0 + 2 ** 40, revokedAt: null };
    const k2: ApiKeyRow = { ...k1, id: 'k2', digest: bytes(0, 0, 0, 1), last4: 'zz99', createdAt: T0 + 1, expiresAt: null };
    const k3: ApiKeyRow = { ...k1, id: 'k3', accountId: 'other', digest: bytes(0xff), createdAt: T0 };
    for (const k of [k1, k2, k3]) await r.apiKeys.insert(k);
    t.deepEqual(await r.apiKeys.byDigest(allBytes()), k1);
    t.true(Buffer.isBuffer((await r.apiKeys.byDigest(bytes(0, 0, 0, 1)))!.digest));
    t.deepEqual(await r.apiKeys.byId('k2'), k2);
    t.is(await r.apiKeys.byDigest(bytes(0, 0, 0)), undefined, 'a prefix of a digest is not the digest');
    t.is(await r.apiKeys.byId('nope'), undefined);
    t.deepEqual(ids(await r.apiKeys.listForAccount('acc')), ['k2', 'k1']);
    t.deepEqual(await r.apiKeys.listForAccount('nobody'), []);
    t.true(await r.apiKeys.revoke('k1', T0 + 9));
    t.false(await r.apiKeys.revoke('k1', T0 + 10), 'revoked before');
    t.false(await r.apiKeys.revoke('nope', T0));
    t.is((await r.apiKeys.byId('k1'))!.revokedAt, T0 + 9);
    await t.throwsAsync(async () => r.apiKeys.insert({ ...k2, id: 'k4' }), { instanceOf: DuplicateError });
  });

  it('key ring: put, get, delete', async (t, r) => {
    t.is(await r.keyRing.get('obj'), undefined);
    await r.keyRing.put('obj', allBytes());
    await r.keyRing.put('obj2', bytes(0));
    const got = await r.keyRing.get('obj');
    t.true(Buffer.isBuffer(got));
    t.deepEqual(got, allBytes());
    t.deepEqual(await r.keyRing.get('obj2'), bytes(0));
    await t.throwsAsync(async () => r.keyRing.put('obj', bytes(1)), { instanceOf: DuplicateError }, 'a data key is never replaced');
    t.true(await r.keyRing.delete('obj'));
    t.false(await r.keyRing.delete('obj'));
    t.is(await r.keyRing.get('obj'), undefined);
    t.deepEqual(await r.keyRing.get('obj2'), bytes(0));
  });

  it('part index: parts listed by number, claimed once, completed and withdrawn under their object key, removed one or all', async (t, r) => {
    t.deepEqual(await r.parts.list('obj'), []);
    await r.parts.add('obj', { no: 0, bytes: 44, body: allBytes(), complete: true });
    await r.parts.add('obj', { no: 2, bytes: 0, objectKey: 'p/obj/00000002.aa', complete: false });
    await r.parts.add('obj', { no: 1, bytes: 5, body: bytes(0), complete: true });
    await r.parts.add('other', { no: 0, bytes: 1, body: bytes(1), complete: true });
    await t.throwsAsync(async () => r.parts.add('obj', { no: 2, bytes: 0, objectKey: 'p/obj/00000002.bb', complete: false }), { instanceOf: DuplicateError }, 'a part number is claimed once');
    const listed = await r.parts.list('obj');
    t.deepEqual(listed, [
      { no: 0, bytes: 44, body: allBytes(), complete: true },
      { no: 1, bytes: 5, body: bytes(0), complete: true },
      { no: 2, bytes: 0, objectKey: 'p/obj/00000002.aa', complete: false },
    ]);
    t.true(Buffer.isBuffer(listed[0]!.body));
    t.false(await r.parts.complete('obj', 2, 'p/obj/00000002.other', 1), 'only the claim under its own object key');
    t.true(await r.parts.complete('obj', 2, 'p/obj/00000002.aa', 8_000_000_000));
    t.deepEqual((await r.parts.list('obj'))[2], { no: 2, bytes: 8_000_000_000, objectKey: 'p/obj/00000002.aa', complete: true });
    await r.parts.withdraw('obj', 2, 'p/obj/00000002.aa');
    t.false((await r.parts.list('obj'))[2]!.complete);
    await r.parts.remove('obj', { no: 1 });
    await r.parts.remove('obj', { no: 2, objectKey: 'p/obj/00000002.other' });
    t.deepEqual((await r.parts.list('obj')).map((p) => p.no), [0, 2], 'a part under another object key stays');
    await r.parts.remove('obj', { no: 2, objectKey: 'p/obj/00000002.aa' });
    t.deepEqual((await r.parts.list('obj')).map((p) => p.no), [0]);
    await r.parts.remove('obj');
    t.deepEqual(await r.parts.list('obj'), []);
    t.deepEqual((await r.parts.list('other')).map((p) => p.no), [0]);
  });

  it('settings: get, set, overwrite, delete', async (t, r) => {
    t.is(await r.settings.get('pepper'), undefined);
    await r.settings.set('pepper', 'one');
    t.is(await r.settings.get('pepper'), 'one');
    await r.settings.set('pepper', 'two ✓');
    t.is(await r.settings.get('pepper'), 'two ✓');
    await r.settings.set('empty', '');
    t.is(await r.settings.get('empty'), '');
    await r.settings.delete('pepper');
    t.is(await r.settings.get('pepper'), undefined);
    await r.settings.delete('pepper');
    t.is(await r.settings.get('empty'), '');
  });

  it('sessions: round trip, expiredBefore longest-expired first under a limit, end only shortens, delete', async (t, r) => {
    await r.accounts.insert(account('acc'));
    const s = (id: string, expiresAt: number): SessionRow => session(id, 'acc', { type: 'hide', createdAt: T0 - 1, expiresAt });
    // inserted out of order
    for (const row of [s('s3', T0 + 30), s('s1', T0 + 10), s('live', T0 + 1000), s('s2', T0 + 20), s('s0', T0)]) await r.sessions.insert(row);
    t.deepEqual(await r.sessions.byId('s1'), s('s1', T0 + 10));
    t.is(await r.sessions.byId('nope'), undefined);
    t.deepEqual(ids(await r.sessions.expiredBefore(T0 + 30, 100)), ['s0', 's1', 's2', 's3'], 'expires_at <= at, oldest first');
    t.deepEqual(ids(await r.sessions.expiredBefore(T0 + 30, 2)), ['s0', 's1']);
    t.deepEqual(await r.sessions.expiredBefore(T0 - 1, 10), []);

    await r.sessions.end('live', T0 + 500);
    t.is((await r.sessions.byId('live'))!.expiresAt, T0 + 500);
    await r.sessions.end('live', T0 + 900);
    t.is((await r.sessions.byId('live'))!.expiresAt, T0 + 500, 'a later end does not lengthen it');
    await r.sessions.end('s0', T0 + 5);
    t.is((await r.sessions.byId('s0'))!.expiresAt, T0);
    await r.sessions.delete('s0');
    t.is(await r.sessions.byId('s0'), undefined);
    t.deepEqual(ids(await r.sessions.expiredBefore(T0 + 500, 100)), ['s1', 's2', 's3', 'live']);
  });

  it('uploads: round trip, live ones of a session in order, by client ref, state changes, attach, expiry', async (t, r) => {
    await owner(r, 'acc', ['ses', 'ses2']);
    const ref = allBytes();
    const full = upload('u1', 'acc', 'ses', {
      via: 'direct',
      step: 3,
      size: BIG,
      sealed: allBytes(),
      clientRef: ref,
      state: 'completed',
      createdAt: T0 + 5,
      expiresAt: T0 + 2 ** 41,
      completedAt: T0 + 6,
      endedAt: null,
    });
    await r.uploads.insert(full);
    const v1 = upload('v1', 'acc', null, { via: 'v1', createdAt: T0 + 1 });
    await r.uploads.insert(v1);
    t.deepEqual(await r.uploads.byId('u1'), full);
    t.deepEqual(await r.uploads.byId('v1'), v1, 'null session and client ref');
    t.is(await r.uploads.byId('nope'), undefined);

    t.deepEqual(await r.uploads.byClientRef('ses', ref), full);
    t.is(await r.uploads.byClientRef('ses2', ref), undefined, 'per session');
    t.is(await r.uploads.byClientRef('ses', bytes(1)), undefined);
    await t.throwsAsync(async () => r.uploads.insert(upload('u-dup', 'acc', 'ses', { clientRef: ref })), { instanceOf: DuplicateError });
    await r.uploads.insert(upload('u-other', 'acc', 'ses2', { clientRef: ref, createdAt: T0 }));
    await t.throwsAsync(async () => r.uploads.insert(upload('u1', 'acc', 'ses2')), { instanceOf: DuplicateError }, 'the same id');

    // oldest first; ties in the order they came
    await r.uploads.insert(upload('u0', 'acc', 'ses', { createdAt: T0 }));
    await r.uploads.insert(upload('u2', 'acc', 'ses', { createdAt: T0 + 5 }));
    await r.uploads.insert(upload('u3', 'acc', 'ses', { createdAt: T0 + 5 }));
    await r.uploads.insert(upload('gone', 'acc', 'ses', { createdAt: T0 + 2, state: 'deleted', endedAt: T0 + 3 }));
    t.deepEqual(ids(await r.uploads.liveInSession('ses')), ['u0', 'u1', 'u2', 'u3']);

    await r.uploads.setState('u2', 'deleted', T0 + 100);
    t.deepEqual(await r.uploads.byId('u2'), upload('u2', 'acc', 'ses', { createdAt: T0 + 5, state: 'deleted', endedAt: T0 + 100 }));
    await r.uploads.setState('u3', 'completed', T0 + 101);
    t.deepEqual(await r.uploads.byId('u3'), upload('u3', 'acc', 'ses', { createdAt: T0 + 5, state: 'completed', completedAt: T0 + 101 }));
    await r.uploads.setState('u3', 'expired', T0 + 102);
    t.deepEqual(await r.uploads.byId('u3'), upload('u3', 'acc', 'ses', { createdAt: T0 + 5, state: 'expired', completedAt: T0 + 101, endedAt: T0 + 102 }));
    await r.uploads.setState('u0', 'uploading', T0 + 103);
    t.deepEqual(await r.uploads.byId('u0'), upload('u0', 'acc', 'ses', { createdAt: T0 }), 'uploading stamps nothing');
    t.deepEqual(ids(await r.uploads.liveInSession('ses')), ['u0', 'u1']);

    await r.uploads.complete('u0', BIG + 1, T0 + 104);
    t.deepEqual(await r.uploads.byId('u0'), upload('u0', 'acc', 'ses', { createdAt: T0, size: BIG + 1, state: 'completed', completedAt: T0 + 104 }));

    t.true(await r.uploads.attach('v1', 'ses2', 7));
    t.deepEqual(await r.uploads.byId('v1'), { ...v1, sessionId: 'ses2', step: 7 });
    t.false(await r.uploads.attach('v1', 'ses', 1), 'an upload in a session stays in it (a racing v1 start lost)');
    t.deepEqual(await r.uploads.byId('v1'), { ...v1, sessionId: 'ses2', step: 7 });
    t.deepEqual(ids(await r.uploads.liveInSession('ses2')), ['u-other', 'v1']);

    t.deepEqual(ids(await r.uploads.byViaState('direct', 'completed')), ['u1']);
    t.deepEqual((await r.uploads.byViaState('tus', 'completed')).map((u) => u.id).sort(), ['u0']);
    t.deepEqual(await r.uploads.byViaState('v1', 'deleted'), []);

    // live uploads whose life ran out, the longest expired first
    await r.uploads.insert(upload('e2', 'acc', 'ses', { expiresAt: T0 + 20 }));
    await r.uploads.insert(upload('e1', 'acc', 'ses', { expiresAt: T0 + 10, state: 'completed', completedAt: T0 }));
    await r.uploads.insert(upload('e-dead', 'acc', 'ses', { expiresAt: T0 + 5, state: 'expired', endedAt: T0 + 5 }));
    t.deepEqual(ids(await r.uploads.expiredBefore(T0 + 20, 10)), ['e1', 'e2']);
    t.deepEqual(ids(await r.uploads.expiredBefore(T0 + 20, 1)), ['e1']);
    t.deepEqual(ids(await r.uploads.expiredBefore(T0 + 60_000, 100)).sort(), ['e1', 'e2', 'u0', 'u-other', 'v1'].sort());

    await r.uploads.delete('e1');
    t.is(await r.uploads.byId('e1'), undefined);
  });

  it('jobs: round trip, one job per session ever, latest, updates, states, result expiry', async (t, r) => {
    await owner(r, 'acc', ['ses', 'ses2', 'ses3', 'ses4']);
    const full = job('j1', 'acc', 'ses', {
      product: 'hide',
      state: 'completed',
      progress: 100,
      progressMessage: 'Done ✓',
      error: 'partial: one file',
      sealed: allBytes(),
      expiryMs: 2 ** 35,
      attempts: 3,
      createdAt: T0,
      startedAt: T0 + 1,
      finishedAt: T0 + 2,
      expiresAt: T0 + 2 ** 36,
      resultsState: 'available',
    });
    await r.jobs.insert(full);
    t.deepEqual(await r.jobs.byId('j1'), full);
    t.is(await r.jobs.byId('nope'), undefined);
    t.is(await r.jobs.activeForSession('ses'), undefined);

    t.false(await r.jobs.insertIfFirst(job('j2', 'acc', 'ses', { createdAt: T0 + 10 })), 'j1 holds ses, finished as it is: one job per session, ever');
    t.is(await r.jobs.byId('j2'), undefined);
    await t.throwsAsync(async () => r.jobs.insert(job('j2', 'acc', 'ses', { createdAt: T0 + 10 })), { instanceOf: DuplicateError }, 'even a plain insert');
    t.true(await r.jobs.insertIfFirst(job('j2', 'acc', 'ses3', { createdAt: T0 + 10 })));
    t.false(await r.jobs.insertIfFirst(job('j3', 'acc', 'ses3', { createdAt: T0 + 11 })), 'j2 is queued');
    t.is(await r.jobs.byId('j3'), undefined);
    t.true(await r.jobs.insertIfFirst(job('k1', 'acc', 'ses2', { createdAt: T0 + 11 })), 'another session');
    await t.throwsAsync(async () => r.jobs.insertIfFirst(job('j2', 'acc', 'ses4', { state: 'completed' })), { instanceOf: DuplicateError }, 'the same id is no session check');
    t.is((await r.jobs.activeForSession('ses3'))?.id, 'j2');

    await r.jobs.update('j2', { state: 'processing', startedAt: T0 + 12, attempts: 1 });
    t.false(await r.jobs.insertIfFirst(job('j3', 'acc', 'ses3', { createdAt: T0 + 13 })), 'j2 is running');
    t.is((await r.jobs.activeForSession('ses3'))?.id, 'j2');

    const fields = {
      state: 'partial' as const,
      progress: 77,
      progressMessage: 'Almost',
      error: 'one file failed',
      sealed: bytes(0, 255, 0),
      expiryMs: 2 ** 34,
      attempts: 2,
      startedAt: T0 + 12,
      finishedAt: T0 + 14,
      expiresAt: T0 + 2 ** 37,
      resultsState: 'available' as const,
    };
    await r.jobs.update('j2', fields);
    t.deepEqual(await r.jobs.byId('j2'), { ...job('j2', 'acc', 'ses3', { createdAt: T0 + 10 }), ...fields });
    await r.jobs.update('j2', { error: null, expiresAt: null });
    t.deepEqual(await r.jobs.byId('j2'), { ...job('j2', 'acc', 'ses3', { createdAt: T0 + 10 }), ...fields, error: null, expiresAt: null });
    await r.jobs.update('j2', {});
    await t.throwsAsync(async () => r.jobs.update('j2', { sessionId: 'ses2' } as never));
    t.is(await r.jobs.activeForSession('ses3'), undefined);

    // ended, the job still holds its session
    t.false(await r.jobs.insertIfFirst(job('j3', 'acc', 'ses3', { createdAt: T0 + 10 })), 'j2 ended, and still holds ses3');
    t.deepEqual(ids(await r.jobs.forSession('ses3')), ['j2']);
    t.deepEqual(ids(await r.jobs.forSession('ses')), ['j1']);
    t.is((await r.jobs.latestForSession('ses3'))?.id, 'j2');
    t.is((await r.jobs.latestForSession('ses2'))?.id, 'k1');
    t.is(await r.jobs.latestForSession('none'), undefined);
    t.deepEqual(await r.jobs.forSession('none'), []);

    t.deepEqual(ids(await r.jobs.inState('queued')), ['k1']);
    t.deepEqual(ids(await r.jobs.inState('completed')), ['j1']);
    t.deepEqual(await r.jobs.inState('failed'), []);

    // results to expire: available ones whose time ran out, the longest expired first
    await r.jobs.update('j1', { expiresAt: T0 + 50 });
    await r.jobs.update('j2', { expiresAt: T0 + 40, resultsState: 'available' });
    await r.jobs.update('k1', { expiresAt: T0 + 10, resultsState: 'expired', state: 'completed' });
    t.deepEqual(ids(await r.jobs.resultsExpiredBefore(T0 + 50, 10)), ['j2', 'j1']);
    t.deepEqual(ids(await r.jobs.resultsExpiredBefore(T0 + 50, 1)), ['j2']);
    t.deepEqual(await r.jobs.resultsExpiredBefore(T0 + 39, 10), []);
  });

  // ---- the job queue: claim, renew, finish under a lease (the JobQueue port) ----

  const LEASE = 30_000;
  /** A claimed job as its row: what claim() says beside it (takenOver) is not stored. */
  const asRow = (c: ClaimedJob | undefined): JobRow | undefined => {
    if (!c) return c;
    const { takenOver: _, ...row } = c;
    return row;
  };

  it('jobs: claim moves the oldest queued job to processing under a lease, and concurrent claims never share a job', async (t, r) => {
    const sessions = Array.from({ length: 12 }, (_, i) => `s${i}`);
    await owner(r, 'acc', sessions);
    t.is(await r.jobs.claim('w1', LEASE, T0), undefined, 'nothing queued');
    // created out of order; one per session (one active job per session)
    const order = [5, 2, 9, 0, 7, 3, 8, 1, 6, 4];
    for (const [i, n] of order.entries()) await r.jobs.insert(job(`q${n}`, 'acc', sessions[i], { createdAt: T0 + n * 1000, attempts: 1 }));
    await r.jobs.insert(job('done', 'acc', sessions[10], { state: 'completed', createdAt: T0 - 5 }));
    // processing with no lease at all (inserted so): not claimable, it ran out of nothing
    await r.jobs.insert(job('busy', 'acc', sessions[11], { state: 'processing', createdAt: T0 - 4 }));

    t.deepEqual(await r.jobs.activeCounts(), [
      { product: 'convert', state: 'processing', count: 1 },
      { product: 'convert', state: 'queued', count: 10 },
    ].sort((x, y) => x.state.localeCompare(y.state)), 'counted for the metrics: finished jobs are not');
    const first = await r.jobs.claim('w1', LEASE, T0 + 2 ** 33);
    t.is(first?.id, 'q0');
    t.is(first?.state, 'processing');
    t.is(first?.startedAt, T0 + 2 ** 33);
    t.is(first?.attempts, 2);
    t.false(first?.takenOver, 'taken from the queue, not over from another holder');
    t.deepEqual(await r.jobs.byId('q0'), asRow(first));
    t.is((await r.jobs.claim('w1', LEASE, T0 + 1))?.id, 'q1');

    // 20 claims at once against the 8 still queued, from two owners
    const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => r.jobs.claim(i % 2 ? 'w1' : 'w2', LEASE, T0 + 10 + i)));
    const claimed = claims.filter((c): c is ClaimedJob => c !== undefined);
    t.is(claimed.length, 8);
    t.is(new Set(ids(claimed)).size, 8, 'no job claimed twice');
    t.deepEqual(ids(claimed).sort(), ['q2', 'q3', 'q4', 'q5', 'q6', 'q7', 'q8', 'q9']);
    for (const c of claimed) {
      t.is(c.state, 'processing');
      t.is(c.attempts, 2);
    }
    t.deepEqual(await r.jobs.inState('queued'), []);
    t.is((await r.jobs.inState('processing')).length, 11);
    t.deepEqual(await r.jobs.activeCounts(), [{ product: 'convert', state: 'processing', count: 11 }]);
    t.is(await r.jobs.claim('w3', LEASE, T0 + 100), undefined, 'every lease still runs');
    t.is((await r.jobs.byId('done'))?.state, 'completed');
  });

  it('jobs: 20 concurrent claims against 10 queued jobs claim 10 distinct jobs', async (t, r) => {
    const sessions = Array.from({ length: 10 }, (_, i) => `s${i}`);
    await owner(r, 'acc', sessions);
    for (const [i, s] of sessions.entries()) await r.jobs.insert(job(`j${i}`, 'acc', s, { createdAt: T0 + i }));
    const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => r.jobs.claim(`w${i}`, LEASE, T0 + 100)));
    const claimed = claims.filter((c): c is ClaimedJob => c !== undefined);
    t.is(claimed.length, 10);
    t.deepEqual([...new Set(ids(claimed))].sort(), sessions.map((_, i) => `j${i}`).sort());
    for (const j of await r.jobs.inState('processing')) t.is(j.attempts, 1);
    // each holds the job it was given: its renew works, nobody else's does
    for (const [i, c] of claims.entries()) {
      if (!c) continue;
      t.true(await r.jobs.renew(c.id, `w${i}`, LEASE, T0 + 200));
      t.false(await r.jobs.renew(c.id, `w${(i + 1) % 20}`, LEASE, T0 + 200));
    }
  });

  it('jobs: a job whose lease ran out is claimed again by another owner, and its old owner can neither renew nor finish it', async (t, r) => {
    await owner(r, 'acc', ['s1', 's2']);
    await r.jobs.insert(job('old', 'acc', 's1', { createdAt: T0 }));
    await r.jobs.insert(job('new', 'acc', 's2', { createdAt: T0 + 1 }));

    const a = await r.jobs.claim('a', 1000, T0 + 10);
    t.is(a?.id, 'old');
    t.is(a?.attempts, 1);
    t.false(a?.takenOver);
    t.is((await r.jobs.claim('x', 10 ** 6, T0 + 11))?.id, 'new', 'a running lease is not claimable');
    t.is(await r.jobs.claim('b', 1000, T0 + 1010), undefined, 'the lease runs until now + leaseMs, inclusive');
    t.true(await r.jobs.renew('old', 'a', 1000, T0 + 500), 'the holder moves its lease on');
    t.is(await r.jobs.claim('b', 1000, T0 + 1499), undefined);
    t.false(await r.jobs.renew('old', 'b', 5000, T0 + 1499), 'renew by someone else');
    t.false(await r.jobs.finish('old', 'b', { state: 'failed' }), 'finish by someone else');
    t.is((await r.jobs.byId('old'))?.state, 'processing');

    // a's instance dies: its lease (until T0 + 1500) runs out; the oldest claimable job comes first
    const b = await r.jobs.claim('b', 1000, T0 + 1501);
    t.is(b?.id, 'old');
    t.is(b?.state, 'processing');
    t.is(b?.attempts, 2);
    t.is(b?.startedAt, T0 + 1501);
    t.true(b?.takenOver, "a takeover: it was processing under a's lease, which ran out (obscura_job_lease_takeovers_total)");
    const taken = await r.jobs.byId('old');

    t.false(await r.jobs.renew('old', 'a', 1000, T0 + 1502), 'the old owner lost the lease');
    t.false(await r.jobs.finish('old', 'a', { state: 'completed', progress: 100, finishedAt: T0 + 1502 }));
    t.false(await r.jobs.finish('old', 'a', { state: 'queued' }));
    t.deepEqual(await r.jobs.byId('old'), taken, 'nothing changed');

    t.true(await r.jobs.renew('old', 'b', 1000, T0 + 1600));
    const end = { state: 'completed' as const, progress: 100, progressMessage: 'Done', finishedAt: T0 + 1700, expiresAt: T0 + 2 ** 36, resultsState: 'available' as const };
    t.true(await r.jobs.finish('old', 'b', end), 'the holder finishes it');
    t.deepEqual(await r.jobs.byId('old'), { ...taken!, ...end });
    // the lease is gone: the holder itself can neither renew nor finish again
    t.false(await r.jobs.renew('old', 'b', 1000, T0 + 1701));
    t.false(await r.jobs.finish('old', 'b', { state: 'failed' }));
    t.is((await r.jobs.byId('old'))?.state, 'completed');
    // x never renewed 'new': once its lease ran out it goes to the next to ask
    const c = await r.jobs.claim('c', 1000, T0 + 10 ** 9);
    t.is(c?.id, 'new');
    t.is(c?.attempts, 2);
    t.true(c?.takenOver);
    t.is(await r.jobs.claim('d', 1000, T0 + 10 ** 9), undefined);
  });

  it('jobs: a job put back to queued by its holder is claimable again, and finish writes only the fields given', async (t, r) => {
    await owner(r, 'acc', ['s1']);
    await r.jobs.insert(job('j', 'acc', 's1'));
    const first = await r.jobs.claim('a', LEASE, T0 + 1);
    t.is(first?.attempts, 1);
    // the instance stops: it gives its job back
    t.true(await r.jobs.finish('j', 'a', { state: 'queued', startedAt: null, progress: 0, progressMessage: '' }));
    t.deepEqual(await r.jobs.byId('j'), { ...asRow(first)!, state: 'queued', startedAt: null });
    t.false(await r.jobs.renew('j', 'a', LEASE, T0 + 2), 'no lease any more');
    t.is((await r.jobs.activeForSession('s1'))?.id, 'j');
    const again = await r.jobs.claim('b', LEASE, T0 + 3);
    t.is(again?.id, 'j');
    t.is(again?.attempts, 2);
    t.is(again?.startedAt, T0 + 3);
    t.false(again?.takenOver, 'given back to the queue, so claimed from it: no takeover');
    t.is(await r.jobs.claim('c', LEASE, T0 + 4), undefined);
    t.true(await r.jobs.finish('j', 'b', {}), 'no fields: only the lease is dropped');
    t.deepEqual(await r.jobs.byId('j'), asRow(again));
    t.is(await r.jobs.claim('c', LEASE, T0 + 10 ** 9), undefined, 'processing without a lease is nobody\'s to claim');
    await t.throwsAsync(async () => r.jobs.finish('j', 'b', { sessionId: 's2' } as never));
    t.false(await r.jobs.finish('nope', 'b', { state: 'failed' }));
    t.false(await r.jobs.renew('nope', 'b', LEASE, T0));
  });

  it('assets: round trip, by job in position order, state, delete', async (t, r) => {
    await owner(r);
    await r.sessions.insert(session('ses2', 'acc'));
    await r.jobs.insert(job('j', 'acc', 'ses'));
    await r.jobs.insert(job('j2', 'acc', 'ses2', { state: 'completed' }));
    const full = asset('a1', 'j', 'acc', { category: 'ela_map', position: 2, sealed: allBytes(), mimeType: 'image/webp', size: BIG, createdAt: T0 + 2 ** 32 });
    await r.assets.insert(full);
    await r.assets.insert(asset('a0', 'j', 'acc', { position: 0 }));
    await r.assets.insert(asset('a2b', 'j', 'acc', { position: 3 }));
    await r.assets.insert(asset('a2a', 'j', 'acc', { position: 3 }));
    await r.assets.insert(asset('other', 'j2', 'acc'));
    t.deepEqual(await r.assets.byId('a1'), full);
    t.is(await r.assets.byId('nope'), undefined);
    t.deepEqual(ids(await r.assets.forJob('j')), ['a0', 'a1', 'a2b', 'a2a'], 'by position, then as they came');
    t.deepEqual(await r.assets.forJob('none'), []);
    await r.assets.setState('a1', 'expired');
    t.deepEqual(await r.assets.byId('a1'), { ...full, state: 'expired' });
    await r.assets.delete('a1');
    t.is(await r.assets.byId('a1'), undefined);
    t.deepEqual(ids(await r.assets.forJob('j')), ['a0', 'a2b', 'a2a']);
    await t.throwsAsync(async () => r.assets.insert(asset('a0', 'j', 'acc')), { instanceOf: DuplicateError });
  });

  it('web sessions: round trip, touch, delete, per account, expired', async (t, r) => {
    await r.accounts.insert(account('acc'));
    await r.accounts.insert(account('other'));
    const ws = (digest: Buffer, accountId: string, expiresAt: number): WebSessionRow => ({ digest, accountId, createdAt: T0, seenAt: T0 + 1, expiresAt, network: 'onion', method: 'password', keyId: null });
    const w1 = ws(allBytes(), 'acc', T0 + 100);
    await r.webSessions.insert(w1);
    await r.webSessions.insert(ws(bytes(1), 'acc', T0 + 10));
    await r.webSessions.insert(ws(bytes(2), 'acc', T0 + 1000));
    await r.webSessions.insert(ws(bytes(3), 'other', T0 + 10));
    await r.webSessions.insert(ws(bytes(4), 'other', T0 + 1000));
    t.deepEqual(await r.webSessions.byDigest(allBytes()), w1);
    t.true(Buffer.isBuffer((await r.webSessions.byDigest(allBytes()))!.digest));
    t.is(await r.webSessions.byDigest(bytes(9)), undefined);
    await t.throwsAsync(async () => r.webSessions.insert(ws(bytes(1), 'other', T0)), { instanceOf: DuplicateError });

    await r.webSessions.touch(allBytes(), T0 + 50, T0 + 2 ** 40);
    t.deepEqual(await r.webSessions.byDigest(allBytes()), { ...w1, seenAt: T0 + 50, expiresAt: T0 + 2 ** 40 });

    t.is(await r.webSessions.deleteExpired(T0 + 10), 2, 'expires_at <= at');
    t.is(await r.webSessions.byDigest(bytes(1)), undefined);
    t.is(await r.webSessions.deleteExpired(T0 + 10), 0);
    t.is(await r.webSessions.deleteForAccount('acc'), 2);
    t.is(await r.webSessions.deleteForAccount('acc'), 0);
    t.deepEqual((await r.webSessions.byDigest(bytes(4)))?.accountId, 'other');
    await r.webSessions.delete(bytes(4));
    t.is(await r.webSessions.byDigest(bytes(4)), undefined);
  });

  it('web sessions: network and way in round-trip; listed per account newest first; ended per key and all but one', async (t, r) => {
    await r.accounts.insert(account('acc'));
    await r.accounts.insert(account('other'));
    const ws = (digest: Buffer, accountId: string, createdAt: number, over: Partial<WebSessionRow> = {}): WebSessionRow => ({
      digest,
      accountId,
      createdAt,
      seenAt: createdAt,
      expiresAt: T0 + 2 ** 40,
      network: 'clearnet',
      method: 'password',
      keyId: null,
      ...over,
    });
    const byKey = ws(bytes(1), 'acc', T0 + 1, { network: 'i2p', method: 'key', keyId: 'key_stolen' });
    await r.webSessions.insert(byKey);
    await r.webSessions.insert(ws(bytes(2), 'acc', T0 + 3, { network: 'onion', method: 'link' }));
    await r.webSessions.insert(ws(bytes(3), 'acc', T0 + 2, { method: 'key', keyId: 'key_other' }));
    await r.webSessions.insert(ws(bytes(4), 'other', T0 + 4, { method: 'key', keyId: 'key_stolen' }));
    t.deepEqual(await r.webSessions.byDigest(bytes(1)), byKey);
    t.deepEqual((await r.webSessions.listForAccount('acc')).map((w) => w.digest[0]), [2, 3, 1], 'newest first');
    t.deepEqual(await r.webSessions.listForAccount('nobody'), []);
    t.is(await r.webSessions.deleteForKey('key_stolen'), 2);
    t.is(await r.webSessions.deleteForKey('key_stolen'), 0);
    t.deepEqual((await r.webSessions.listForAccount('acc')).map((w) => w.digest[0]), [2, 3]);
    t.is(await r.webSessions.deleteForAccount('acc', bytes(3)), 1, 'all but the one kept');
    t.deepEqual((await r.webSessions.listForAccount('acc')).map((w) => w.digest[0]), [3]);
  });

  it('mail tokens: voided per account and purpose', async (t, r) => {
    await r.accounts.insert(account('acc'));
    await r.accounts.insert(account('other'));
    const tok = (digest: Buffer, accountId: string, purpose: MailTokenRow['purpose']): MailTokenRow => ({ digest, accountId, purpose, createdAt: T0, expiresAt: T0 + 2 ** 35, usedAt: null });
    await r.mailTokens.insert(tok(bytes(1), 'acc', 'verify'));
    await r.mailTokens.insert(tok(bytes(2), 'acc', 'verify'));
    await r.mailTokens.insert(tok(bytes(3), 'acc', 'reset'));
    await r.mailTokens.insert(tok(bytes(4), 'other', 'verify'));
    await r.mailTokens.insert(tok(bytes(5), 'acc', 'sign-in'));
    t.deepEqual(await r.mailTokens.byDigest(bytes(5)), tok(bytes(5), 'acc', 'sign-in'));
    t.is(await r.mailTokens.deleteForAccount('acc', 'verify'), 2);
    t.is(await r.mailTokens.byDigest(bytes(1)), undefined);
    t.truthy(await r.mailTokens.byDigest(bytes(3)), 'another purpose stays');
    t.truthy(await r.mailTokens.byDigest(bytes(4)), 'another account stays');
  });

  it('accounts: unverified ones are deleted by age with their keys, sessions and links; verified ones and those with upload sessions stay', async (t, r) => {
    await r.accounts.insert(account('old', 'old@example.org', { createdAt: T0 }));
    await r.accounts.insert(account('young', 'young@example.org', { createdAt: T0 + 100 }));
    await r.accounts.insert(account('kept', 'kept@example.org', { createdAt: T0, verifiedAt: T0 + 1 }));
    await r.accounts.insert(account('busy', 'busy@example.org', { createdAt: T0 }));
    await r.sessions.insert(session('ses', 'busy'));
    await r.apiKeys.insert({ id: 'k_old', accountId: 'old', prefix: 'sw_', last4: 'abcd', digest: bytes(9), createdAt: T0, expiresAt: null, revokedAt: null });
    await r.webSessions.insert({ digest: bytes(1), accountId: 'old', createdAt: T0, seenAt: T0, expiresAt: T0 + 2 ** 40, network: 'clearnet', method: 'password', keyId: null });
    await r.mailTokens.insert({ digest: bytes(2), accountId: 'old', purpose: 'verify', createdAt: T0, expiresAt: T0 + 2 ** 35, usedAt: null });
    t.is(await r.accounts.deleteUnverified(T0 + 50, 'young'), 0, 'too young');
    t.is(await r.accounts.deleteUnverified(T0 + 50), 1);
    t.is(await r.accounts.byId('old'), undefined);
    t.is(await r.accounts.byEmail('old@example.org'), undefined);
    t.is(await r.apiKeys.byId('k_old'), undefined);
    t.is(await r.webSessions.byDigest(bytes(1)), undefined);
    t.is(await r.mailTokens.byDigest(bytes(2)), undefined);
    for (const id of ['young', 'kept', 'busy']) t.truthy(await r.accounts.byId(id), id);
    t.is(await r.accounts.deleteUnverified(T0 + 1000, 'young'), 1, 'one by id');
    t.is(await r.accounts.deleteUnverified(T0 + 1000), 0);
    await r.accounts.insert(account('again', 'old@example.org'));
    t.is((await r.accounts.byEmail('old@example.org'))?.id, 'again', 'the address is free again');
  });

  it('mail tokens: round trip, used once, expired ones deleted', async (t, r) => {
    await r.accounts.insert(account('acc'));
    const tok = (digest: Buffer, expiresAt: number): MailTokenRow => ({ digest, accountId: 'acc', purpose: 'verify', createdAt: T0, expiresAt, usedAt: null });
    await r.mailTokens.insert(tok(allBytes(), T0 + 2 ** 35));
    await r.mailTokens.insert(tok(bytes(1), T0 + 10));
    await r.mailTokens.insert({ ...tok(bytes(2), T0 + 10), usedAt: T0 + 5 });
    t.deepEqual(await r.mailTokens.byDigest(allBytes()), tok(allBytes(), T0 + 2 ** 35));
    t.deepEqual(await r.mailTokens.byDigest(bytes(2)), { ...tok(bytes(2), T0 + 10), usedAt: T0 + 5 });
    t.is(await r.mailTokens.byDigest(bytes(3)), undefined);
    await t.throwsAsync(async () => r.mailTokens.insert(tok(bytes(1), T0)), { instanceOf: DuplicateError });

    const uses = await Promise.all([r.mailTokens.use(allBytes(), T0 + 7), r.mailTokens.use(allBytes(), T0 + 8)]);
    t.deepEqual(uses.filter(Boolean).length, 1, 'exactly one of two racing uses');
    t.false(await r.mailTokens.use(allBytes(), T0 + 9));
    t.true([T0 + 7, T0 + 8].includes((await r.mailTokens.byDigest(allBytes()))!.usedAt!));
    t.false(await r.mailTokens.use(bytes(2), T0 + 9), 'used before');
    t.false(await r.mailTokens.use(bytes(3), T0 + 9), 'no such token');

    t.is(await r.mailTokens.deleteExpired(T0 + 10), 2);
    t.is(await r.mailTokens.deleteExpired(T0 + 10), 0);
    t.truthy(await r.mailTokens.byDigest(allBytes()));
  });
}

// ---- the backends -------------------------------------------------------------

/** The bytes of every file of a SQLite database (the WAL and its index too). */
const sqliteFiles = (dir: string): Buffer => Buffer.concat(readdirSync(dir).map((f) => readFileSync(path.join(dir, f))));

contract('sqlite', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-contract-'));
  const db = await openDb(path.join(dir, 'obscura.db'), { masterKey });
  t.teardown(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { repos: sqliteRepositories(db, addresses), raw: { rows: async (sql) => db.prepare(sql).all() as Record<string, unknown>[], files: () => sqliteFiles(dir) } };
});

let cluster: Promise<Postgres> | undefined;
/** One cluster for the file, started by the first test that needs it; a fresh database per test. */
const postgres = (): Promise<Postgres> => (cluster ??= startPostgres());
test.after.always('the PostgreSQL cluster is stopped and removed', async () => {
  if (cluster) await (await cluster.catch(() => undefined))?.stop();
});

contract('postgres', async (t) => {
  const db = await openPostgres(await (await postgres()).database(), { masterKey });
  t.teardown(() => db.close());
  return { repos: postgresRepositories(db, addresses), raw: { rows: async (sql) => (await db.pool.query(sql)).rows } };
});

test('both backends have the same numbered migrations', (t) => {
  t.deepEqual(
    postgresMigrations.map((m) => m.version),
    sqliteMigrations.map((m) => m.version),
  );
});

test('postgres: instances opening a fresh database at once migrate it once, and BIGINT comes back as numbers', async (t) => {
  const url = await (await postgres()).database();
  const dbs = await Promise.all(Array.from({ length: 4 }, () => openPostgres(url)));
  t.teardown(() => Promise.all(dbs.map((d) => d.close())));
  const { rows } = await dbs[0].pool.query<{ version: number; applied_at: number }>('SELECT version, applied_at FROM schema_migrations ORDER BY version');
  t.deepEqual(
    rows.map((r) => r.version),
    postgresMigrations.map((m) => m.version),
  );
  t.is(typeof rows[0].applied_at, 'number');
  // the parser belongs to these pools, not to pg's global defaults
  const plain = new pg.Client({ connectionString: url });
  await plain.connect();
  t.teardown(() => plain.end());
  t.is((await plain.query<{ n: unknown }>('SELECT 5000000000::bigint AS n')).rows[0].n, '5000000000');
  t.is((await dbs[1].pool.query<{ n: unknown }>('SELECT 5000000000::bigint AS n')).rows[0].n, 5_000_000_000);
});

test('postgres: the one-job-per-session rule holds in the database, even for a plain insert', async (t) => {
  const db = await openPostgres(await (await postgres()).database());
  t.teardown(() => db.close());
  const r = postgresRepositories(db, addresses);
  await owner(r, 'acc', ['ses', 'ses2']);
  await r.jobs.insert(job('a', 'acc', 'ses'));
  await t.throwsAsync(async () => r.jobs.insert(job('b', 'acc', 'ses', { state: 'processing' })), { instanceOf: DuplicateError });
  // racing inserts: none wins while a is queued, none once it has failed
  const wins = await Promise.all(Array.from({ length: 10 }, (_, i) => r.jobs.insertIfFirst(job(`r${i}`, 'acc', 'ses', { createdAt: T0 + i }))));
  t.is(wins.filter(Boolean).length, 0, 'a is still queued');
  await r.jobs.update('a', { state: 'failed' });
  const again = await Promise.all(Array.from({ length: 10 }, (_, i) => r.jobs.insertIfFirst(job(`r${i}`, 'acc', 'ses', { createdAt: T0 + i }))));
  t.is(again.filter(Boolean).length, 0, 'a failed, and still holds the session');
  t.is((await r.jobs.forSession('ses')).length, 1);
  // on a fresh session exactly one of ten wins
  const fresh = await Promise.all(Array.from({ length: 10 }, (_, i) => r.jobs.insertIfFirst(job(`f${i}`, 'acc', 'ses2', { createdAt: T0 + i }))));
  t.is(fresh.filter(Boolean).length, 1);
  t.is((await r.jobs.forSession('ses2')).length, 1);
});

// ---- migration 10: plain addresses sealed ----------------------------------------

/** A database as the releases before migration 10 left it: addresses in the clear, with rows that refer to their accounts. */
interface Legacy {
  /** Runs one statement on the old schema. */
  exec(sql: string): Promise<void>;
  /** A byte string literal in the engine's SQL. */
  blob(hex: string): string;
  /** Opens it as this release does (the migrations run), with a master key or without. */
  open(key?: MasterKey): Promise<{ repos: Repositories; raw: Raw; close(): Promise<void> }>;
}

async function plainRowsAreSealed(t: ExecutionContext, legacy: Legacy): Promise<void> {
  await legacy.exec("INSERT INTO accounts (id, email, verified_at, deactivated_at, created_at, password_hash) VALUES ('old1', 'Frank.Legacy@Example.org', 1, NULL, 2, '$argon2id$kept'), ('old2', 'grace@example.org', NULL, NULL, 3, NULL)");
  await legacy.exec(`INSERT INTO api_keys (id, account_id, prefix, last4, digest, created_at) VALUES ('k1', 'old1', 'sw_', 'ab12', ${legacy.blob('0102')}, 4)`);
  await legacy.exec("INSERT INTO sessions (id, account_id, type, created_at, expires_at) VALUES ('s1', 'old1', 'convert', 5, 9000000000000)");
  await legacy.exec(`INSERT INTO settings (name, value) VALUES ('master_key_check', '${masterKey.check}')`);

  // without the key, or with another one, nothing changes and the start says why
  await t.throwsAsync(() => legacy.open(), { message: /migration 10 seals the e-mail addresses of 2 accounts and needs the master key/ });
  await t.throwsAsync(() => legacy.open(new MasterKey(randomBytes(32))), { message: /the master key differs from the one this database was first used with/ });

  const db = await legacy.open(masterKey);
  t.teardown(() => db.close());
  const r = db.repos;
  const frank = await r.accounts.byEmail('frank.legacy@example.org');
  t.deepEqual(frank, { id: 'old1', email: 'Frank.Legacy@Example.org', verifiedAt: 1, deactivatedAt: null, createdAt: 2 }, 'found by address, given back as it was written');
  t.is((await r.accounts.byEmail('GRACE@example.org'))?.id, 'old2');
  t.is(await r.accounts.passwordHash('old1'), '$argon2id$kept');
  t.deepEqual(ids(await r.apiKeys.listForAccount('old1')), ['k1'], 'rows that refer to the account still do');
  t.is((await r.sessions.byId('s1'))?.accountId, 'old1');
  await t.throwsAsync(async () => r.accounts.insert(account('new', 'frank.LEGACY@example.org')), { instanceOf: DuplicateError }, 'one account per address, in any case');
  await r.accounts.insert(account('new', 'heidi@example.org'));
  t.is((await r.accounts.byEmail('heidi@example.org'))?.id, 'new');

  const rows = await db.raw.rows('SELECT * FROM accounts ORDER BY id');
  t.false(Object.keys(rows[0]).includes('email'), 'the plain column is gone');
  t.false(/frank|grace|example/i.test(JSON.stringify(rows, (_, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v))));
  const files = db.raw.files?.();
  if (files) {
    t.is(files.toString('latin1').toLowerCase().indexOf('frank.legacy'), -1, 'the old address is nowhere in the database files');
    t.is(files.toString('latin1').toLowerCase().indexOf('grace@example'), -1);
  }
}

test('sqlite: migration 10 seals the plain addresses of an existing database, and its files keep none', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'obscura-contract-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'obscura.db');
  const old = new DatabaseSync(file);
  for (const pragma of ['journal_mode = WAL', 'synchronous = FULL', 'foreign_keys = ON', 'secure_delete = ON']) old.exec(`PRAGMA ${pragma}`);
  old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  for (const m of sqliteMigrations.filter((m) => m.version < 10)) {
    old.exec(m.sql);
    old.prepare('INSERT INTO schema_migrations VALUES (?, 0)').run(m.version);
  }
  await plainRowsAreSealed(t, {
    exec: async (sql) => void old.exec(sql),
    blob: (hex) => `X'${hex}'`,
    async open(key) {
      const db = openDb(file, key ? { masterKey: key } : {});
      return {
        repos: sqliteRepositories(db, addresses),
        raw: { rows: async (sql) => db.prepare(sql).all() as Record<string, unknown>[], files: () => sqliteFiles(dir) },
        close: async () => db.close(),
      };
    },
  });
  t.true(old.isOpen);
  old.close();
});

test('postgres: migration 10 seals the plain addresses of an existing database and drops the plain column', async (t) => {
  const url = await (await postgres()).database();
  const old = new pg.Client({ connectionString: url });
  await old.connect();
  t.teardown(() => old.end());
  await old.query('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
  for (const m of postgresMigrations.filter((m) => m.version < 10)) {
    await old.query(m.sql);
    await old.query('INSERT INTO schema_migrations VALUES ($1, 0)', [m.version]);
  }
  await plainRowsAreSealed(t, {
    exec: async (sql) => void (await old.query(sql)),
    blob: (hex) => `'\\x${hex}'::bytea`,
    async open(key) {
      const db = await openPostgres(url, key ? { masterKey: key } : {});
      return { repos: postgresRepositories(db, addresses), raw: { rows: async (sql) => (await db.pool.query(sql)).rows }, close: () => db.close() };
    },
  });
});
