// Hidden content: LSB steganalysis of lossless pictures (chi-square, RS, and at deep analysis
// Sample Pairs), bytes after the image's end marker, other file types inside or after it
// (archives, documents: polyglots), and unusual chunks. `suspected` is true on any evidence,
// false only when the pixel analysis ran and nothing structural was found, null otherwise.
import { inflateSync } from 'node:zlib';
import { analyseLsb } from '../steganalysis/index.ts';
import { layoutOf, signaturesIn } from '../container.ts';
import { frameSteganalysis } from '../video/frame-checks.ts';
import { finding, type Detector, type DetectorResult, type Finding, type TipMessage } from '../detector.ts';
import { gradeReason } from '../grade.ts';
import { listOf, type Message, type MessageId, type MessageValue } from '../../../i18n/findings-format.ts';
import { formatName } from '../../format-names.ts';

export interface HiddenContentVerdict {
  suspected: boolean | null;
  lsb: {
    suspected: boolean | null;
    /** 'strong' (the estimator families agree), 'weak' (one of them only: a low finding, not a
     *  suspicion), 'none', or null (no answer); absent on videos */
    evidence?: 'strong' | 'weak' | 'none' | null;
    payload_bpp: number | null;
    threshold_bpp: number | null;
    methods: { method: string; rate: number | null; detected: boolean | null }[];
  } | null;
  /** Bytes after the end marker; null when the container could not be walked. */
  appended_bytes: number | null;
  embedded: { type: string; offset: number; where: 'inside' | 'appended' }[];
  unusual_chunks: { type: string; size: number }[];
}

const NAME = 'hidden_content';
/** Formats whose pixels come back exactly as written: LSB analysis is meaningful only there. */
const LOSSLESS = new Set(['png', 'bmp', 'tiff', 'gif']);
const PNG_KNOWN = new Set('IHDR PLTE IDAT IEND tRNS cHRM gAMA iCCP sBIT sRGB cICP mDCV mDCv cLLI cLLi tEXt zTXt iTXt bKGD hIST pHYs sPLT eXIf tIME acTL fcTL fdAT oFFs pCAL sCAL sTER dSIG caBX iDOT vpAg'.split(' '));
const RIFF_KNOWN = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF', 'ICCP', 'EXIF', 'XMP ']);
const JPEG_KNOWN = /^(APP0:(JFIF|JFXX|AVI1)|APP1:(Exif|http:\/\/ns\.adobe\.com\/xap\/1\.0\/|http:\/\/ns\.adobe\.com\/xmp\/extension\/)|APP2:(ICC_PROFILE|MPF|FPXR)|APP11:JP|APP12:Ducky|APP13:Photoshop 3\.0|APP14:Adobe|COM)/;
/** Some writers name XMP's APP1 "XMP\0://ns.adobe.com/xap/1.0/" (sklearn's flower photo has 8 KB
 *  so): known when the segment does hold an XMP packet, not on the name alone. */
const XMP_PACKET = /<\?xpacket begin|<x:x[am]pmeta/;
/** A private chunk this large is room for a file, not for a setting. */
const BIG_CHUNK = 4096;
/** ImageMagick keeps EXIF, XMP, IPTC and ICC profiles in PNG text chunks as a hex dump
 *  ("\nexif\n   10592\n4578..."): metadata, like an EXIF segment in a JPEG, when it is one. */
const RAW_PROFILE = /^Raw profile type (exif|xmp|iptc|icc|icm|8bim|app1)$/i;
/** A text chunk is inflated at most this far to tell what it holds. */
const TEXT_PEEK = 1 << 20;

/** A large PNG text chunk that is a metadata profile by its keyword and its content. */
function isMetadataText(bytes: Buffer, offset: number, size: number, type: string): boolean {
  const body = bytes.subarray(offset + 8, offset + 8 + size);
  const nul = body.indexOf(0);
  if (nul < 1 || nul > 79) return false;
  const keyword = body.toString('latin1', 0, nul);
  let text: string;
  try {
    if (type === 'tEXt') text = body.toString('latin1', nul + 1);
    else if (type === 'zTXt') text = inflateSync(body.subarray(nul + 2), { maxOutputLength: TEXT_PEEK }).toString('latin1');
    else {
      // iTXt: compression flag, method, language tag and translated keyword, each NUL-ended
      const flag = body[nul + 1];
      const language = body.indexOf(0, nul + 3);
      const at = language < 0 ? -1 : body.indexOf(0, language + 1) + 1;
      if (at <= 0) return false;
      text = flag ? inflateSync(body.subarray(at), { maxOutputLength: TEXT_PEEK }).toString('utf8') : body.toString('utf8', at);
    }
  } catch {
    return false; // corrupt, or larger than any profile: not told apart from a file
  }
  if (keyword === 'XML:com.adobe.xmp') return XMP_PACKET.test(text.slice(0, 200));
  const m = RAW_PROFILE.test(keyword) ? /^\n\s*[a-z0-9]+\n\s*(\d+)\n([0-9a-f\s]*)$/i.exec(text) : null;
  return m !== null && m[2].replace(/\s/g, '').length === 2 * Number(m[1]);
}

/**
 * Samsung's SEF trailer, which its phones append after a JPEG's end (round 5 of the outside
 * corpus: the capture time as "Image_UTC_Data"): entries, then a directory that starts with
 * "SEFH", then the directory's length (little-endian) and "SEFT" as the file's last 8 bytes.
 * Recognised only when the whole tail is that: the directory lies inside the tail, its entries
 * point inside the data before it, and they cover it without a gap left for anything else.
 */
function isSamsungTrailer(tail: Buffer): boolean {
  const n = tail.length;
  if (n < 24 || tail.toString('latin1', n - 4) !== 'SEFT') return false;
  const dirLen = tail.readUInt32LE(n - 8);
  const dir = n - 8 - dirLen;
  if (dir < 0 || dirLen < 12 || tail.toString('latin1', dir, dir + 4) !== 'SEFH') return false;
  const count = tail.readUInt32LE(dir + 8);
  if (count < 1 || 12 + 12 * count > dirLen) return false;
  let covered = 0;
  for (let i = 0; i < count; i++) {
    const e = dir + 12 + 12 * i;
    // each entry: 2 bytes padding, 2 bytes type, 4 bytes offset back from the directory, 4 bytes length
    const back = tail.readUInt32LE(e + 4), len = tail.readUInt32LE(e + 8);
    if (back > dir || len > back) return false;
    covered += len;
  }
  return covered === dir;
}

export const hiddenContentDetector: Detector<HiddenContentVerdict> = {
  name: NAME,
  verdictOrder: 60,
  explainNoAnswerOnVideo: true,
  grade: {
    section: 'hidden_content',
    points: (v) => (v?.suspected === true ? [gradeReason(3, 'grade.hidden_content.suspected')] : []),
    unanswered: (v) => (v === null || v.suspected === null ? 'grade.check.hidden_content' : null),
    // one steganalysis family only: never points, but no A either
    noA: (v) => (v?.lsb?.evidence === 'weak' ? 'grade.hidden_content.weak' : null),
  },
  async run(input, options): Promise<DetectorResult<HiddenContentVerdict>> {
    const findings: Finding[] = [];
    const add = (severity: Finding['severity'], id: MessageId, values?: Record<string, MessageValue>, tip?: TipMessage) => findings.push(finding(NAME, severity, id, values, tip));
    const list = (items: Message[]) => listOf(items, 'finding.part.comma');
    const { format, kind } = input.probe;
    const bytes = await input.bytes();

    // ---- structure: end marker, appended data, embedded files, unusual chunks
    const layout = kind === 'image' ? layoutOf(format, bytes) : undefined;
    let appended: number | null = null;
    let expectedTail = false;
    const embedded: HiddenContentVerdict['embedded'] = [];
    const unusual: HiddenContentVerdict['unusual_chunks'] = [];
    if (layout) {
      appended = bytes.length - layout.end;
      for (const s of signaturesIn(bytes, layout.end)) embedded.push({ type: s.name, offset: s.offset, where: 'appended' });
      for (const s of signaturesIn(bytes, 0, layout.end)) if (s.offset > 0) embedded.push({ type: s.name, offset: s.offset, where: 'inside' });
      for (const c of layout.chunks) {
        const known = format === 'png' ? PNG_KNOWN.has(c.type) : format === 'webp' ? RIFF_KNOWN.has(c.type) : format === 'jpeg' ? JPEG_KNOWN.test(c.type) || (c.type === 'APP1:XMP' && XMP_PACKET.test(bytes.toString('latin1', c.offset, Math.min(c.offset + 200, bytes.length)))) : true;
        const bigText = (c.type === 'COM' || c.type === 'tEXt' || c.type === 'zTXt' || c.type === 'iTXt') && c.size > BIG_CHUNK && !(format === 'png' && isMetadataText(bytes, c.offset, c.size, c.type));
        if (!known || bigText) unusual.push({ type: c.type, size: c.size });
      }
      // phones and cameras append their MPF images (depth maps, previews) after the first EOI
      const mpf = format === 'jpeg' && appended > 0 && layout.chunks.some((c) => c.type === 'APP2:MPF') && bytes[layout.end] === 0xff && bytes[layout.end + 1] === 0xd8;
      // one byte value repeated (a newline an editor added, zero padding) carries nothing but its length
      const tail = appended > 0 ? bytes.subarray(layout.end) : null;
      const padding = tail !== null && (tail.every((b) => b === tail[0]) || (tail.length === 2 && tail[0] === 0x0d && tail[1] === 0x0a));
      if (mpf && !embedded.some((e) => e.where === 'appended')) {
        add('info', 'finding.hidden_content.mpf_images', { bytes: appended });
        expectedTail = true;
      } else if (format === 'jpeg' && tail && isSamsungTrailer(tail)) {
        add('info', 'finding.hidden_content.samsung_trailer', { bytes: appended });
        expectedTail = true;
      } else if (padding && tail) {
        const what: Message = tail.length === 2 && tail[0] === 0x0d ? { id: 'finding.hidden_content.part.line_break' } : { id: 'finding.hidden_content.part.repeated', values: { byte: `0x${tail[0].toString(16).padStart(2, '0')}` } };
        add('info', 'finding.hidden_content.padding', { bytes: appended, what });
        expectedTail = true;
      } else if (appended > 0) {
        const what = embedded.filter((e) => e.where === 'appended').map((e) => e.type);
        if (what.length) add('high', 'finding.hidden_content.appended_files', { bytes: appended, files: list(what.map((type) => ({ id: 'finding.hidden_content.part.a_file', values: { type } }))) }, 'tip.hidden_content.appended');
        else add('high', 'finding.hidden_content.appended', { bytes: appended }, 'tip.hidden_content.appended');
      }
      const inside = embedded.filter((e) => e.where === 'inside');
      if (inside.length) add('medium', 'finding.hidden_content.polyglot', { places: list(inside.map((e) => ({ id: 'finding.hidden_content.part.at_byte', values: { type: e.type, offset: e.offset } }))) }, 'tip.hidden_content.polyglot');
      if (unusual.length) add('medium', 'finding.hidden_content.unusual', { jpeg: format === 'jpeg' ? 'yes' : 'no', chunks: list(unusual.slice(0, 6).map((c) => ({ id: 'finding.hidden_content.part.chunk', values: { type: c.type, size: c.size } }))) }, 'tip.hidden_content.unusual');
    } else if (kind === 'image') {
      add('info', 'finding.hidden_content.not_walked', { format: formatName(format) });
    } else {
      add('info', 'finding.hidden_content.video_structure');
    }

    // ---- pixels: LSB replacement
    let lsb: HiddenContentVerdict['lsb'] = null;
    const lossless = LOSSLESS.has(format) || (format === 'webp' && layout?.chunks.some((c) => c.type === 'VP8L'));
    if (kind === 'image' && lossless && !input.probe.animated) {
      try {
        const v = analyseLsb(await input.pixels(), { samplePairs: options.depth === 'deep' });
        lsb = {
          suspected: v.suspected,
          evidence: v.evidence,
          payload_bpp: v.rate === null ? null : round(v.rate),
          threshold_bpp: v.thresholdBpp === null ? null : round(v.thresholdBpp),
          methods: v.estimates.map((e) => ({ method: e.method, rate: e.rate === null ? null : round(e.rate), detected: e.detected })),
        };
        // the figures as today's text shows them (a null estimate reads "null"); the notes are
        // the steganalysis' own words
        const figures = { payload: String(lsb.payload_bpp), threshold: String(lsb.threshold_bpp) };
        const notes = v.notes.join('; ');
        const notesAfter: MessageValue = v.notes.length ? { id: 'finding.hidden_content.part.notes', values: { notes } } : '';
        const busy: MessageValue = v.busy ? { id: 'finding.hidden_content.part.busy', values: { share: Math.round(100 * v.busy.share) } } : '';
        if (v.suspected) add('high', 'finding.hidden_content.lsb_suspected', { ...figures, busy, notes: notesAfter }, 'tip.hidden_content.lsb_suspected');
        else if (v.evidence === 'weak') add('low', 'finding.hidden_content.lsb_weak', { ...figures, notes }, 'tip.hidden_content.lsb_weak');
        else if (v.suspected === null) add('info', 'finding.hidden_content.lsb_no_answer', { notes });
        else add('info', 'finding.hidden_content.lsb_none', { ...figures, notes: notesAfter });
      } catch (err) {
        add('info', 'finding.hidden_content.lsb_failed', { error: (err as Error).message });
      }
    } else if (kind === 'image') {
      add('info', 'finding.hidden_content.lsb_not_lossless', { format: formatName(format), animated: input.probe.animated ? 'yes' : 'no' });
    } else {
      const frames = await frameSteganalysis(input, options);
      if (frames.lsb) lsb = frames.lsb;
      findings.push(...frames.findings);
    }

    const structural = appended !== null && appended > 0 && !expectedTail ? true : embedded.some((e) => e.where === 'inside') || unusual.some((c) => c.size > BIG_CHUNK);
    // a video's structure is not walked: its frames' LSB analysis is the whole answer there
    const suspected = lsb?.suspected === true || structural ? true : lsb?.suspected === false && (layout || kind === 'video') ? false : null;
    return { verdict: { suspected, lsb, appended_bytes: appended, embedded, unusual_chunks: unusual }, findings, assets: [] };
  },
};

const round = (n: number) => Math.round(n * 1000) / 1000;
