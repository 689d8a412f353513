// Audio splices: the first audio track decoded to 16 kHz mono PCM (piped into this process,
// never written anywhere), cut in 32 ms windows; per window its level (dB) and its normalised
// magnitude spectrum. A spliced-in recording shows as a sudden spectrum or level jump far
// above the clip's own window-to-window variation, or as a run of digital silence (a gap)
// between sounds. Speech and music vary a lot from window to window, so the bar rises with them.
import { runTool } from '../../tools.ts';
import type { AnalyseInput, AnalyseOptions } from '../detector.ts';
import { perInput } from './stream.ts';

export const RATE = 16_000;
export const WINDOW = 512;
/** Audio read, seconds: the rest of a longer track is not checked (the finding says so). */
export const MAX_AUDIO_S = 600;

export type AudioBreakKind = 'spectrum_break' | 'level_break' | 'gap';
export interface AudioBreak {
  time_s: number;
  kind: AudioBreakKind;
  /** Spectrum and level breaks: the jump over the clip's usual step (x times); gaps: seconds of silence. */
  strength: number;
}

const SPECTRUM_RATIO = 8;
/** Normalised spectra are half disjoint: another sound, not the same one changing. */
const SPECTRUM_FLOOR = 0.7;
const LEVEL_RATIO = 8;
const LEVEL_FLOOR_DB = 18;
/** Windows whose every sample is within this of zero are digital silence. */
const SILENT = 2;
/** A gap is this many silent windows at least (96 ms). */
const GAP_WINDOWS = 3;
/** Quieter windows (dBFS) carry too little to compare spectra. */
const QUIET_DB = -60;

export const decodeAudio = perInput(async (input: AnalyseInput, options: AnalyseOptions): Promise<{ pcm: Int16Array; truncated: boolean }> => {
  const args = ['-v', 'error', '-nostdin', '-protocol_whitelist', 'file', '-i', `file:${input.path}`, '-map', '0:a:0', '-vn', '-t', String(MAX_AUDIO_S), '-ac', '1', '-ar', String(RATE), '-f', 's16le', '-c:a', 'pcm_s16le', 'pipe:1'];
  const r = await runTool('ffmpeg', args, { signal: options.signal, onSpawn: options.onSpawn, onReap: options.onReap, timeoutMs: 300_000, maxStdout: MAX_AUDIO_S * RATE * 2 + 4096 });
  if (r.code !== 0) throw new Error('the audio could not be decoded');
  const buf = Buffer.from(r.stdout); // aligned copy
  const pcm = new Int16Array(buf.buffer, buf.byteOffset, buf.length >> 1);
  const truncated = (input.probe.durationS ?? 0) > MAX_AUDIO_S + 1;
  return { pcm, truncated };
});

/** In-place radix-2 FFT of (re, im), length a power of two. */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    for (let i = 0; i < n; i += len) {
      for (let k = 0; k < len / 2; k++) {
        const wr = Math.cos(ang * k);
        const wi = Math.sin(ang * k);
        const a = i + k;
        const b = a + len / 2;
        const xr = re[b] * wr - im[b] * wi;
        const xi = re[b] * wi + im[b] * wr;
        re[b] = re[a] - xr;
        im[b] = im[a] - xi;
        re[a] += xr;
        im[a] += xi;
      }
    }
  }
}

interface WindowStats {
  db: number;
  silent: boolean;
  spectrum: Float64Array;
}

function windows(pcm: Int16Array): WindowStats[] {
  const out: WindowStats[] = [];
  const hann = Float64Array.from({ length: WINDOW }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (WINDOW - 1)));
  const re = new Float64Array(WINDOW);
  const im = new Float64Array(WINDOW);
  for (let off = 0; off + WINDOW <= pcm.length; off += WINDOW) {
    let energy = 0;
    let peak = 0;
    for (let i = 0; i < WINDOW; i++) {
      const v = pcm[off + i];
      energy += v * v;
      peak = Math.max(peak, Math.abs(v));
      re[i] = (v / 32768) * hann[i];
      im[i] = 0;
    }
    fft(re, im);
    const spectrum = new Float64Array(WINDOW / 2);
    let sum = 0;
    for (let k = 1; k < WINDOW / 2; k++) sum += spectrum[k] = Math.hypot(re[k], im[k]);
    if (sum > 0) for (let k = 0; k < spectrum.length; k++) spectrum[k] /= sum;
    out.push({ db: 10 * Math.log10(energy / WINDOW / 32768 ** 2 + 1e-12), silent: peak <= SILENT, spectrum });
  }
  return out;
}

function quantile(xs: number[], q: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

export function audioBreaks(pcm: Int16Array): AudioBreak[] {
  const w = windows(pcm);
  const t = (i: number) => round((i * WINDOW) / RATE);
  const flux: number[] = [0];
  const level: number[] = [0];
  for (let i = 1; i < w.length; i++) {
    let f = 0;
    for (let k = 0; k < w[i].spectrum.length; k++) f += Math.abs(w[i].spectrum[k] - w[i - 1].spectrum[k]);
    // quiet windows' spectra are mostly noise floor: their changes say nothing
    flux.push(w[i].db > QUIET_DB && w[i - 1].db > QUIET_DB ? f : 0);
    level.push(w[i].silent || w[i - 1].silent ? 0 : Math.abs(w[i].db - w[i - 1].db));
  }
  // the first and last windows hold the encoder's priming and padding: left out
  const inner = (xs: number[]) => xs.slice(2, Math.max(2, xs.length - 2));
  // the median: a splice of a few hundred ms must not raise the bar it is measured against
  const fluxUsual = quantile(inner(flux), 0.5);
  const levelUsual = quantile(inner(level), 0.5);
  const fluxBar = Math.max(SPECTRUM_FLOOR, fluxUsual * SPECTRUM_RATIO);
  const levelBar = Math.max(LEVEL_FLOOR_DB, levelUsual * LEVEL_RATIO);
  const out: AudioBreak[] = [];
  for (let i = 2; i < w.length - 2; i++) {
    if (flux[i] > fluxBar) out.push({ time_s: t(i), kind: 'spectrum_break', strength: round(flux[i] / Math.max(fluxUsual, 0.01), 1) });
    else if (level[i] > levelBar) out.push({ time_s: t(i), kind: 'level_break', strength: round(level[i] / Math.max(levelUsual, 0.5), 1) });
  }
  // gaps: runs of digital silence with sound on both sides
  const firstSound = w.findIndex((x) => !x.silent);
  let lastSound = w.length - 1;
  while (lastSound >= 0 && w[lastSound].silent) lastSound--;
  for (let i = firstSound + 1; firstSound >= 0 && i < lastSound; ) {
    if (!w[i].silent) {
      i++;
      continue;
    }
    let j = i;
    while (j < lastSound && w[j].silent) j++;
    if (j - i >= GAP_WINDOWS) out.push({ time_s: t(i), kind: 'gap', strength: round(((j - i) * WINDOW) / RATE) });
    i = j;
  }
  return merge(out.sort((a, b) => a.time_s - b.time_s));
}

/** Breaks of one kind within 100 ms are one event (the windows around a splice all jump). */
function merge(breaks: AudioBreak[]): AudioBreak[] {
  const out: AudioBreak[] = [];
  for (const b of breaks) {
    const last = out.findLast((o) => o.kind === b.kind);
    if (last && b.kind !== 'gap' && b.time_s - last.time_s <= 0.1) last.strength = Math.max(last.strength, b.strength);
    else out.push({ ...b });
  }
  return out;
}
