// The settings are declared once (src/config/settings.ts); the operators' table is written from
// them and these tests fail while it, or any other doc, says something else.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from './helpers/test.ts';
import { loadConfig } from '../src/config.ts';
import { SETTINGS, type Setting } from '../src/config/settings.ts';
import { TABLE_END, TABLE_START, shownDefault, withSettingsTable } from '../src/config/table.ts';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const settings = Object.entries(SETTINGS) as [string, Setting][];
const declared = new Set(settings.map(([name]) => name));

/** Names the docs give that are not the service's settings, and the file that reads each. */
const NOT_SETTINGS: Record<string, string> = {
  OBSCURA_API_KEY: 'src/companion/config.ts', // the MCP companion, on the agent's machine (docs/agents.md)
  OBSCURA_BASE_URL: 'src/companion/config.ts',
  OBSCURA_SOCKS_PROXY: 'src/companion/config.ts',
  OBSCURA_TARGET_DATABASE_URL: 'src/cli.ts', // engine copy-accounts
  OBSCURA_PORT: 'docker-compose.yml', // the compose file's .env
  OBSCURA_SCALE_PORT_1: 'docker-compose.yml',
  OBSCURA_SCALE_PORT_2: 'docker-compose.yml',
  OBSCURA_PG_PASSWORD: 'docker-compose.yml',
  OBSCURA_S3_ACCESS_KEY: 'docker-compose.yml',
  OBSCURA_S3_SECRET_KEY: 'docker-compose.yml',
  OBSCURA_METRICS_PORT: 'deploy/docker/metrics.yml',
};

function filesUnder(dir: string, keep: (file: string) => boolean): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    return statSync(path.join(root, rel)).isDirectory() ? filesUnder(rel, keep) : keep(rel) ? [rel] : [];
  });
}

/** The table's rows: variable -> the default cell. */
function tableRows(doc: string): Map<string, string> {
  const table = doc.slice(doc.indexOf(TABLE_START), doc.indexOf(TABLE_END));
  const rows = new Map<string, string>();
  for (const m of table.matchAll(/^\| `(OBSCURA_[A-Z0-9_]+)` \| (.*?) \| .* \|$/gm)) rows.set(m[1], m[2]);
  return rows;
}

test('the operators\' settings table is the one the declarations give (npm run docs:settings writes it)', (t) => {
  const doc = read('docs/operators.md');
  t.true(doc.includes(TABLE_START) && doc.includes(TABLE_END), 'the table is between its markers');
  t.is(doc, withSettingsTable(doc), 'docs/operators.md differs from src/config/settings.ts: run npm run docs:settings');
});

test('every setting is in the table once, with its default, and the table names no other', (t) => {
  const doc = read('docs/operators.md');
  const rows = tableRows(doc);
  t.deepEqual([...rows.keys()].sort(), [...declared].sort());
  t.is(doc.match(/^\| `OBSCURA_/gm)?.length, declared.size, 'no setting has a second row elsewhere');
  for (const [name, s] of settings) {
    const cell = rows.get(name);
    t.is(cell, shownDefault(s), name);
    // a default shown in words still names the value it is when the variable is set to it
    if (s.shown !== undefined && s.default !== undefined) t.true(s.shown.includes(`\`${s.default}\``), `${name}: ${s.shown}`);
    t.true(s.doc.length > 0 && !s.doc.includes('\n') && !/(^|[^\\])\|/.test(s.doc), `${name}: one line, no table pipe`);
  }
});

test('the docs name no setting that does not exist', (t) => {
  const files = [
    'README.md',
    'docker-compose.yml',
    'Dockerfile',
    ...filesUnder('docs', (f) => f.endsWith('.md')),
    ...filesUnder('deploy', (f) => /\.(md|yml|example|conf|sh)$/.test(f)),
    ...filesUnder('hardening', () => true),
  ];
  for (const file of files) {
    for (const [name] of read(file).matchAll(/OBSCURA_[A-Z0-9_]*[A-Z0-9]/g)) {
      t.true(declared.has(name) || name in NOT_SETTINGS, `${file} names ${name}, which is no setting (src/config/settings.ts)`);
    }
  }
  for (const [name, file] of Object.entries(NOT_SETTINGS)) t.true(read(file).includes(name), `${name} is read by ${file}`);
});

test('the systemd example sets settings only, to values they take', (t) => {
  const lines = read('deploy/obscura.env.example').split('\n').filter((l) => /^#?OBSCURA_/.test(l));
  t.true(lines.length > 5);
  for (const line of lines) {
    const [, name, value] = /^#?(OBSCURA_\w+)=(.*)$/.exec(line)!;
    const s = SETTINGS[name as keyof typeof SETTINGS] as Setting | undefined;
    t.truthy(s, `${name} is a setting`);
    if (s && !value.includes('<')) t.true(s.parse.safeParse(value).success, `${name}=${value}`);
  }
});

test('each setting lands in Config where its declaration says; the values made of several are made of them', (t) => {
  const config = loadConfig({}) as unknown as Record<string, unknown>;
  const at = (p: string) => p.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], config);
  const paths = new Set<string>();
  for (const [name, s] of settings) {
    if (s.at === undefined) continue;
    t.false(paths.has(s.at), `${name}: ${s.at} is filled by one setting`);
    paths.add(s.at);
    const parsed = s.parse.parse(s.default);
    t.deepEqual(at(s.at), s.to ? s.to(parsed) : parsed, `${name} -> ${s.at}`);
  }
  // a value other than the default lands there too
  const c = loadConfig({ OBSCURA_RATE_BAD_KEYS_BRAKE: '7m', OBSCURA_V1_PATCH_DONE_STATUS: '200', OBSCURA_MAX_VIDEO_DURATION: '90s', OBSCURA_WORKERS: '3' });
  t.is(c.abuse.badKeys.brakeMs, 7 * 60_000);
  t.is(c.v1.patchDoneStatus, 200);
  t.is(c.media.maxDurationS, 90);
  t.is(c.jobs.workers, 3);
  const c2 = loadConfig({ OBSCURA_MAX_VIDEO_RESOLUTION: '1920x1080', OBSCURA_ONION_ORIGIN: 'http://abc.onion', OBSCURA_DATA_DIR: '/srv/o', OBSCURA_MASTER_KEY_FILE: 'k' });
  t.deepEqual([c2.media.maxVideoWidth, c2.media.maxVideoHeight], [1920, 1080]);
  t.deepEqual([c2.origin.onion, c2.originSet.onion, c2.originSet.clearnet, c2.onionLocation], ['http://abc.onion', true, false, 'http://abc.onion']);
  t.is(c2.masterKey.file, '/srv/o/k');
});
