import { spawnSync } from 'node:child_process';
import { test } from './helpers/test.ts';

// npm test itself ran the setup first; a second run must find everything in place.
test('the setup is idempotent: a warm run installs nothing and prints nothing', (t) => {
  const r = spawnSync('bash', ['deploy/setup.sh'], { encoding: 'utf8' });
  t.is(r.status, 0, r.stderr);
  t.is(r.stdout + r.stderr, '');
  const v = spawnSync('bash', ['deploy/run.sh', 'node', '-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' });
  t.true(Number(v.stdout.trim()) >= 22, v.stdout);
  for (const tool of ['ffmpeg', 'ffprobe', 'heif-enc', 'heif-convert', 'cjxl', 'djxl', 'exiftool', 'tor', 'i2pd']) {
    t.is(spawnSync('bash', ['-c', `command -v ${tool}`]).status, 0, `${tool} is installed`);
  }
});
