// Privacy exposure: what the file tells about who made it, where, when and with what. Each
// exposure is a finding with a severity; a position (GPS) is always high. Read with exiftool,
// which knows far more tag families than any library here.
import { runTool } from '../../tools.ts';
import { videoProbeFindings } from '../video/probe-findings.ts';
import { finding, type Detector, type DetectorResult, type Finding, type Severity, type Tags } from '../detector.ts';
import { gradeReason } from '../grade.ts';
import { listOf, type Message, type MessageId } from '../../../i18n/findings-format.ts';

export interface PrivacyVerdict {
  /** How many exposures were found, and the worst of them. */
  exposures: number;
  highest: Severity | null;
  categories: string[];
  gps: { latitude: number; longitude: number } | null;
}

const NAME = 'privacy';
const RANK: Record<Severity, number> = { info: 0, low: 1, medium: 2, high: 3 };

/** Tag families that are only about the encoding, never about people. */
const TECHNICAL_GROUPS = new Set(['ExifTool', 'File', 'Composite', 'JFIF', 'APP14', 'MPF0', 'MPImage1', 'MPImage2', 'RIFF', 'QuickTime', 'Track1', 'Track2', 'Matroska']);
const PNG_TECHNICAL = /^PNG:(ImageWidth|ImageHeight|BitDepth|ColorType|Compression|Filter|Interlace|Gamma|SRGBRendering|PixelsPerUnit[XY]|PixelUnits|WhitePoint[XY]|Red[XY]|Green[XY]|Blue[XY]|Palette|Transparency|BackgroundColor|SignificantBits|ModifyDate|ImageHeader)$/;

interface Rule {
  category: string;
  severity: Severity;
  match: (key: string) => boolean;
  label: (hits: [string, unknown][]) => Message;
  tip: MessageId;
}

const short = (v: unknown) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};
const tagName = (k: string) => k.slice(k.indexOf(':') + 1);
/** The first n tags ("Make: Canon; Model: EOS 5D") and how many more: the values of the
 *  findings that list tags. */
const list = (hits: [string, unknown][], n = 4) => ({ tags: hits.slice(0, n).map(([k, v]) => `${tagName(k)}: ${short(v)}`).join('; '), more: Math.max(0, hits.length - n) });
/** A rule's finding message: its category's catalogue entry, with the tags listed. */
const listed = (id: MessageId, n?: number) => (h: [string, unknown][]): Message => ({ id, values: list(h, n) });

const RULES: Rule[] = [
  {
    category: 'serial_numbers',
    severity: 'high',
    match: (k) => /SerialNumber|ImageUniqueID|BodySerial|InternalSerial|CameraID$|DeviceSerial/i.test(k),
    label: listed('finding.privacy.serial_numbers'),
    tip: 'tip.privacy.serial_numbers',
  },
  {
    category: 'owner',
    severity: 'high',
    match: (k) => /:(Artist|OwnerName|CameraOwnerName|Creator|By-line|Author|XPAuthor|Writer-Editor|Credit|Contact|CreatorContactInfo|CreatorWorkEmail|CreatorWorkTelephone|CreatorAddress|AuthorsPosition|Rights|Copyright|CopyrightNotice|Owner)$/i.test(k),
    label: listed('finding.privacy.owner'),
    tip: 'tip.privacy.owner',
  },
  {
    category: 'camera',
    severity: 'medium',
    match: (k) => /^(IFD0|XMP-tiff|ExifIFD|XMP-aux|XMP-exifEX):(Make|Model|LensModel|LensMake|Lens|LensInfo|LensID|UniqueCameraModel)$/i.test(k),
    label: listed('finding.privacy.camera'),
    tip: 'tip.privacy.camera',
  },
  {
    category: 'maker_notes',
    severity: 'medium',
    match: (k) => /^(MakerNotes|Canon|Nikon|Sony|Apple|Samsung|Olympus|Panasonic|Pentax|Fujifilm|FujiFilm|Ricoh|Google|Huawei|Xiaomi|DJI|GoPro|Leica|Minolta|Sigma|Kodak|Casio|Sanyo|Motorola)[A-Za-z0-9]*:/.test(k),
    label: (h) => ({ id: 'finding.privacy.maker_notes', values: { count: h.length } }),
    tip: 'tip.privacy.maker_notes',
  },
  {
    category: 'dates',
    severity: 'low',
    match: (k) => /:(DateTimeOriginal|CreateDate|DateCreated|DateTimeCreated|DigitalCreationDate|DigitalCreationTime|TimeCreated|SubSecDateTimeOriginal|MetadataDate|ModifyDate|OffsetTime|OffsetTimeOriginal)$/.test(k) && !k.startsWith('PNG:'),
    label: listed('finding.privacy.dates', 3),
    tip: 'tip.privacy.dates',
  },
  {
    category: 'software',
    severity: 'low',
    match: (k) => /:(Software|CreatorTool|ProcessingSoftware|HostComputer|HistorySoftwareAgent|Originating Program|OriginatingProgram|ProgramVersion)$/i.test(k),
    label: listed('finding.privacy.software'),
    tip: 'tip.privacy.software',
  },
  {
    category: 'editing_history',
    severity: 'medium',
    match: (k) => k.startsWith('XMP-xmpMM:') || k.startsWith('XMP-photoshop:DocumentAncestors') || k.startsWith('XMP-crs:') || k.startsWith('XMP-lr:'),
    label: (h) => ({ id: 'finding.privacy.editing_history', values: { count: h.length, names: [...new Set(h.map(([k]) => tagName(k)))].slice(0, 5).join(', ') } }),
    tip: 'tip.privacy.editing_history',
  },
  {
    category: 'iptc',
    severity: 'medium',
    match: (k) => k.startsWith('IPTC:') || k.startsWith('XMP-iptcCore:') || k.startsWith('XMP-iptcExt:') || /^XMP-photoshop:(City|State|Country|Headline|Instructions|Source|TransmissionReference|CaptionWriter)$/.test(k) || /^XMP-dc:(Description|Title|Subject)$/.test(k),
    label: listed('finding.privacy.iptc'),
    tip: 'tip.privacy.iptc',
  },
  {
    category: 'comments',
    severity: 'low',
    match: (k) => /:(Comment|UserComment|XPComment|ImageDescription|XPSubject|XPKeywords|XPTitle)$/.test(k) && !k.startsWith('PNG:'),
    label: listed('finding.privacy.comments'),
    tip: 'tip.privacy.comments',
  },
  {
    category: 'png_text',
    severity: 'low',
    match: (k) => k.startsWith('PNG:') && !PNG_TECHNICAL.test(k),
    label: listed('finding.privacy.png_text'),
    tip: 'tip.privacy.png_text',
  },
  {
    category: 'colour_profile',
    severity: 'info',
    match: (k) => k.startsWith('ICC_Profile:') || k.startsWith('ICC-header:') || k.startsWith('ICC-meas:') || k.startsWith('ICC-view:'),
    label: (h) => {
      const desc = h.find(([k]) => /ProfileDescription$/.test(k));
      return desc ? { id: 'finding.privacy.colour_profile_named', values: { description: short(desc[1]) } } : { id: 'finding.privacy.colour_profile' };
    },
    tip: 'tip.privacy.colour_profile',
  },
];

export const privacyDetector: Detector<PrivacyVerdict> = {
  name: NAME,
  verdictOrder: 50,
  explainNoAnswerOnVideo: true,
  grade: {
    section: 'privacy',
    points: (v) =>
      v?.highest === 'high'
        ? [gradeReason(2, 'grade.privacy.high')]
        : v?.highest === 'medium'
          ? [gradeReason(1, 'grade.privacy.medium')]
          : [],
  },
  async run(input, options): Promise<DetectorResult<PrivacyVerdict>> {
    let tags: Tags;
    try {
      tags = await input.tags();
    } catch {
      return { verdict: null, findings: [finding(NAME, 'info', 'finding.privacy.unreadable')], assets: [] };
    }
    const findings: Finding[] = [];
    const categories: string[] = [];
    const claimed = new Set<string>();
    const entries = Object.entries(tags).filter(([k, v]) => !TECHNICAL_GROUPS.has(k.slice(0, k.indexOf(':'))) && v !== '' && v !== null);

    // GPS first: the one exposure that is always high
    const gpsKeys = entries.filter(([k]) => /^(GPS|XMP-exif|QuickTime|Keys|UserData|ItemList):GPS|^GPS:/.test(k) || /GPSCoordinates|GPSPosition|Location(ISO6709)?$/.test(k));
    const lat = num(tags['Composite:GPSLatitude'] ?? tags['GPS:GPSLatitude'] ?? tags['XMP-exif:GPSLatitude']);
    const lon = num(tags['Composite:GPSLongitude'] ?? tags['GPS:GPSLongitude'] ?? tags['XMP-exif:GPSLongitude']);
    const iso6709 = gpsKeys.map(([, v]) => (typeof v === 'string' ? /^([+-]\d+(?:\.\d+)?)([+-]\d+(?:\.\d+)?)/.exec(v) : null)).find(Boolean);
    let gps: PrivacyVerdict['gps'] = null;
    if (lat !== undefined && lon !== undefined) gps = { latitude: lat, longitude: lon };
    else if (iso6709) gps = { latitude: Number(iso6709[1]), longitude: Number(iso6709[2]) };
    if (gps || gpsKeys.length) {
      categories.push('gps');
      for (const [k] of gpsKeys) claimed.add(k);
      findings.push(
        gps
          ? finding(NAME, 'high', 'finding.privacy.gps_position', { latitude: gps.latitude.toFixed(4), longitude: gps.longitude.toFixed(4) }, 'tip.privacy.gps')
          : finding(NAME, 'high', 'finding.privacy.gps_fields', { fields: gpsKeys.slice(0, 4).map(([k]) => tagName(k)).join(', ') }, 'tip.privacy.gps'),
      );
    }

    for (const rule of RULES) {
      const hits = entries.filter(([k]) => !claimed.has(k) && rule.match(k));
      if (!hits.length) continue;
      for (const [k] of hits) claimed.add(k);
      categories.push(rule.category);
      const m = rule.label(hits);
      findings.push(finding(NAME, rule.severity, m.id, m.values, rule.tip));
    }

    // Embedded thumbnails and previews: an exposure, and worse when they show another picture
    const thumbs = (['ThumbnailImage', 'PreviewImage', 'JpgFromRaw', 'OtherImage'] as const).filter((t) => Object.keys(tags).some((k) => tagName(k) === t || tagName(k) === `${t}Length` || tagName(k) === t.replace('Image', 'Length')));
    if (thumbs.length) {
      categories.push('thumbnail');
      const differs = await thumbnailDiffers(input, options);
      findings.push(
        differs
          ? finding(NAME, 'high', 'finding.privacy.thumbnail_differs', undefined, 'tip.privacy.thumbnail_differs')
          : finding(NAME, 'low', 'finding.privacy.thumbnail', { kinds: listOf(thumbs.map((t) => ({ id: `finding.privacy.part.${t}` })), 'finding.part.and') }, 'tip.privacy.thumbnail'),
      );
    }

    // a video's container tags (exiftool's QuickTime group is left out above as technical)
    if (input.probe.kind === 'video') {
      const video = await videoProbeFindings(input, options).catch(() => null);
      if (!video) findings.push(finding(NAME, 'info', 'finding.privacy.video_tags_unreadable'));
      for (const f of video?.findings ?? []) {
        const category = video!.categories[video!.findings.indexOf(f)];
        // a position exiftool already found is not reported twice
        if (category === 'gps' && categories.includes('gps')) continue;
        if (category && !categories.includes(category)) categories.push(category);
        findings.push(f);
      }
      if (!gps && video?.gps) gps = video.gps;
    }

    const highest = findings.reduce<Severity | null>((m, f) => (m === null || RANK[f.severity] > RANK[m] ? f.severity : m), null);
    const exposures = findings.filter((f) => f.severity !== 'info').length;
    if (!findings.length) findings.push(finding(NAME, 'info', 'finding.privacy.none'));
    return { verdict: { exposures, highest: exposures ? highest : null, categories, gps }, findings, assets: [] };
  },
};

function num(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** Compares the EXIF thumbnail with the picture at 16x16 grey; true when clearly different. */
async function thumbnailDiffers(input: Parameters<Detector<unknown>['run']>[0], options: Parameters<Detector<unknown>['run']>[1]): Promise<boolean> {
  try {
    const r = await runTool('exiftool', ['-b', '-ThumbnailImage', '--', input.path], { signal: options.signal, onSpawn: options.onSpawn, onReap: options.onReap, timeoutMs: 30_000, maxStdout: 4 << 20 });
    if (r.code !== 0 || r.stdout.length < 100) return false;
    const sharp = (await import('sharp')).default;
    const small = (img: Parameters<typeof sharp>[0], raw?: { width: number; height: number; channels: 1 | 2 | 3 | 4 }) =>
      sharp(img as Buffer, raw ? { raw } : {}).resize(16, 16, { fit: 'fill' }).greyscale().raw().toBuffer();
    const px = await input.pixels();
    const [a, b] = await Promise.all([small(r.stdout), small(Buffer.from(px.data.buffer, px.data.byteOffset, px.data.length), { width: px.width, height: px.height, channels: px.channels })]);
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff += Math.abs(a[i] - b[i]);
    return diff / a.length > 20; // same picture: a few levels of JPEG and scaling noise
  } catch {
    return false;
  }
}
