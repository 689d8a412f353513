// The one interface every analyse detector shares: (probed input, options) -> verdict, findings,
// assets. A verdict of null means "no answer" (the check did not apply or could not run); it is
// never read as clean, and it always comes with a finding that says why.
import { say, type Message, type MessageId, type MessageValue } from '../../i18n/findings-format.ts';
import type { MediaLimits } from '../limits.ts';
import type { Probe } from '../probe.ts';
import type { FaceDetection } from './faces/detect.ts';
import type { GradeRule } from './grade.ts';
import type { PixelImage } from './steganalysis/types.ts';
import type { TextReading } from './text/types.ts';

export type Severity = 'info' | 'low' | 'medium' | 'high';

export interface Finding {
  /** Plain language, for people: "GPS position recorded (46.52, 6.63)". English: the API's. */
  label: string;
  severity: Severity;
  /** The detector that made it. */
  detector: string;
  /** A short, actionable sentence (the v1 interface shows it when enableTips is set). */
  tip?: string;
  /** The label as a message (catalogue id and values), for the pages to say in their
   *  language; label is its English text. Kept in the stored report, left out of the API. */
  message: Message;
  /** The tip as a message, when there is a tip. */
  tipMessage?: Message;
}

/** A tip: its catalogue id alone, or with values. */
export type TipMessage = MessageId | Message;

/** A finding made from catalogue messages: the English label and tip are formatted from them. */
export function finding(detector: string, severity: Severity, id: MessageId, values?: Record<string, MessageValue>, tip?: TipMessage): Finding {
  const label = say(id, values);
  const f: Finding = { detector, severity, label: label.text, message: label.message };
  if (tip) {
    const t = typeof tip === 'string' ? say(tip) : say(tip.id, tip.values);
    f.tip = t.text;
    f.tipMessage = t.message;
  }
  return f;
}

export type AssetCategory = 'display_image' | 'ela_map' | 'forensic_noise_map' | 'forensic_clone' | 'faces' | 'text_regions';

/** A picture a detector made, written into the job's scratch folder (stripped, 8-bit). */
export interface AssetFile {
  category: AssetCategory;
  path: string;
  mime: string;
}

export interface DetectorResult<V> {
  verdict: V | null;
  findings: Finding[];
  assets: AssetFile[];
}

export interface AnalyseOptions {
  /** 'deep' adds the costlier checks (copy-move, Sample Pairs, full-resolution maps). */
  depth: 'standard' | 'deep';
  /** Where detectors write their assets (a private scratch folder). */
  outDir: string;
  signal?: AbortSignal;
  onSpawn?: (pid: number) => void;
  onReap?: (pid: number) => void;
  /** Waits for the memory the analysis needs (the worker's; direct calls have no budget). */
  admit?: (bytes: number) => Promise<void>;
  /** PEM certificates of trusted C2PA signers; empty: nothing is trusted. */
  c2paTrustAnchors?: string;
  /** The media limits, for readings a detector makes itself (a video's sampled frames). */
  limits?: MediaLimits;
  /** Face detection: off when the user did not ask for it; sensitivity 0..1 picks the detector
   *  (tiny below 0.5, SSD from 0.5) and lowers the score threshold. Absent: on, at 0.5. */
  faces?: { enabled: boolean; sensitivity: number };
  /** Text detection: off when the user did not ask for it. Absent: on. recycleAfter:
   *  recognitions a tesseract worker does before it is replaced (OBSCURA_OCR_RECYCLE_AFTER). */
  text?: { enabled: boolean; recycleAfter?: number };
}

/** Metadata tags as exiftool reports them with -G1: "EXIF:Make", "XMP-iptcExt:DigitalSourceType", ... */
export type Tags = Record<string, unknown>;

/**
 * The file under analysis. Costly readings are made once, on first use, and shared: several
 * detectors need the pixels or the metadata.
 */
export interface AnalyseInput {
  path: string;
  probe: Probe;
  /** The whole file (it was size-checked at upload). */
  bytes(): Promise<Buffer>;
  /** Decoded 8-bit pixels as displayed (orientation applied; first frame of a video or an
   *  animation); rejects for a file sharp cannot decode. */
  pixels(): Promise<PixelImage>;
  /** exiftool -G1 -a -n -u tags (without the System group); rejects when exiftool cannot read the file. */
  tags(): Promise<Tags>;
  /** Faces in pixels() (at options.faces' sensitivity), detected once and shared (faces
   *  detector, redaction, video frames); rejects when detection cannot run. */
  faces(): Promise<FaceDetection>;
  /** Lines of text OCR read in pixels() (boxes in its pixels, text, confidence) and the whole
   *  text, read once and shared (text detector, visible watermarks); rejects when OCR cannot run. */
  text(): Promise<TextReading>;
}

/**
 * A detector, with everything the pipeline (index.ts) needs to know about it: adding one is
 * writing its file and listing it in DETECTORS.
 */
export interface Detector<V> {
  /** snake_case: the key of its verdict under the file's `verdicts`, its timing's key, and
   *  the `detector` of its findings. Unique among the detectors. */
  name: string;
  /** Where its verdict stands among the file's `verdicts` (ascending; the report page shows
   *  the checks in this order). Independent of the order the detectors run in. */
  verdictOrder: number;
  /** Videos: a null verdict (no answer) is shown as { applicable: false, reason } with the
   *  detector's first finding as the reason, since clients read its fields on videos. */
  explainNoAnswerOnVideo?: boolean;
  /** Its part of the A-F grade (grade.ts adds the parts up); absent: it never moves the grade. */
  grade?: GradeRule<V>;
  run(input: AnalyseInput, options: AnalyseOptions): Promise<DetectorResult<V>>;
}

/** The answer of a detector that does not apply or could not run. */
export function noAnswer<V>(detector: string, why: MessageId | Message, severity: Severity = 'info'): DetectorResult<V> {
  const m = typeof why === 'string' ? { id: why } : why;
  return { verdict: null, findings: [finding(detector, severity, m.id, m.values)], assets: [] };
}
