// TEST AND BENCHMARK UTILITY, not a product feature: naive LSB *replacement*, the way a weak
// steganography tool hides data, which the steganalysers in this folder must catch. Obscura's
// own hiding lives in src/media/stego/ and is not this.
//
// bpp = payload bits / (width x height): bits per pixel, not per sample. The payload is spread
// over the colour samples only (alpha untouched), one bit per chosen sample, so 0.2 bpp in an
// RGB image writes a random bit into round(0.2 x width x height) samples, i.e. 0.2 / 3 = 6.7 %
// of the colour samples; about half of them change.
import type { PixelImage } from './types.ts';
import { colourChannels } from './common.ts';

/** Small seeded PRNG (sfc32 seeded through splitmix32): reproducible, not cryptographic. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split(), b = split(), c = split(), d = split();
  return () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
}

export interface LsbEmbedOptions {
  /** 'random' (default): the carrying samples are a uniformly random subset of the colour
   *  samples (selection sampling, exactly the requested count); 'sequential': the first samples
   *  in raster order (row by row, R G B within a pixel), as the oldest tools do. */
  order?: 'random' | 'sequential';
}

/**
 * Returns a copy of `img` with round(bitsPerPixel x width x height) random message bits written
 * over the LSBs of that many colour samples (LSB replacement). `bitsPerPixel` ranges from 0 to
 * the number of colour channels (1 for grey, 3 for RGB). Deterministic for a given seed.
 */
export function embedLsbReplacement(img: PixelImage, bitsPerPixel: number, seed: number, options: LsbEmbedOptions = {}): PixelImage {
  const cc = colourChannels(img);
  if (!(bitsPerPixel >= 0 && bitsPerPixel <= cc)) throw new RangeError(`bitsPerPixel must be within 0..${cc}`);
  const { width, height, channels } = img;
  const pixels = width * height;
  const total = pixels * cc; // colour samples
  const bits = Math.min(total, Math.round(bitsPerPixel * pixels));
  const out = new Uint8Array(img.data);
  const rnd = seededRandom(seed);
  // index of the k-th colour sample in the interleaved buffer
  const at = channels === cc ? (k: number) => k : (k: number) => Math.floor(k / cc) * channels + (k % cc);
  const write = (k: number) => {
    const i = at(k);
    out[i] = (out[i] & 0xfe) | (rnd() < 0.5 ? 0 : 1);
  };
  if (options.order === 'sequential') {
    for (let k = 0; k < bits; k++) write(k);
  } else {
    // Knuth's selection sampling (Algorithm S): each subset of size `bits` equally likely
    let need = bits;
    for (let k = 0; k < total && need > 0; k++) {
      if (rnd() * (total - k) < need) {
        write(k);
        need--;
      }
    }
  }
  return { data: out, width, height, channels };
}

/**
 * LSB *matching* (+-1 embedding), the other naive scheme: round(bitsPerPixel x width x height)
 * random colour samples each carry a random message bit; where a sample's LSB differs from its
 * bit, the sample moves by +1 or -1 at random (+1 at 0, -1 at 255), so about half of the
 * chosen samples change. Unlike replacement it never pairs 2k with 2k+1, which is what the
 * chi-square attack, RS, SPA and WS model: the accuracy benchmark measures how much of it they
 * still see. Same selection and seed handling as embedLsbReplacement (random order only).
 */
export function embedLsbMatching(img: PixelImage, bitsPerPixel: number, seed: number): PixelImage {
  const cc = colourChannels(img);
  if (!(bitsPerPixel >= 0 && bitsPerPixel <= cc)) throw new RangeError(`bitsPerPixel must be within 0..${cc}`);
  const { width, height, channels } = img;
  const total = width * height * cc;
  const out = new Uint8Array(img.data);
  const rnd = seededRandom(seed);
  const at = channels === cc ? (k: number) => k : (k: number) => Math.floor(k / cc) * channels + (k % cc);
  let need = Math.min(total, Math.round(bitsPerPixel * width * height));
  for (let k = 0; k < total && need > 0; k++) {
    if (rnd() * (total - k) >= need) continue;
    need--;
    const i = at(k);
    const bit = rnd() < 0.5 ? 0 : 1;
    const up = rnd() < 0.5;
    if ((out[i] & 1) === bit) continue;
    out[i] = out[i] === 0 ? 1 : out[i] === 255 ? 254 : up ? out[i] + 1 : out[i] - 1;
  }
  return { data: out, width, height, channels };
}
