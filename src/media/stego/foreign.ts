// Files hidden by other tools, revealed by Debian's own programs: steghide (JPEG, BMP), outguess
// (JPEG) and stegosuite (PNG, BMP). People are sent such pictures with a passphrase and have no
// safe place to open them; these are the programs that made them, run as every media tool is:
// an argument array and no shell, an address-space limit, a time limit, a minimal environment,
// and only the job's memory-backed scratch folder to write in.
//
// Each program is asked for one fixed output path, so a name chosen by whoever made the file
// never becomes a path: steghide writes where -xf says (its stored name is read by `info`);
// outguess keeps no name; stegosuite writes beside the picture under the stored name, so it
// runs under a Java security policy that lets it write in its own folder and nowhere else, and
// open no connection. Only regular files directly in that folder are taken.
//
// What each tool checks of a passphrase: steghide and stegosuite refuse a wrong one. outguess
// has no check: with a wrong key it usually finds a length past the picture's capacity and
// gives nothing, but about one time in seven it writes noise of a plausible length. So an
// outguess result is kept only when it reads as a file (a known format, or text); an encrypted
// or unknown payload hidden with outguess is not found here, and a wrong passphrase never gives
// back noise.
import { copyFile, mkdir, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MediaError } from '../errors.ts';
import { SNIFF_BYTES, sniff, type ImageFormat } from '../sniff.ts';
import { readHead } from '../probe.ts';
import { runTool } from '../tools.ts';

export const FOREIGN_TOOL_NAMES = ['steghide', 'outguess', 'stegosuite'] as const;
export type ForeignTool = (typeof FOREIGN_TOOL_NAMES)[number];

/** What a reveal says hid its find: this service, or one of the programs it also asks. */
export const HIDDEN_WITH = ['obscura', ...FOREIGN_TOOL_NAMES] as const;
export type HiddenWith = (typeof HIDDEN_WITH)[number];

/** A format's usual file extension. */
const extension = (format: string) => (format === 'jpeg' ? 'jpg' : format);

/** Which programs can have made a picture of this format, in the order they are asked. */
export const FOREIGN_TOOLS: Partial<Record<ImageFormat, readonly ForeignTool[]>> = {
  jpeg: ['steghide', 'outguess'],
  bmp: ['steghide', 'stegosuite'],
  png: ['stegosuite'],
};

export interface ForeignFind {
  tool: ForeignTool;
  /** The revealed file, in `dir`. */
  path: string;
  /** The name its maker stored (made safe by the caller); `revealed.<type>` where the tool keeps none. */
  name: string;
  size: number;
}

const MiB = 1 << 20;

/**
 * What each program holds for a picture of `pixels`, measured on photos of 0.75 to 12 MP
 * (peak RSS): steghide 180 MB and outguess 42 MB at 12 MP; stegosuite's JVM about 100 bytes a
 * pixel (its heap must be 85-96 of them: 3 MP ran in 256 MiB, 12 MP ran out of 512) and 100 MiB
 * besides.
 */
function need(tool: ForeignTool, pixels: number): number {
  return tool === 'stegosuite' ? javaHeap(pixels) + 128 * MiB : 16 * pixels + 64 * MiB;
}
const javaHeap = (pixels: number) => 96 * pixels + 32 * MiB;
/** Address space the JVM reserves beside its heap and never touches (metaspace, code cache, CDS, arenas): it will not start in less. */
const JVM_RESERVED = 512 * MiB;

/** The programs a reveal asks of a picture, and the memory to hold for them (the largest one's). */
export interface ForeignPlan {
  tools: ForeignTool[];
  bytes: number;
}

/**
 * Which programs to ask of a picture of `format` and `pixels`, within the limits. stegosuite's
 * extraction time grows faster than its pixels (here 3 s at 0.75 MP, 15 s at 3 MP, 220 s at
 * 12 MP, a wrong passphrase alike): a picture over `stegosuiteMaxPixels` is not given to it, so
 * a mistyped passphrase never costs minutes. A program whose memory is over the job's share is
 * not asked either.
 */
export function foreignPlan(format: ImageFormat, pixels: number, limits: { stegosuiteMaxPixels: number; memoryPerJob: number }): ForeignPlan {
  const plan: ForeignPlan = { tools: [], bytes: 0 };
  for (const tool of FOREIGN_TOOLS[format] ?? []) {
    if (tool === 'stegosuite' && pixels > limits.stegosuiteMaxPixels) continue;
    if (need(tool, pixels) > limits.memoryPerJob) continue;
    plan.tools.push(tool);
    plan.bytes = Math.max(plan.bytes, need(tool, pixels));
  }
  return plan;
}

export interface ForeignOptions {
  signal?: AbortSignal;
  /** Each program's time, in ms. */
  timeoutMs: number;
  /** The picture's pixels: the JVM's heap is sized from them. */
  pixels: number;
  /** A native program's address space, in bytes (the job's memory share). */
  memoryLimit: number;
  /** The largest file given back (OBSCURA_MAX_REVEAL_BYTES). */
  maxBytes: number;
}

/**
 * Asks each program of `tools` (foreignPlan's) for what `file` (format `format`) hides under
 * `passphrase`, writing only in `dir` (empty, in scratch). The first that finds something wins;
 * undefined when none does. A find larger than `maxBytes` is refused (reveal_too_large).
 */
export async function revealForeign(file: string, format: ImageFormat, tools: readonly ForeignTool[], passphrase: string, dir: string, opts: ForeignOptions): Promise<ForeignFind | undefined> {
  // outguess picks its reader by the file's extension: every tool gets the picture under one
  const picture = path.join(dir, `picture.${extension(format)}`);
  await symlink(file, picture);
  for (const tool of tools) {
    const work = path.join(dir, tool);
    await mkdir(work, { mode: 0o700 });
    const found = await ASK[tool](picture, format, passphrase, work, opts);
    if (!found) continue;
    if (found.size > opts.maxBytes) {
      throw new MediaError('reveal_too_large', `The hidden file is ${found.size} bytes; a reveal gives back at most ${opts.maxBytes} bytes (OBSCURA_MAX_REVEAL_BYTES).`);
    }
    return found;
  }
  return undefined;
}

type Ask = (file: string, format: ImageFormat, passphrase: string, work: string, opts: ForeignOptions) => Promise<ForeignFind | undefined>;

const toolOptions = (opts: ForeignOptions, cwd: string) => ({ signal: opts.signal, timeoutMs: opts.timeoutMs, memoryLimit: opts.memoryLimit, cwd, maxStdout: 1 << 20 });

/** A regular file's size, or undefined when there is none at that path. */
async function sizeOf(p: string): Promise<number | undefined> {
  const s = await stat(p).catch(() => undefined);
  return s?.isFile() ? s.size : undefined;
}

const ASK: Record<ForeignTool, Ask> = {
  async steghide(file, _format, passphrase, work, opts) {
    // `info` says the stored name and refuses a wrong passphrase; -p is the only way steghide
    // takes one without a terminal (the service's processes are hidden from other users:
    // ProtectProc=invisible, and a container's own PID namespace)
    const info = await runTool('steghide', ['info', file, '-p', passphrase], toolOptions(opts, work));
    const named = /embedded file "([^"\n]{1,255})":/.exec(info.stdout.toString('utf8'));
    if (info.code !== 0 || !named) return undefined;
    const out = path.join(work, 'found');
    const r = await runTool('steghide', ['extract', '-sf', file, '-p', passphrase, '-xf', out, '-f', '-q'], toolOptions(opts, work));
    const size = r.code === 0 ? await sizeOf(out) : undefined;
    return size === undefined ? undefined : { tool: 'steghide', path: out, name: named[1], size };
  },

  async outguess(file, _format, passphrase, work, opts) {
    const out = path.join(work, 'found');
    const r = await runTool('outguess', ['-k', passphrase, '-r', file, out], toolOptions(opts, work));
    const size = r.code === 0 ? await sizeOf(out) : undefined;
    if (!size) return undefined;
    const { head } = await readHead(out);
    if (!readsAsAFile(head)) return undefined;
    const kind = sniff(head);
    return { tool: 'outguess', path: out, name: `revealed.${kind && 'format' in kind ? extension(kind.format) : 'txt'}`, size };
  },

  async stegosuite(file, format, passphrase, work, opts) {
    const jar = await stegosuiteJar();
    if (!jar) return undefined;
    const folder = path.join(work, 'out');
    await mkdir(folder, { mode: 0o700 });
    const picture = path.join(folder, `picture.${format}`);
    await copyFile(file, picture); // a copy in its own folder: the only place its policy lets it read and write
    // the passphrase from a file (first line) rather than the command line
    const key = path.join(work, 'key');
    await writeFile(key, `${passphrase}\n`, { mode: 0o600 });
    const policy = path.join(work, 'policy');
    await writeFile(policy, javaPolicy(folder, key), { mode: 0o600 });
    const heap = Math.ceil(javaHeap(opts.pixels) / MiB);
    const r = await runTool(
      'java',
      [
        '-Djava.security.manager',
        `-Djava.security.policy==${policy}`,
        `-Djava.io.tmpdir=${work}`,
        `-Duser.home=${work}`,
        `-Xmx${heap}m`,
        '-Xss512k',
        '-XX:+UseSerialGC',
        '-XX:-UsePerfData',
        '-XX:TieredStopAtLevel=1',
        '-XX:ReservedCodeCacheSize=32m',
        '-XX:CompressedClassSpaceSize=64m',
        '-XX:MaxMetaspaceSize=96m',
        `-XX:ErrorFile=${path.join(work, 'jvm-error.log')}`,
        '-jar',
        jar,
        'extract',
        `--keyfile=${key}`,
        picture,
      ],
      { ...toolOptions(opts, work), memoryLimit: heap * MiB + JVM_RESERVED },
    );
    if (r.code !== 0) return undefined;
    const said = r.stdout.toString('utf8');
    // a text message rather than a file: said on stdout
    const message = /^Extracted message: ([\s\S]*?)\r?\n?$/m.exec(said.slice(said.indexOf('Extracted message: ')));
    if (said.includes('Extracted message: ') && message) {
      const out = path.join(work, 'message.txt');
      await writeFile(out, message[1], { mode: 0o600 });
      return { tool: 'stegosuite', path: out, name: 'message.txt', size: Buffer.byteLength(message[1]) };
    }
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      if (!entry.isFile() || entry.name === path.basename(picture)) continue;
      const found = path.join(folder, entry.name);
      return { tool: 'stegosuite', path: found, name: entry.name, size: (await sizeOf(found)) ?? 0 };
    }
    return undefined;
  },
};

/** Debian's stegosuite jar, if the package is installed. */
async function stegosuiteJar(): Promise<string | undefined> {
  const dir = '/usr/share/stegosuite';
  const jar = (await readdir(dir).catch(() => [] as string[])).find((f) => /^stegosuite-[\d.]+\.jar$/.test(f));
  return jar && path.join(dir, jar);
}

/** Java's sandbox for stegosuite: read its own code, the key and its folder; write in its folder only; no sockets. */
function javaPolicy(folder: string, key: string): string {
  const q = (p: string) => p.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  return `grant {
  permission java.io.FilePermission "/usr/share/-", "read";
  permission java.io.FilePermission "/usr/lib/jvm/-", "read";
  permission java.io.FilePermission "${q(key)}", "read";
  permission java.io.FilePermission "${q(folder)}", "read";
  permission java.io.FilePermission "${q(folder)}/-", "read,write";
  permission java.util.PropertyPermission "*", "read";
  permission java.lang.RuntimePermission "*";
  permission java.lang.reflect.ReflectPermission "suppressAccessChecks";
};
`;
}

/** Whether bytes read as a file someone meant: a format known by its signature, or text. */
export function readsAsAFile(head: Buffer): boolean {
  const kind = sniff(head.subarray(0, SNIFF_BYTES));
  // signatures of two bytes or less turn up in noise once in 65,536 or more often: not enough
  const weak = kind && ('known' in kind ? /^(audio file \(MP3|gzip|program file|Netpbm)/.test(kind.known) : kind.format === 'jxl' && head[1] === 0x0a);
  if (kind && !weak) return true;
  if (head.includes(0)) return false;
  let text: string;
  try {
    // a character cut at the end of the head is held back, not an error
    text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
  } catch {
    return false;
  }
  const printable = text.replace(/[^\p{L}\p{N}\p{P}\p{S}\p{Zs}\t\r\n]/gu, '').length;
  return printable >= text.length * 0.95;
}
