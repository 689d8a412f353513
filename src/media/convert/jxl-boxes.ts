// A JPEG XL container may carry metadata boxes compressed with brotli ('brob': Exif, XMP, JUMBF),
// and djxl inflates each whole into memory to copy it into its PNG, with no bound: 406 bytes of
// them (2 × 256 MiB of zeros) took djxl 2.6 GB and 19 s of CPU. Every output drops that
// metadata anyway, so djxl gets a copy in which they are 'free' boxes (the same size: nothing
// moves), which it skips. A bare codestream has no boxes and is used as it is.
import { copyFile, open, type FileHandle } from 'node:fs/promises';
import { MediaError } from '../errors.ts';

const SIGNATURE = Buffer.from('0000000c4a584c200d0a870a', 'hex');

const damaged = () => new MediaError('corrupt', 'The JPEG XL image could not be decoded: the file is damaged or incomplete.');

/** Where the brotli-compressed boxes start; throws MediaError('corrupt') on boxes that do not hold together. */
async function compressedBoxes(fh: FileHandle): Promise<number[]> {
  const size = (await fh.stat()).size;
  const head = Buffer.alloc(16);
  await fh.read(head, 0, 12, 0);
  if (!head.subarray(0, 12).equals(SIGNATURE)) return [];
  const found: number[] = [];
  for (let at = 0; at < size; ) {
    const { bytesRead } = await fh.read(head, 0, 16, at);
    if (bytesRead < 8) throw damaged();
    let length = head.readUInt32BE(0);
    let header = 8;
    if (length === 1) {
      if (bytesRead < 16) throw damaged();
      length = Number(head.readBigUInt64BE(8));
      header = 16;
    } else if (length === 0) length = size - at; // the last box runs to the end
    if (length < header || at + length > size) throw damaged();
    if (head.toString('latin1', 4, 8) === 'brob') found.push(at);
    at += length;
  }
  return found;
}

/** `input`, or `copy` holding it with every 'brob' box made a 'free' box. */
export async function withoutCompressedBoxes(input: string, copy: string): Promise<string> {
  const fh = await open(input, 'r');
  let found: number[];
  try {
    found = await compressedBoxes(fh);
  } finally {
    await fh.close();
  }
  if (!found.length) return input;
  await copyFile(input, copy);
  const out = await open(copy, 'r+');
  try {
    for (const at of found) await out.write(Buffer.from('free', 'latin1'), 0, 4, at + 4);
  } finally {
    await out.close();
  }
  return copy;
}
