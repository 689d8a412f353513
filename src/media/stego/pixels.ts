// Raw pixels as a sample space: the colour samples of opaque pixels. Alpha is never touched,
// and neither are pixels that are not fully opaque (encoders may rewrite their colour).
import type { Samples } from './stream.ts';
import { embed, extract, sealingKeys } from './stream.ts';
import { CONTAINER_OVERHEAD, fileOverhead, pack } from './container.ts';

export interface PixelInfo {
  width: number;
  height: number;
  channels: number;
}

/**
 * The samples that may carry bits, and commit() to put changed ones back in the picture. Without
 * alpha they are the pixel buffer itself; with alpha, the colour samples of opaque pixels are
 * gathered into one buffer (so the hot loops index one array) and scattered back on commit.
 */
export function pixelSamples(data: Uint8Array, info: PixelInfo): { samples: Samples; commit(): void } {
  const { channels } = info;
  if (channels !== 2 && channels !== 4) return { samples: data, commit() {} };
  const colour = channels - 1;
  let opaque = 0;
  for (let px = channels - 1; px < data.length; px += channels) if (data[px] === 255) opaque++;
  const samples = new Uint8Array(opaque * colour);
  let k = 0;
  for (let px = 0; px < data.length; px += channels) {
    if (data[px + colour] !== 255) continue;
    for (let c = 0; c < colour; c++) samples[k++] = data[px + c];
  }
  return {
    samples,
    commit() {
      let k = 0;
      for (let px = 0; px < data.length; px += channels) {
        if (data[px + colour] !== 255) continue;
        for (let c = 0; c < colour; c++) data[px + c] = samples[k++];
      }
    },
  };
}

export const IMAGE_DOMAIN = 'image';

/** Hides `payload` (taken as one secret) in a copy of the pixels. Used by the stego benchmark. */
export async function hidePixels(pixels: Uint8Array, info: PixelInfo, payload: Uint8Array, passphrase: string): Promise<Uint8Array> {
  const copy = new Uint8Array(pixels);
  const space = pixelSamples(copy, info);
  await embed(space.samples, pack([{ name: 'x', data: payload }]), sealingKeys(passphrase, IMAGE_DOMAIN));
  space.commit();
  return copy;
}

export async function revealPixels(pixels: Uint8Array, info: PixelInfo, passphrase: string): Promise<Buffer> {
  return extract(pixelSamples(pixels, info).samples, passphrase, IMAGE_DOMAIN);
}

export { CONTAINER_OVERHEAD, fileOverhead };
