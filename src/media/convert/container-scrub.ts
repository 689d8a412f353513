// Removes what ffmpeg writes into containers even with +bitexact: the encoder name in MP4/MOV
// sample entries ("Lavc libx264") and the "FFMP" vendor code, Matroska's MuxingApp/WritingApp
// ("Lavf") and its per-track ENCODER tags. Every edit is in place and keeps each box's or
// element's size, so no offset in the file moves. Also zeroes MP4 creation/modification times
// and turns any user-data box into 'free' space. A box or element it cannot make sense of (cut
// short, or sized past its parent or the file) ends the walk: the rest is left as it is.
import { open, type FileHandle } from 'node:fs/promises';

const MAX_HEADER_BLOCK = 64 * 1024 * 1024;

async function readAt(fh: FileHandle, pos: number, len: number): Promise<Buffer> {
  const b = Buffer.alloc(len);
  const { bytesRead } = await fh.read(b, 0, len, pos);
  return b.subarray(0, bytesRead);
}

// ---- ISO BMFF (mp4, mov) ----------------------------------------------------------------

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'edts', 'dinf', 'mvex']);
const USER_DATA = new Set(['udta', 'meta', 'uuid', 'ilst', 'XMP_']);

function patchBoxes(b: Buffer, start: number, end: number, parent: string, handler: { type: string }): void {
  let o = start;
  while (o + 8 <= end) {
    let size = b.readUInt32BE(o);
    const type = b.toString('latin1', o + 4, o + 8);
    let header = 8;
    if (size === 1) {
      if (o + 16 > end) return;
      size = Number(b.readBigUInt64BE(o + 8));
      header = 16;
    } else if (size === 0) size = end - o;
    if (size < header || o + size > end) return;
    const body = o + header;

    if (USER_DATA.has(type)) {
      b.write('free', o + 4, 'latin1');
      b.fill(0, body, o + size);
    } else if (type === 'mvhd' || type === 'tkhd' || type === 'mdhd') {
      const times = body + 4 + (b[body] === 1 ? 16 : 8); // creation and modification times
      if (times <= o + size) b.fill(0, body + 4, times);
    } else if (type === 'hdlr' && parent === 'mdia') {
      // MOV has a second hdlr (the data handler) under minf: only the media handler counts.
      handler.type = b.toString('latin1', body + 8, body + 12);
    } else if (type === 'stsd') {
      patchSampleEntries(b, body + 8, o + size, handler.type);
    } else if (CONTAINERS.has(type)) {
      patchBoxes(b, body, o + size, type, type === 'trak' ? { type: '' } : handler);
    }
    o += size;
  }
}

function patchSampleEntries(b: Buffer, start: number, end: number, handlerType: string): void {
  let o = start;
  while (o + 16 <= end) {
    const size = b.readUInt32BE(o);
    if (size < 16 || o + size > end) return;
    if (size >= 24) b.fill(0, o + 20, o + 24); // QuickTime vendor code ("FFMP")
    if (handlerType === 'vide' && size >= 82) b.fill(0, o + 50, o + 82); // compressorname
    o += size;
  }
}

export async function scrubIsoBmff(path: string): Promise<void> {
  const fh = await open(path, 'r+');
  try {
    const { size: fileSize } = await fh.stat();
    let pos = 0;
    while (pos + 8 <= fileSize) {
      const h = await readAt(fh, pos, 16);
      if (h.length < 8) break;
      let size = h.readUInt32BE(0);
      const type = h.toString('latin1', 4, 8);
      if (size === 1) size = h.length < 16 ? 0 : Number(h.readBigUInt64BE(8));
      else if (size === 0) size = fileSize - pos;
      if (size < 8 || pos + size > fileSize) break;
      if (type === 'moov' || USER_DATA.has(type)) {
        if (size > MAX_HEADER_BLOCK) break;
        const box = await readAt(fh, pos, size);
        if (type === 'moov') patchBoxes(box, 0, box.length, '', { type: '' });
        else {
          box.write('free', 4, 'latin1');
          box.fill(0, 8);
        }
        await fh.write(box, 0, box.length, pos);
      }
      pos += size;
    }
  } finally {
    await fh.close();
  }
}

// ---- Matroska / WebM ------------------------------------------------------------------

const ID = {
  segment: 0x18538067,
  info: 0x1549a966,
  tracks: 0x1654ae6b,
  tags: 0x1254c367,
  chapters: 0x1043a770,
  attachments: 0x1941a469,
  cluster: 0x1f43b675,
  muxingApp: 0x4d80,
  writingApp: 0x5741,
  dateUtc: 0x4461,
  title: 0x7ba9,
  trackEntry: 0xae,
  name: 0x536e,
  tag: 0x7373,
  simpleTag: 0x67c8,
  tagName: 0x45a3,
};

interface Element {
  id: number;
  /** Offset of the element, of its data, and the data's length (undefined: unknown size). */
  start: number;
  data: number;
  size: number | undefined;
}

function readVint(b: Buffer, o: number, keepMarker: boolean): { value: number; len: number; unknown: boolean } | undefined {
  if (o >= b.length) return undefined;
  const first = b[o];
  let len = 1;
  while (len <= 8 && !(first & (0x80 >> (len - 1)))) len++;
  if (len > 8 || o + len > b.length) return undefined;
  let value = keepMarker ? first : first & (0xff >> len);
  let allOnes = value === (0xff >> len);
  for (let i = 1; i < len; i++) {
    value = value * 256 + b[o + i];
    if (b[o + i] !== 0xff) allOnes = false;
  }
  return { value, len, unknown: !keepMarker && allOnes };
}

function readElement(b: Buffer, o: number, base = 0): Element | undefined {
  const id = readVint(b, o, true);
  if (!id) return undefined;
  const size = readVint(b, o + id.len, false);
  if (!size) return undefined;
  return { id: id.value, start: base + o, data: base + o + id.len + size.len, size: size.unknown ? undefined : size.value };
}

/** Turns the element at `o` (inside buffer b) into a Void element of exactly the same length. */
function voidElement(b: Buffer, o: number): void {
  const e = readElement(b, o);
  if (!e || e.size === undefined) return;
  const total = e.data - e.start + e.size;
  const n = e.data - e.start - 1; // length of the new size field: the header keeps its length
  if (n < 1 || n > 8) return;
  const value = total - 1 - n;
  b[o] = 0xec;
  let v = value;
  for (let i = n - 1; i >= 0; i--) {
    b[o + 1 + i] = v & 0xff;
    v = Math.floor(v / 256);
  }
  b[o + 1] |= 0x80 >> (n - 1);
  b.fill(0, o + 1 + n, o + total);
}

function children(b: Buffer, start: number, end: number): Element[] {
  const out: Element[] = [];
  let o = start;
  while (o < end) {
    const e = readElement(b, o);
    if (!e || e.size === undefined || e.data + e.size > end) break;
    out.push(e);
    o = e.data + e.size;
  }
  return out;
}

function patchMatroskaBlock(b: Buffer, id: number): void {
  if (id === ID.chapters || id === ID.attachments) {
    voidElement(b, 0);
    return;
  }
  const top = readElement(b, 0);
  if (!top || top.size === undefined) return;
  const inner = children(b, top.data, top.data + top.size);
  if (id === ID.info) {
    for (const c of inner) {
      // Mandatory strings stay, emptied (EBML strings may be NUL-padded); the rest go.
      if (c.id === ID.muxingApp || c.id === ID.writingApp) b.fill(0, c.data, c.data + c.size!);
      else if (c.id === ID.dateUtc || c.id === ID.title) voidElement(b, c.start);
    }
  } else if (id === ID.tracks) {
    for (const t of inner.filter((c) => c.id === ID.trackEntry)) {
      for (const c of children(b, t.data, t.data + t.size!)) if (c.id === ID.name) voidElement(b, c.start);
    }
  } else if (id === ID.tags) {
    for (const tag of inner.filter((c) => c.id === ID.tag)) {
      for (const st of children(b, tag.data, tag.data + tag.size!)) {
        if (st.id !== ID.simpleTag) continue;
        const name = children(b, st.data, st.data + st.size!).find((c) => c.id === ID.tagName);
        const tagName = name ? b.toString('utf8', name.data, name.data + name.size!).replace(/\0+$/, '') : '';
        if (tagName !== 'DURATION') voidElement(b, st.start);
      }
    }
  }
}

export async function scrubMatroska(path: string): Promise<void> {
  const fh = await open(path, 'r+');
  try {
    const { size: fileSize } = await fh.stat();
    const head = await readAt(fh, 0, 64);
    const ebml = readElement(head, 0);
    if (!ebml || ebml.size === undefined || ebml.data + ebml.size >= fileSize) return;
    const segHead = await readAt(fh, ebml.data + ebml.size, 16);
    const seg = readElement(segHead, 0, ebml.data + ebml.size);
    if (!seg || seg.id !== ID.segment) return;
    const segEnd = seg.size === undefined ? fileSize : Math.min(fileSize, seg.data + seg.size);
    let pos = seg.data;
    while (pos < segEnd) {
      const h = await readAt(fh, pos, 16);
      const e = readElement(h, 0, pos);
      if (!e || e.size === undefined) break;
      const total = e.data - e.start + e.size;
      if (pos + total > segEnd) break;
      if ([ID.info, ID.tracks, ID.tags, ID.chapters, ID.attachments].includes(e.id) && total <= MAX_HEADER_BLOCK) {
        const block = await readAt(fh, pos, total);
        patchMatroskaBlock(block, e.id);
        await fh.write(block, 0, block.length, pos);
      }
      pos += total;
    }
  } finally {
    await fh.close();
  }
}
