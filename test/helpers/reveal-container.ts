// Reveal containers as a hostile maker writes them: the container format written out by hand
// (so a size may lie), deflated zeros made a MiB at a time (a bomb costs no memory to build),
// and a stego PNG sealed with the project's own embedding, so the service opens it as its own.
import { once } from 'node:events';
import { createDeflateRaw } from 'node:zlib';
import sharp from 'sharp';
import { pixelSamples, IMAGE_DOMAIN } from '../../src/media/stego/pixels.ts';
import { embed, sealingKeys } from '../../src/media/stego/stream.ts';

export interface RawEntry {
  name: string;
  /** The size declared once inflated. */
  size: number;
  body: Uint8Array;
  deflated: boolean;
}

/** Version 1, a u16 count, then each file: u16 name length, name, flags, u32 size, u32 body length, body. */
export function containerOf(files: RawEntry[]): Buffer {
  const parts: Buffer[] = [Buffer.from([1, files.length >> 8, files.length & 0xff])];
  for (const f of files) {
    const name = Buffer.from(f.name, 'utf8');
    const head = Buffer.alloc(2 + name.length + 9);
    head.writeUInt16BE(name.length, 0);
    name.copy(head, 2);
    head[2 + name.length] = f.deflated ? 1 : 0;
    head.writeUInt32BE(f.size, 3 + name.length);
    head.writeUInt32BE(f.body.length, 7 + name.length);
    parts.push(head, Buffer.from(f.body));
  }
  return Buffer.concat(parts);
}

/** `bytes` zero bytes, raw-deflated, fed a MiB at a time: 1 GiB gives about 1 MB. */
export async function deflatedZeros(bytes: number): Promise<Buffer> {
  const z = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  z.on('data', (c: Buffer) => out.push(c));
  const done = once(z, 'end');
  const mib = Buffer.alloc(1 << 20);
  for (let left = bytes; left > 0; left -= mib.length) {
    if (!z.write(left >= mib.length ? mib : mib.subarray(0, left))) await once(z, 'drain');
  }
  z.end();
  await done;
  return Buffer.concat(out);
}

/** The cover (any picture) as an RGB PNG with `container` sealed in it under `passphrase`. */
export async function stegoPng(cover: Buffer | string, container: Buffer, passphrase: string): Promise<Buffer> {
  const { data, info } = await sharp(cover).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const space = pixelSamples(data, info);
  await embed(space.samples, container, sealingKeys(passphrase, IMAGE_DOMAIN));
  space.commit();
  return sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } }).png().toBuffer();
}

/** The length fields of a container, for the fuzzer to set to extremes: count, then each file's name length, size and body length. */
export function containerFields(buf: Buffer): { at: number; width: number }[] {
  const fields = [{ at: 1, width: 2 }];
  let at = 3;
  for (let i = 0; i < buf.readUInt16BE(1) && at + 2 <= buf.length; i++) {
    const nameLen = buf.readUInt16BE(at);
    fields.push({ at, width: 2 }, { at: at + 3 + nameLen, width: 4 }, { at: at + 7 + nameLen, width: 4 });
    if (at + 11 + nameLen > buf.length) break;
    at += 11 + nameLen + buf.readUInt32BE(at + 7 + nameLen);
  }
  return fields.filter((f) => f.at + f.width <= buf.length);
}
