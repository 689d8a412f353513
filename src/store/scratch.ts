// Private working folders for media tools that need files (ffmpeg, cjxl, heif-enc). They
// live on a memory-backed filesystem so plaintext never reaches persistent disk, and are
// removed however the job ends; a crash's leftovers are swept at the next start.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';

import type { Scratch } from '../domain/ports.ts';

const PREFIX = 'obscura-job-';

export class ScratchFolders implements Scratch {
  readonly root: string;
  /** Folder-name prefix of this service instance: a sweep never touches another instance's jobs. */
  readonly prefix: string;

  /** `instance` tells apart services sharing one scratch root (the data folder, say). */
  constructor(root: string, instance = 'default') {
    this.root = path.resolve(root);
    this.prefix = `${PREFIX}${createHash('sha256').update(instance).digest('hex').slice(0, 8)}-`;
  }

  /** Gives fn a fresh folder (mode 0700) and removes it when fn settles, whatever the outcome. */
  async with<T>(fn: (dir: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(path.join(this.root, this.prefix));
    try {
      return await fn(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * Removes folders left behind by a process that was killed mid-job, after killing any tool
   * (ffmpeg, cjxl, ...) still running on them: a killed parent does not take its children along.
   */
  async sweep(): Promise<number> {
    await this.#killOrphans();
    let n = 0;
    for (const name of await readdir(this.root).catch(() => [] as string[])) {
      if (!name.startsWith(this.prefix)) continue;
      await rm(path.join(this.root, name), { recursive: true, force: true });
      n++;
    }
    return n;
  }

  async #killOrphans(): Promise<void> {
    const needle = path.join(this.root, this.prefix);
    const uid = process.getuid?.();
    for (const pid of await readdir('/proc').catch(() => [] as string[])) {
      if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (!cmdline.includes(needle)) continue;
      const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
      const owner = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      if (uid !== undefined && owner !== uid) continue;
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        /* gone already */
      }
    }
  }

  /** True when the root sits on tmpfs/ramfs, per /proc/mounts (Linux). */
  isMemoryBacked(): boolean {
    try {
      let best = { mount: '', type: '' };
      for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
        const [, mount, type] = line.split(' ');
        if (!mount) continue;
        const m = mount.replace(/\\040/g, ' ');
        if ((this.root === m || this.root.startsWith(m.endsWith('/') ? m : m + '/')) && m.length > best.mount.length) best = { mount: m, type };
      }
      return best.type === 'tmpfs' || best.type === 'ramfs';
    } catch {
      return false;
    }
  }
}
