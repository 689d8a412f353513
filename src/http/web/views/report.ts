// The analyse report. A check that gave no answer is never shown as clean: null stays
// "no answer", in its own style, everywhere, except a field of an answered check that is null
// because the file does not carry it (no GPS position, no signer): that reads "not present".
import { nullMeaning, type NullMeaning } from '../../../media/analyse/null-fields.ts';
import { html, type Html } from '../html.ts';
import { inFormWords } from './form-words.ts';
import { jobSummary, type JobInfo } from './job.ts';
import { humanBytes, words } from './parts.ts';

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
  grade_reasons?: { points: number; reason: string }[];
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
}

const SEVERITIES = ['high', 'medium', 'low', 'info'];

const VERDICT_WORDS: Record<string, string> = {
  ai_generation: 'AI generation',
  c2pa: 'C2PA provenance',
  camera_fingerprint: 'Camera and encoder fingerprint',
  forensic: 'Signs of editing (forensic analysis)',
  privacy: 'Identifying metadata',
  hidden_content: 'Hidden content (steganography)',
  faces: 'Faces',
  text: 'Readable text',
  watermark: 'Watermarks',
  video_tamper: 'Video tampering',
  audio_splice: 'Audio splices',
};

const ASSET_WORDS: Record<string, string> = {
  display_image: 'The picture as analysed',
  ela_map: 'Error level analysis map',
  forensic_noise_map: 'Noise consistency map',
  faces: 'Faces found, boxed',
};

const FIELD_WORDS: Record<string, string> = { gps: 'GPS position', highest: 'Most serious exposure' };

const NO_ANSWER_TEXT = 'No answer — this check could not run or did not apply; it is not a clean result.';

/** What the two kinds of empty mean, once above the checks. */
const EMPTY_WORDS = '“No answer”: the check could not run on this file (or does not apply to it), so it says nothing either way. “Not present”: the check ran and the file does not carry this detail.';

const NULL_WORDS: Record<NullMeaning, string> = { absent: 'not present', none: 'none', not_applicable: 'does not apply', unrecognised: 'not recognised' };

function noAnswer(text = 'no answer'): Html {
  return html`<span class="no-answer">${text}</span>`;
}

function yesNo(v: boolean | null | undefined): Html | string {
  return v === null || v === undefined ? noAnswer() : v ? 'yes' : 'no';
}

function count(v: number | null | undefined): Html | string {
  return v === null || v === undefined ? noAnswer() : String(v);
}

function scalar(v: unknown): Html | string | null {
  if (v === null) return noAnswer();
  if (isPosition(v)) return `${v.latitude}, ${v.longitude}`;
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (v === '') return 'none';
  // API codes such as "no_indication" read better as words
  if (typeof v === 'string') return /^[a-z]+(_[a-z0-9]+)+$/.test(v) ? v.replace(/_/g, ' ') : v;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return v.length ? v.join(', ') : 'none';
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

function verdictSection(key: string, v: unknown): Html {
  const title = VERDICT_WORDS[key] ?? words(key);
  const answered = !isNoAnswer(v);
  const rows =
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => {
          const meaning = x === null && answered ? nullMeaning(key, k, v as Record<string, unknown>) : undefined;
          const shown = meaning ? NULL_WORDS[meaning] : scalar(x);
          return shown === null ? [] : [html`<dt>${FIELD_WORDS[k] ?? words(k)}</dt><dd>${shown}</dd>`];
        })
      : [];
  return html`<section class="verdict">
<h4>${title}</h4>
${answered ? null : html`<p class="no-answer">${NO_ANSWER_TEXT}</p>`}
${rows.length ? html`<dl class="facts small">${rows}</dl>` : null}
</section>`;
}

function findings(list: Finding[]): Html {
  if (!list.length) return html`<p>No findings.</p>`;
  const order = [...SEVERITIES, ...new Set(list.map((f) => f.severity).filter((s) => !SEVERITIES.includes(s)))];
  return html`${order.map((sev) => {
    const group = list.filter((f) => f.severity === sev);
    if (!group.length) return null;
    return html`<h4>${words(sev)} <span class="count">(${group.length})</span></h4>
<ul class="findings">
${group.map(
  (f) => html`<li class="finding"><span class="sev sev-${sev}">${sev}</span> ${inFormWords(f.label)}${f.tip ? html`<p class="tip"><strong>Tip:</strong> ${inFormWords(f.tip)}</p>` : null}</li>\n`,
)}</ul>`;
  })}`;
}

function assets(list: AnalyseAsset[], href: (id: string) => string): Html {
  return html`${list.map((a) => {
    const title = ASSET_WORDS[a.category] ?? words(a.category);
    const size = a.file_size !== undefined ? ` (${humanBytes(a.file_size)})` : '';
    if (!a.mime_type.startsWith('image/')) return html`<p><a href="${href(a.asset_id)}" download>${title}</a>${size}</p>`;
    return html`<figure>
<img src="${href(a.asset_id)}" alt="${title}">
<figcaption>${title}${size}. <a href="${href(a.asset_id)}" download>Download</a></figcaption>
</figure>`;
  })}`;
}

function mediaLine(m: AnalyseItem['media']): Html | null {
  if (!m) return null;
  const parts = [m.kind ? words(m.kind) : null, m.format?.toUpperCase(), m.width && m.height ? `${m.width}×${m.height}` : null].filter(Boolean);
  return html`<p class="meta">${parts.join(', ')}</p>`;
}

function itemView(item: AnalyseItem, i: number, href: (id: string) => string): Html {
  const name = item.name ?? `File ${i + 1}`;
  const id = `file-${i + 1}`;
  if (item.error || !item.grade) {
    return html`<article class="item" aria-labelledby="${id}">
<h2 id="${id}">${name}</h2>
<div class="notice notice-error"><p>This file could not be analysed: ${item.message ?? 'no reason was given.'}${item.error ? html` <small class="code">(${item.error})</small>` : null}</p></div>
</article>`;
  }
  const verdicts = item.verdicts ?? {};
  const keys = Object.keys(verdicts).filter((k) => k !== 'findings');
  const reasons = item.grade_reasons ?? [];
  return html`<article class="item" aria-labelledby="${id}">
<h2 id="${id}">${name}</h2>
${mediaLine(item.media)}
<section class="summary">
<h3>Grade</h3>
<p class="grade grade-${item.grade}"><span class="visually-hidden">Grade </span>${item.grade}</p>
${
  reasons.length
    ? html`<ul class="reasons">${reasons.map((r) => html`<li>${r.reason}${r.points ? html` <span class="points">(${r.points} ${r.points === 1 ? 'point' : 'points'})</span>` : null}</li>`)}</ul>`
    : html`<p>Nothing lowered the grade.</p>`
}
<dl class="facts counts">
<dt>Faces</dt><dd>${count(item.face_count)}</dd>
<dt>Text regions</dt><dd>${count(item.text_region_count)}</dd>
<dt>Watermark flagged</dt><dd>${yesNo(item.watermark_flagged)}</dd>
<dt>Steganography suspected</dt><dd>${yesNo(item.steganography_suspected)}</dd>
</dl>
</section>
<section>
<h3>Findings</h3>
${findings(verdicts.findings ?? [])}
</section>
<section>
<h3>Checks</h3>
<p class="hint">${EMPTY_WORDS}</p>
${keys.map((k) => verdictSection(k, verdicts[k]))}
</section>
${
  item.assets?.length
    ? html`<section>
<h3>Pictures</h3>
${assets(item.assets, href)}
</section>`
    : null
}
</article>`;
}

export function analyseReportView(v: { job: JobInfo; items: AnalyseItem[]; assetHref: (assetId: string) => string }): Html {
  return html`<h1>Analysis report</h1>
${jobSummary(v.job)}
${v.items.map((item, i) => itemView(item, i, v.assetHref))}
<p><a href="/analyse">Analyse more files</a></p>
`;
}
