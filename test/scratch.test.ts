import { existsSync, statSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from './helpers/test.ts';
import { ScratchFolders } from '../src/store/scratch.ts';

test('a job gets a private folder on a memory-backed filesystem, removed when it succeeds', async (t) => {
  const scratch = new ScratchFolders('/dev/shm');
  t.true(scratch.isMemoryBacked());
  let seen = '';
  const out = await scratch.with(async (dir) => {
    seen = dir;
    t.is(statSync(dir).mode & 0o777, 0o700);
    writeFileSync(path.join(dir, 'frame.png'), 'pixels');
    return 42;
  });
  t.is(out, 42);
  t.true(seen.startsWith(`/dev/shm/${scratch.prefix}`));
  t.regex(scratch.prefix, /^obscura-job-[0-9a-f]{8}-$/);
  t.false(existsSync(seen));
});

test('the folder is removed when the job throws', async (t) => {
  const scratch = new ScratchFolders('/dev/shm');
  let seen = '';
  await t.throwsAsync(
    scratch.with(async (dir) => {
      seen = dir;
      mkdirSync(path.join(dir, 'nested'));
      writeFileSync(path.join(dir, 'nested', 'x'), 'y');
      throw new Error('ffmpeg died');
    }),
    { message: 'ffmpeg died' },
  );
  t.false(existsSync(seen));
});

test('leftovers of a killed process are swept; disk-backed roots are recognised', async (t) => {
  const root = '/dev/shm/obscura-sweep-test-' + process.pid;
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const scratch = new ScratchFolders(root, '/srv/a');
  const neighbour = new ScratchFolders(root, '/srv/b'); // another service on the same root
  mkdirSync(path.join(root, `${scratch.prefix}left`), { recursive: true });
  mkdirSync(path.join(root, `${neighbour.prefix}busy`), { recursive: true });
  mkdirSync(path.join(root, 'unrelated'), { recursive: true });
  t.is(await scratch.sweep(), 1);
  t.false(existsSync(path.join(root, `${scratch.prefix}left`)));
  t.true(existsSync(path.join(root, `${neighbour.prefix}busy`)), "another instance's jobs are left alone");
  t.true(existsSync(path.join(root, 'unrelated')));
  t.false(new ScratchFolders(process.cwd()).isMemoryBacked());
});
