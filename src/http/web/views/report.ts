// The analyse report. A check that gave no answer is never shown as clean: null stays
// "no answer", in its own style, everywhere, except a field of an answered check that is null
// because the file does not carry it (no GPS position, no signer): that reads "not present".
import { nullMeaning, type NullMeaning } from '../../../media/analyse/null-fields.ts';
import { formatName } from '../../../media/format-names.ts';
import { html, type Html } from '../html.ts';
import { inFormWords } from './form-words.ts';
import { jobSummary, type JobInfo } from './job.ts';
import { humanBytes, words } from './parts.ts';
import { ENGLISH, type MessageKey, type Words } from '../words.ts';
import { FINDINGS_CATALOGUES } from '../../../i18n/catalogues/index.ts';
import { formatMessage, type Message } from '../../../i18n/findings-format.ts';

export interface AnalyseAsset {
  asset_id: string;
  category: string;
  mime_type: string;
  file_size?: number;
}

/** One file of an analyse result as the API returns it; verdict objects vary, so loosely typed. */
export type AnalyseItem = Record<string, unknown> & {
  name?: string;
  grade?: string | null;
  grade_reasons?: { points: number; reason: string; message?: Message }[];
  face_count?: number | null;
  text_region_count?: number | null;
  watermark_flagged?: boolean | null;
  steganography_suspected?: boolean | null;
  media?: { kind?: string; format?: string; width?: number; height?: number; duration_s?: number } & Record<string, unknown>;
  verdicts?: Record<string, unknown> & { findings?: Finding[] };
  assets?: AnalyseAsset[];
  error?: string;
  message?: string;
};

interface Finding {
  detector?: string;
  severity: string;
  label: string;
  tip?: string;
  /** the label's and the tip's messages, to say them in the page's language (reports stored
   *  before the messages existed have none: their English stays) */
  message?: Message;
  tipMessage?: Message;
}

/** A message in the page's language; the English text when the page is English, when there is
 *  no message, or when the catalogue cannot say it (a report stored by an older release). */
function inLanguage(w: Words, english: string, message: Message | undefined): string {
  if (!message || w.lang === 'en') return english;
  try {
    return formatMessage(w.tag, FINDINGS_CATALOGUES[w.lang], message);
  } catch {
    return english;
  }
}

const SEVERITIES = ['high', 'medium', 'low', 'info'];

const SEVERITY_HEADINGS: Record<string, MessageKey> = { high: 'report.severity.high', medium: 'report.severity.medium', low: 'report.severity.low', info: 'report.severity.info' };
const SEVERITY_BADGES: Record<string, MessageKey> = { high: 'report.sev.high', medium: 'report.sev.medium', low: 'report.sev.low', info: 'report.sev.info' };

const VERDICT_WORDS: Record<string, MessageKey> = {
  ai_generation: 'report.check.ai_generation',
  c2pa: 'report.check.c2pa',
  camera_fingerprint: 'report.check.camera_fingerprint',
  forensic: 'report.check.forensic',
  privacy: 'report.check.privacy',
  hidden_content: 'report.check.hidden_content',
  faces: 'report.check.faces',
  text: 'report.check.text',
  watermark: 'report.check.watermark',
  video_tamper: 'report.check.video_tamper',
  audio_splice: 'report.check.audio_splice',
};

const ASSET_WORDS: Record<string, MessageKey> = {
  display_image: 'report.asset.display_image',
  ela_map: 'report.asset.ela_map',
  forensic_noise_map: 'report.asset.forensic_noise_map',
  faces: 'report.asset.faces',
};

/** The verdicts' fields the page shows (scalars); a field not named here is shown by its API name. */
const FIELD_WORDS: Record<string, MessageKey> = {
  gps: 'report.field.gps',
  highest: 'report.field.highest',
  verdict: 'report.field.verdict',
  applicable: 'report.field.applicable',
  has_manifest: 'report.field.has_manifest',
  trusted: 'report.field.trusted',
  claim_generator: 'report.field.claim_generator',
  signer: 'report.field.signer',
  signed_at: 'report.field.signed_at',
  digital_source_type: 'report.field.digital_source_type',
  validation_errors: 'report.field.validation_errors',
  matched: 'report.field.matched',
  encoder_name: 'report.field.encoder_name',
  encoder_family: 'report.field.encoder_family',
  quality_level: 'report.field.quality_level',
  quality_fit_rms: 'report.field.quality_fit_rms',
  make: 'report.field.make',
  model: 'report.field.model',
  software: 'report.field.software',
  process: 'report.field.process',
  progressive: 'report.field.progressive',
  arithmetic_coding: 'report.field.arithmetic_coding',
  subsampling: 'report.field.subsampling',
  optimised_huffman: 'report.field.optimised_huffman',
  app_segments: 'report.field.app_segments',
  comments: 'report.field.comments',
  restart_interval: 'report.field.restart_interval',
  truncated: 'report.field.truncated',
  trailing_bytes: 'report.field.trailing_bytes',
  double_compressed: 'report.field.double_compressed',
  double_compression_confidence: 'report.field.double_compression_confidence',
  estimated_first_quality: 'report.field.estimated_first_quality',
  estimated_first_family: 'report.field.estimated_first_family',
  double_compression_note: 'report.field.double_compression_note',
  score: 'report.field.score',
  exposures: 'report.field.exposures',
  categories: 'report.field.categories',
  suspected: 'report.field.suspected',
  appended_bytes: 'report.field.appended_bytes',
  count: 'report.field.count',
  threshold: 'report.field.threshold',
  time_s: 'report.field.time_s',
  region_count: 'report.field.region_count',
  text: 'report.field.text',
  flagged: 'report.field.flagged',
  reason: 'report.field.reason',
  frames_read: 'report.field.frames_read',
  keyframes: 'report.field.keyframes',
  seconds_read: 'report.field.seconds_read',
  regions: 'report.field.regions',
  frames: 'report.field.frames',
  ela: 'report.field.ela',
  noise: 'report.field.noise',
  clone: 'report.field.clone',
  lsb: 'report.field.lsb',
  embedded: 'report.field.embedded',
  unusual_chunks: 'report.field.unusual_chunks',
  boxes: 'report.field.boxes',
  invisible: 'report.field.invisible',
  declared: 'report.field.declared',
  visible: 'report.field.visible',
  signals: 'report.field.signals',
};

/** The verdicts' answers that are codes. */
const VALUE_WORDS: Record<string, MessageKey> = {
  declared_aigc: 'report.value.declared_aigc',
  possible_aigc: 'report.value.possible_aigc',
  no_indication: 'report.value.no_indication',
  valid: 'report.value.valid',
  invalid: 'report.value.invalid',
  likely_manipulated: 'report.value.likely_manipulated',
  possibly_manipulated: 'report.value.possibly_manipulated',
  none: 'report.none',
  // a check that does not apply says why in the API's words (media/analyse/detectors/*)
  'Only videos are checked for frame-timing and scene breaks.': 'report.reason.videoOnly',
  'Only the audio of videos is checked for splices.': 'report.reason.audioOnly',
};

const NULL_WORDS: Record<NullMeaning, MessageKey> = { absent: 'report.null.absent', none: 'report.none', not_applicable: 'report.null.not_applicable', unrecognised: 'report.null.unrecognised' };

/** A known key's words, else the API name made readable (the API's own names are English). */
const wordsOr = (w: Words, table: Record<string, MessageKey>, key: string): string => (Object.hasOwn(table, key) ? w.t(table[key]) : words(key));

function noAnswer(w: Words): Html {
  return html`<span class="no-answer">${w.t('report.noAnswer')}</span>`;
}

function yesNo(v: boolean | null | undefined, w: Words): Html | string {
  return v === null || v === undefined ? noAnswer(w) : v ? w.t('report.yes') : w.t('report.no');
}

function count(v: number | null | undefined, w: Words): Html | string {
  return v === null || v === undefined ? noAnswer(w) : String(v);
}

function scalar(v: unknown, w: Words): Html | string | null {
  if (v === null) return noAnswer(w);
  if (isPosition(v)) return html`<bdi dir="ltr">${v.latitude}, ${v.longitude}</bdi>`;
  if (typeof v === 'boolean') return v ? w.t('report.yes') : w.t('report.no');
  if (v === '') return w.t('report.none');
  if (typeof v === 'string' && Object.hasOwn(VALUE_WORDS, v)) return w.t(VALUE_WORDS[v]);
  // other API codes such as "baseline_huffman" read better as words
  if (typeof v === 'string') return /^[a-z]+(_[a-z0-9]+)+$/.test(v) ? v.replace(/_/g, ' ') : v;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return v.length ? v.join(', ') : w.t('report.none');
  return null; // nested objects: too detailed for this page (the API has them)
}

function isPosition(v: unknown): v is { latitude: number; longitude: number } {
  return typeof v === 'object' && v !== null && typeof (v as { latitude?: unknown }).latitude === 'number' && typeof (v as { longitude?: unknown }).longitude === 'number';
}

function isNoAnswer(v: unknown): boolean {
  if (v === null || v === undefined || typeof v !== 'object') return true;
  const o = v as Record<string, unknown>;
  // the hidden-content check answers through `suspected`; null there is "could not tell"
  return o.applicable === false || ('verdict' in o && o.verdict === null) || ('suspected' in o && o.suspected === null);
}

function verdictSection(key: string, v: unknown, w: Words): Html {
  const title = wordsOr(w, VERDICT_WORDS, key);
  const answered = !isNoAnswer(v);
  const rows =
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => {
          const meaning = x === null && answered ? nullMeaning(key, k, v as Record<string, unknown>) : undefined;
          const shown = meaning ? w.t(NULL_WORDS[meaning]) : scalar(x, w);
          return shown === null ? [] : [html`<dt>${wordsOr(w, FIELD_WORDS, k)}</dt><dd>${shown}</dd>`];
        })
      : [];
  return html`<section class="verdict">
<h4>${title}</h4>
${answered ? null : html`<p class="no-answer">${w.t('report.noAnswer.text')}</p>`}
${rows.length ? html`<dl class="facts small">${rows}</dl>` : null}
</section>`;
}

function findings(list: Finding[], w: Words): Html {
  if (!list.length) return html`<p>${w.t('report.noFindings')}</p>`;
  const order = [...SEVERITIES, ...new Set(list.map((f) => f.severity).filter((s) => !SEVERITIES.includes(s)))];
  return html`${order.map((sev) => {
    const group = list.filter((f) => f.severity === sev);
    if (!group.length) return null;
    return html`<h4>${wordsOr(w, SEVERITY_HEADINGS, sev)} <span class="count">(${group.length})</span></h4>
<ul class="findings">
${group.map(
  (f) =>
    html`<li class="finding"><span class="sev sev-${sev}">${Object.hasOwn(SEVERITY_BADGES, sev) ? w.t(SEVERITY_BADGES[sev]) : sev}</span> ${inFormWords(inLanguage(w, f.label, f.message), w)}${
      f.tip ? html`<p class="tip"><strong>${w.t('report.tip')}</strong> ${inFormWords(inLanguage(w, f.tip, f.tipMessage), w)}</p>` : null
    }</li>\n`,
)}</ul>`;
  })}`;
}

/** Each picture's text alternative says what it is and which file it was made from. */
function assets(list: AnalyseAsset[], name: string, href: (id: string) => string, w: Words): Html {
  return html`${list.map((a) => {
    const title = wordsOr(w, ASSET_WORDS, a.category);
    const size = a.file_size !== undefined ? ` (${humanBytes(a.file_size, w)})` : '';
    if (!a.mime_type.startsWith('image/')) return html`<p><a href="${href(a.asset_id)}" download>${title}</a>${size}</p>`;
    return html`<figure>
<img src="${href(a.asset_id)}" alt="${w.t('report.asset.alt', { what: title, name })}">
<figcaption>${title}${size}. <a href="${href(a.asset_id)}" download>${w.t('report.download')}</a></figcaption>
</figure>`;
  })}`;
}

const MEDIA_WORDS: Record<string, MessageKey> = { image: 'report.media.image', video: 'report.media.video' };

function mediaLine(m: AnalyseItem['media'], w: Words): Html | null {
  if (!m) return null;
  const parts = [m.kind ? wordsOr(w, MEDIA_WORDS, m.kind) : null, m.format ? formatName(m.format) : null, m.width && m.height ? `${m.width}×${m.height}` : null].filter(Boolean);
  return html`<p class="meta">${parts.join(', ')}</p>`;
}

function itemView(item: AnalyseItem, i: number, href: (id: string) => string, w: Words): Html {
  const { t } = w;
  const name = item.name ?? t('report.file', { n: i + 1 });
  const id = `file-${i + 1}`;
  if (item.error || !item.grade) {
    return html`<article class="item" aria-labelledby="${id}">
<h2 id="${id}">${name}</h2>
<div class="notice notice-error"><p>${t('report.failed', { reason: item.message ?? t('report.noReason') })}${item.error ? html` <small class="code">(${item.error})</small>` : null}</p></div>
</article>`;
  }
  const verdicts = item.verdicts ?? {};
  const keys = Object.keys(verdicts).filter((k) => k !== 'findings');
  const reasons = item.grade_reasons ?? [];
  return html`<article class="item" aria-labelledby="${id}">
<h2 id="${id}">${name}</h2>
${mediaLine(item.media, w)}
<section class="summary">
<h3>${t('report.grade')}</h3>
<p class="grade grade-${item.grade}"><span class="visually-hidden">${t('report.gradeIs')}</span>${item.grade}</p>
${
  reasons.length
    ? html`<ul class="reasons">${reasons.map((r) => html`<li>${inLanguage(w, r.reason, r.message)}${r.points ? html` <span class="points">${t('report.points', { points: r.points })}</span>` : null}</li>`)}</ul>`
    : html`<p>${t('report.nothingLowered')}</p>`
}
<dl class="facts counts">
<dt>${t('report.faces')}</dt><dd>${count(item.face_count, w)}</dd>
<dt>${t('report.textRegions')}</dt><dd>${count(item.text_region_count, w)}</dd>
<dt>${t('report.watermark')}</dt><dd>${yesNo(item.watermark_flagged, w)}</dd>
<dt>${t('report.stego')}</dt><dd>${yesNo(item.steganography_suspected, w)}</dd>
</dl>
</section>
<section>
<h3>${t('report.findings')}</h3>
${findings(verdicts.findings ?? [], w)}
</section>
<section>
<h3>${t('report.checks')}</h3>
<p class="hint">${t('report.empties')}</p>
${keys.map((k) => verdictSection(k, verdicts[k], w))}
</section>
${
  item.assets?.length
    ? html`<section>
<h3>${t('report.pictures')}</h3>
${assets(item.assets, name, href, w)}
</section>`
    : null
}
</article>`;
}

export function analyseReportView(v: { job: JobInfo; items: AnalyseItem[]; assetHref: (assetId: string) => string; words?: Words }): Html {
  const w = v.words ?? ENGLISH;
  return html`<h1>${w.t('report.heading')}</h1>
${jobSummary(v.job, w)}
${v.items.map((item, i) => itemView(item, i, v.assetHref, w))}
<p><a href="/analyse">${w.t('report.more')}</a></p>
`;
}
