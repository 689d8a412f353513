// Keeps only the chunks a PNG needs to show its pixels in the right colours. Decoder tools
// (heif-convert, djxl) copy EXIF and XMP into their PNGs; the EXIF orientation there is stale
// (they already oriented the pixels) and libvips would turn it into an AVIF irot box.
import { open } from 'node:fs/promises';

const KEEP = new Set(['IHDR', 'PLTE', 'IDAT', 'IEND', 'tRNS', 'gAMA', 'cHRM', 'sRGB', 'iCCP', 'sBIT', 'cICP']);
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Rewrites `src` into `dest` with only the chunks in KEEP. Answers false if src is not a PNG. */
export async function cleanPng(src: string, dest: string): Promise<boolean> {
  const inp = await open(src, 'r');
  try {
    const sig = Buffer.alloc(8);
    await inp.read(sig, 0, 8, 0);
    if (!sig.equals(SIGNATURE)) return false;
    const out = await open(dest, 'wx', 0o600);
    try {
      await out.write(SIGNATURE);
      let pos = 8;
      const head = Buffer.alloc(8);
      for (;;) {
        const { bytesRead } = await inp.read(head, 0, 8, pos);
        if (bytesRead < 8) break;
        const len = head.readUInt32BE(0);
        const type = head.toString('latin1', 4, 8);
        const total = 12 + len;
        if (KEEP.has(type)) {
          const chunk = Buffer.alloc(total);
          await inp.read(chunk, 0, total, pos);
          await out.write(chunk);
        }
        pos += total;
        if (type === 'IEND') break;
      }
    } finally {
      await out.close();
    }
    return true;
  } finally {
    await inp.close();
  }
}
