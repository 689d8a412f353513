import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { SERVICE_NODE_FLAGS } from './helpers/child.ts';
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

test('npm start, the image and the systemd unit run node with the service flags, and this node accepts them', (t) => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
  const dockerfile = readFileSync('Dockerfile', 'utf8');
  const unit = readFileSync('hardening/obscura.service', 'utf8');
  for (const flag of SERVICE_NODE_FLAGS) {
    t.true(pkg.scripts.start.includes(` ${flag} `), `npm start: ${flag}`);
    t.true(dockerfile.includes(`"${flag}"`), `Dockerfile: ${flag}`);
    t.true(unit.includes(` ${flag} `), `systemd unit: ${flag}`);
  }
  const r = spawnSync(process.execPath, [...SERVICE_NODE_FLAGS, '-e', '0'], { encoding: 'utf8' });
  t.is(r.status, 0, r.stderr);
});
