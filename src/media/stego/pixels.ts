// Raw pixels as a sample space: the colour samples of opaque pixels. Alpha is never touched,
// and neither are pixels that are not fully opaque (encoders may rewrite their colour).
import type { SampleSpace } from './stream.ts';
import { embed, extract, sealingKeys } from './stream.ts';
import { CONTAINER_OVERHEAD, fileOverhead, pack } from './container.ts';

export interface PixelInfo {
  width: number;
  height: number;
  channels: number;
}

export function pixelSpace(data: Uint8Array, info: PixelInfo): SampleSpace {
  const { channels } = info;
  const colour = channels === 4 ? 3 : channels === 2 ? 1 : channels;
  const hasAlpha = channels === 2 || channels === 4;
  if (!hasAlpha) {
    return { n: data.length, get: (i) => data[i], set: (i, v) => void (data[i] = v), direct: data };
  }
  let opaque = 0;
  for (let px = channels - 1; px < data.length; px += channels) if (data[px] === 255) opaque++;
  const offsets = new Uint32Array(opaque * colour);
  let k = 0;
  for (let px = 0; px < data.length; px += channels) {
    if (data[px + channels - 1] !== 255) continue;
    for (let c = 0; c < colour; c++) offsets[k++] = px + c;
  }
  return { n: offsets.length, get: (i) => data[offsets[i]], set: (i, v) => void (data[offsets[i]] = v) };
}

export const IMAGE_DOMAIN = 'image';

/** Hides `payload` (taken as one secret) in a copy of the pixels. Used by the stego benchmark. */
export async function hidePixels(pixels: Uint8Array, info: PixelInfo, payload: Uint8Array, passphrase: string): Promise<Uint8Array> {
  const copy = new Uint8Array(pixels);
  await embed(pixelSpace(copy, info), pack([{ name: 'x', data: payload }]), sealingKeys(passphrase, IMAGE_DOMAIN));
  return copy;
}

export async function revealPixels(pixels: Uint8Array, info: PixelInfo, passphrase: string): Promise<Buffer> {
  return extract(pixelSpace(pixels, info), passphrase, IMAGE_DOMAIN);
}

export { CONTAINER_OVERHEAD, fileOverhead };
