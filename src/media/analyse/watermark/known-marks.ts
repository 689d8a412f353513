// Marks that open image generators embed with the dwtDct scheme (see dwt-dct.ts), as the bits
// their code hands to invisible-watermark's WatermarkEncoder.
export interface KnownMark {
  /** Who embeds it, for people. */
  name: string;
  /** Where the mark is set, so a user can check. */
  source: string;
  bits: readonly number[];
}

/** set_watermark('bytes', text): the bytes' bits, most significant first (np.unpackbits). */
const textBits = (text: string) => [...Buffer.from(text, 'utf8')].flatMap((b) => Array.from({ length: 8 }, (_, i) => (b >> (7 - i)) & 1));
/** set_watermark('bits', [int(b) for b in bin(MESSAGE)[2:]]). */
const binaryBits = (digits: string) => [...digits].map(Number);

export const KNOWN_MARKS: readonly KnownMark[] = [
  { name: 'Stable Diffusion 1.x ("StableDiffusionV1")', source: 'CompVis/stable-diffusion scripts/txt2img.py', bits: textBits('StableDiffusionV1') },
  { name: 'Stable Diffusion 2.x ("SDV2")', source: 'Stability-AI/stablediffusion scripts/txt2img.py', bits: textBits('SDV2') },
  {
    name: 'Stable Diffusion XL (48-bit mark)',
    source: 'diffusers StableDiffusionXLWatermarker and Stability-AI/generative-models',
    bits: binaryBits('101100111110110010010000011110111011000110011110'),
  },
];
