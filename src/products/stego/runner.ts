// Hide and reveal. Hide: step-1 secrets go into the step-2 cover, sealed under a key from the
// passphrase. Reveal: every secret back under its original name, or one and the same failure
// whatever went wrong, so a failed reveal tells nothing about why.
import { mkdir, readFile } from 'node:fs/promises';
import type { MessagePort } from 'node:worker_threads';
import path from 'node:path';
import type { MediaLimits } from '../../media/limits.ts';
import { SNIFF_BYTES, readHead, sniff, type Probe } from '../../media/probe.ts';
import { CONTAINER_OVERHEAD, fileOverhead, packedSize } from '../../media/stego/container.ts';
import { STEGO_IMAGE_FORMATS, imageCapacity, type StegoImageFormat } from '../../media/stego/image.ts';
import { STEGO_VIDEO_FORMATS, VIDEO_DOMAIN, videoCapacity, type StegoVideoFormat } from '../../media/stego/video.ts';
import { handOverKeys } from '../../media/stego/key-handoff.ts';
import { passphraseKeys } from '../../media/stego/keys.ts';
import { IMAGE_DOMAIN } from '../../media/stego/pixels.ts';
import { NOTHING_FOUND } from '../../media/stego/stream.ts';
import type { UploadRow } from '../../domain/ports.ts';
import { AppError, errorCode } from '../../domain/errors.ts';
import { engineFailure, jobFailure } from '../../domain/media-engine.ts';
import { fromScratch, toScratch } from '../../domain/scratch-io.ts';
import type { AdmitContext, JobContext, Runner, RunOutcome } from '../../domain/jobs.ts';
import { outputName } from '../../domain/output-name.ts';
import { safeName, type Uploads } from '../../domain/uploads.ts';
import { FOREIGN_TOOLS, foreignPlan, revealForeign, type ForeignFind, type HiddenWith } from '../../media/stego/foreign.ts';
import { DEFAULT_LIMITS } from '../../media/limits.ts';
import type { ImageFormat } from '../../media/sniff.ts';
import type { HideStart, RevealOptions } from './start.ts';

/** A hide as it runs: the output format is settled once the cover is known. */
export interface HideOptions {
  password: string;
  decoy_password?: string;
  output_format: StegoImageFormat | StegoVideoFormat;
  capacity: number;
}

/** A short, plain-language warning, or undefined for a passphrase that looks strong. */
export function weakness(p: string): string | undefined {
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((r) => r.test(p)).length;
  const words = p.trim().split(/\s+/).length;
  if (p.length < 8) return 'The passphrase is very short; anyone who gets the file could guess it. Use four or more random words.';
  if (new Set(p).size <= 3) return 'The passphrase repeats a few characters; it is easy to guess. Use four or more random words.';
  if (p.length < 14 && classes < 3 && words < 3) return 'The passphrase is weak; use four or more random words, or a longer mix of characters.';
  return undefined;
}

/** Uploads copied into a scratch folder as `<as>-<i>`, with the names they were uploaded under. */
async function copyFiles(uploads: Uploads, rows: UploadRow[], dir: string, as: string): Promise<{ path: string; name: string }[]> {
  const files: { path: string; name: string }[] = [];
  for (const [i, u] of rows.entries()) {
    const f = path.join(dir, `${as}-${i}`);
    await toScratch(uploads, u, f);
    files.push({ path: f, name: uploads.nameOf(u) });
  }
  return files;
}

/** A decoy smaller than the secret, by its files' sizes or (`compressed`) as the hide would pack them. */
function decoyTooSmall(decoy: number, secret: number, compressed: boolean): AppError {
  return new AppError(
    'decoy_too_small',
    `${compressed ? 'Once compressed, the decoy' : 'The decoy'} is ${decoy} bytes and the secret ${secret}: a decoy must be at least as large as the secret, or its size would give the secret away. Add to the decoy files${compressed ? ' (text compresses; photos and archives count in full)' : ''}.`,
    { decoy_bytes: decoy, secret_bytes: secret },
  );
}

/** An image's header is at its start: probing a still cover needs only its first MiB. */
const HEAD_BYTES = 1 << 20;

/** The cover's kind and size, for the capacity check. A head-only probe that fails is retried on the whole file. */
async function probeCover(deps: { uploads: Uploads; limits: MediaLimits }, row: UploadRow, ctx: AdmitContext): Promise<Probe> {
  return ctx.scratch.with(async (dir) => {
    const file = path.join(dir, 'cover');
    const run = () => ctx.engine.run({ engine: 'probe', args: { input: file, limits: deps.limits } });
    if (row.size > HEAD_BYTES) {
      await toScratch(deps.uploads, row, file, { start: 0, end: HEAD_BYTES - 1 });
      const head = await readFile(file);
      const kind = sniff(head.subarray(0, SNIFF_BYTES));
      if (kind && 'kind' in kind && kind.kind === 'image') {
        try {
          return await run();
        } catch {
          /* fall through to the whole file */
        }
      }
    }
    await toScratch(deps.uploads, row, file);
    try {
      return await run();
    } catch (err) {
      const f = engineFailure(err);
      if (f) throw new AppError(errorCode(f.error), `The cover cannot be used: ${f.message}`);
      throw err;
    }
  });
}

export function hideRunner(deps: { uploads: Uploads; limits: MediaLimits }): Runner<HideStart, HideOptions> {
  return {
    product: 'hide',
    sessionTypes: ['hide'],
    secretOptions: ['password', 'decoy_password'],

    async admit({ password, output_format, decoy_password }, inputs, ctx) {
      const secrets = inputs.filter((u) => u.step === 1);
      const covers = inputs.filter((u) => u.step === 2);
      const decoys = inputs.filter((u) => u.step === 3);
      if (!secrets.length) throw new AppError('no_secret');
      if (covers.length !== 1) throw new AppError('no_cover');
      // a decoy is its files and its passphrase, both or neither
      if (decoys.length > 0 && decoy_password === undefined) {
        throw new AppError('decoy_incomplete', 'Decoy files were uploaded (step 3) but no decoy_password was given: give one, or start a new session without them.');
      }
      if (decoy_password !== undefined && decoys.length === 0) {
        throw new AppError('decoy_incomplete', 'decoy_password was given but no decoy file was uploaded: upload the decoy files at step 3.');
      }
      if (decoy_password !== undefined && decoy_password.normalize('NFC') === password.normalize('NFC')) {
        throw new AppError('decoy_same_password');
      }
      // capacity first, from the cover's header: a secret that cannot fit is refused now
      const cover = await probeCover(deps, covers[0], ctx);
      const video = cover.kind === 'video';
      const allowed: readonly string[] = video ? STEGO_VIDEO_FORMATS : STEGO_IMAGE_FORMATS;
      const format = output_format ?? (video ? 'mkv' : 'png');
      if (!allowed.includes(format)) {
        throw new AppError('invalid_option', `output_format must be one of ${allowed.join(', ')} for ${video ? 'a video' : 'an image'} cover (the result is lossless).`);
      }
      const capacity = video
        ? cover.frames
          ? videoCapacity(cover.width, cover.height, cover.frames)
          : Number.MAX_SAFE_INTEGER // frame count unknown until decoded: the job checks it
        : imageCapacity(cover as never);
      const needed = CONTAINER_OVERHEAD + secrets.reduce((n, u) => n + u.size + fileOverhead(deps.uploads.nameOf(u)), 0);
      // what a reveal would refuse to give back is refused now (media/stego/reveal-files.ts)
      const maxReveal = deps.limits.maxRevealBytes ?? Number.MAX_SAFE_INTEGER;
      const bytes = secrets.reduce((n, u) => n + u.size, 0);
      if (bytes > maxReveal) {
        throw new AppError('secret_too_large', `The secret does not fit: it is ${bytes} bytes and a reveal gives back at most ${maxReveal} bytes (OBSCURA_MAX_REVEAL_BYTES).`, {
          capacity_bytes: Math.min(capacity, maxReveal),
          needed_bytes: bytes,
        });
      }
      if (needed > capacity) {
        throw new AppError('secret_too_large', `The secret does not fit: it needs ${needed} bytes and this cover holds at most ${capacity} bytes. Use a larger cover or a smaller secret.`, {
          capacity_bytes: capacity,
          needed_bytes: needed,
        });
      }
      if (decoys.length) {
        const decoyBytes = decoys.reduce((n, u) => n + u.size, 0);
        // the other half of every hide without a decoy holds noise no larger than its secret: a
        // smaller decoy would stand out from that noise by its size
        if (decoyBytes < bytes) throw decoyTooSmall(decoyBytes, bytes, false);
        const decoyNeeded = CONTAINER_OVERHEAD + decoys.reduce((n, u) => n + u.size + fileOverhead(deps.uploads.nameOf(u)), 0);
        if (decoyNeeded > capacity || decoyBytes > maxReveal) {
          throw new AppError('secret_too_large', `The decoy does not fit: it needs ${decoyNeeded} bytes and this cover holds at most ${capacity} bytes for each of the two. Use a larger cover or smaller files.`, {
            capacity_bytes: capacity,
            needed_bytes: decoyNeeded,
          });
        }
        // the hide deflates what compresses: a decoy of text can shrink below a secret of photos
        // that it outweighed. Both are packed now, off the event loop, as the hide will pack them.
        const packed = await ctx.scratch.with(async (dir) => ({
          secret: await packedSize(await copyFiles(deps.uploads, secrets, dir, 'secret')),
          decoy: await packedSize(await copyFiles(deps.uploads, decoys, dir, 'decoy')),
        }));
        if (packed.decoy < packed.secret) throw decoyTooSmall(packed.decoy, packed.secret, true);
      }
      return { password, output_format: format, capacity, ...(decoy_password !== undefined ? { decoy_password } : {}) };
    },

    async run(ctx: JobContext<HideOptions>): Promise<RunOutcome> {
      const { password, output_format: format, decoy_password } = ctx.options;
      const secrets = ctx.inputs.filter((u) => u.step === 1);
      const cover = ctx.inputs.find((u) => u.step === 2)!;
      const decoys = ctx.inputs.filter((u) => u.step === 3);
      const notes: string[] = [];
      ctx.progress(0.05, 'Preparing the cover and the files to hide.');
      try {
        await ctx.scratch.with(async (dir) => {
          const outDir = path.join(dir, 'out');
          await mkdir(outDir, { mode: 0o700 });
          const coverFile = path.join(dir, 'cover');
          // argon2id starts now (on the thread pool), so it runs while the cover is copied and decoded
          const domain = format === 'mkv' || format === 'webm' ? VIDEO_DOMAIN : IMAGE_DOMAIN;
          const keys = passphraseKeys(password, { hide: domain });
          await toScratch(ctx.uploads, cover, coverFile);
          const files = await copyFiles(ctx.uploads, secrets, dir, 'secret');
          const decoyFiles = await copyFiles(ctx.uploads, decoys, dir, 'decoy');
          // the decoy's argon2id starts now too; its keys cross to the worker as the secret's do
          const decoyKeys = decoy_password === undefined ? undefined : passphraseKeys(decoy_password, { hide: domain });
          ctx.progress(0.2, 'Hiding.');
          const hide = (port: MessagePort, decoyPort?: MessagePort) =>
            ctx.engine.run(
              { engine: 'hide', args: { cover: coverFile, secrets: files, keys: port, ...(decoyPort ? { decoy: { secrets: decoyFiles, keys: decoyPort } } : {}), outDir, format, limits: deps.limits } },
              { signal: ctx.signal, transfer: decoyPort ? [port, decoyPort] : [port] },
            );
          const r = await handOverKeys(keys, (port) => (decoyKeys ? handOverKeys(decoyKeys, (decoyPort) => hide(port, decoyPort)) : hide(port)));
          const coverName = ctx.uploads.nameOf(cover);
          await ctx.addAsset({
            category: 'result',
            name: coverName,
            outputName: outputName(coverName, r.extension, new Set()),
            mimeType: r.mime,
            source: fromScratch(r.path),
            extra: { notes: r.notes, width: r.width, height: r.height },
          });
          notes.push(...r.notes);
        });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        const f = jobFailure(err, 'The job failed on our side.');
        return { state: 'failed', message: f.message, error: f.error, report: {} };
      }
      const warn = weakness(password);
      const n = secrets.length;
      const d = decoys.length;
      const decoy = d ? [`The decoy's ${d} file${d === 1 ? ' is' : 's are'} hidden beside them, under the decoy passphrase.`] : [];
      return {
        state: 'completed',
        message: [`Hid ${n} file${n === 1 ? '' : 's'} in the cover; the result is lossless.`, ...decoy, ...notes, ...(warn ? [warn] : [])].join(' '),
        report: { weak_passphrase: Boolean(warn) },
      };
    },
  };
}
/** The reveal's only failures said as they are (see run() below); every other one is "nothing found". */
const REVEAL_SAYS = new Set(['reveal_too_large', 'too_much_memory']);

export function revealRunner(deps: { uploads: Uploads; limits: MediaLimits }): Runner<RevealOptions> {
  return {
    product: 'reveal',
    sessionTypes: ['reveal'],
    secretOptions: ['password'],

    async admit(options, inputs) {
      if (inputs.length !== 1) throw new AppError('no_file', 'Upload the one file to reveal from (step 1).');
      return options;
    },

    async run(ctx: JobContext<RevealOptions>): Promise<RunOutcome> {
      const { password } = ctx.options;
      const file = ctx.inputs[0];
      ctx.progress(0.1, 'Looking for hidden content.');
      try {
        const { count, hiddenWith } = await ctx.scratch.with(async (dir) => {
          const outDir = path.join(dir, 'out');
          await mkdir(outDir, { mode: 0o700 });
          const input = path.join(dir, 'input');
          await toScratch(ctx.uploads, file, input);
          let found: { path: string; name: string }[];
          let hiddenWith: HiddenWith = 'obscura';
          try {
            found = await handOverKeys(passphraseKeys(password), (port) =>
              ctx.engine.run({ engine: 'reveal', args: { file: input, keys: port, outDir, limits: deps.limits } }, { signal: ctx.signal, transfer: [port] }),
            );
          } catch (err) {
            if (ctx.signal.aborted || REVEAL_SAYS.has(engineFailure(err)?.error ?? '')) throw err;
            // not hidden here: perhaps by steghide, outguess or stegosuite
            ctx.progress(0.5, 'Looking for content hidden by other tools.');
            const other = await otherTools(ctx, deps.limits, input, password, dir);
            if (!other) throw err;
            found = [other];
            hiddenWith = other.tool;
          }
          for (const f of found) {
            const { head } = await readHead(f.path);
            const kind = sniff(head);
            await ctx.addAsset({
              category: 'result',
              // the name comes out of the file: whoever made it chose it, so it is made safe here
              name: safeName(f.name),
              outputName: safeName(f.name),
              mimeType: kind && 'mime' in kind ? kind.mime : 'application/octet-stream',
              source: fromScratch(f.path),
            });
          }
          return { count: found.length, hiddenWith };
        });
        const files = `${count} hidden file${count === 1 ? '' : 's'}`;
        const report: RevealReport = { hidden_with: hiddenWith };
        return { state: 'completed', message: hiddenWith === 'obscura' ? `Recovered ${files}.` : `Recovered ${files}, hidden with ${hiddenWith}.`, report };
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        // Hidden files over the bound come from a container that opened with this passphrase:
        // saying so tells nothing its holder does not know, and "nothing found" would be untrue.
        // Memory is estimated from the file's size in pixels and frames, before any passphrase.
        const f = engineFailure(err);
        if (f && REVEAL_SAYS.has(f.error)) return { state: 'failed', ...f, report: {} };
        // one answer for every other failure: no oracle
        return { state: 'failed', message: NOTHING_FOUND, error: 'nothing_found', report: {} };
      }
    },
  };
}

/** What a reveal keeps for its results. */
export interface RevealReport {
  hidden_with: HiddenWith;
}

/**
 * Another tool's hidden file in `input`, by Debian's program for it (media/stego/foreign.ts),
 * once the picture is within the limits (probed on the engine, as every file is): a format
 * none of them writes, or nothing under this passphrase, is undefined.
 */
async function otherTools(ctx: JobContext<RevealOptions>, limits: MediaLimits, input: string, passphrase: string, dir: string): Promise<ForeignFind | undefined> {
  const kind = sniff((await readHead(input)).head);
  const format = kind && 'format' in kind && kind.kind === 'image' ? (kind.format as ImageFormat) : undefined;
  if (!format || !FOREIGN_TOOLS[format]) return undefined;
  let pixels: number;
  try {
    const p = await ctx.engine.run({ engine: 'probe', args: { input, limits } }, { signal: ctx.signal });
    pixels = p.width * p.height;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return undefined; // over a limit, or not a picture that can be read: nothing is asked of the tools
  }
  const plan = foreignPlan(format, pixels, {
    stegosuiteMaxPixels: limits.stegosuiteMaxPixels ?? DEFAULT_LIMITS.stegosuiteMaxPixels!,
    memoryPerJob: limits.memoryPerJob?.bytes ?? Number.MAX_SAFE_INTEGER,
  });
  if (!plan.tools.length) return undefined;
  const work = path.join(dir, 'others');
  await mkdir(work, { mode: 0o700 });
  // the programs' memory is held under the instance's budget as a task's is, though they run from here
  const held = await ctx.engine.reserve(plan.bytes, ctx.signal);
  try {
    return await revealForeign(input, format, plan.tools, passphrase, work, {
      signal: ctx.signal,
      timeoutMs: limits.revealToolTimeoutMs ?? DEFAULT_LIMITS.revealToolTimeoutMs!,
      pixels,
      memoryLimit: limits.memoryPerJob?.bytes ?? Number.POSITIVE_INFINITY,
      maxBytes: limits.maxRevealBytes ?? DEFAULT_LIMITS.maxRevealBytes!,
    });
  } finally {
    held.release();
  }
}
