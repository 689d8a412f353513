// A job while it runs (with a link to look again: the page never reloads itself) and the
// results of hide, reveal and convert.
import { html, type Html } from '../html.ts';
import type { Product } from './forms.ts';
import { ENGLISH, link, ltr, type Words } from '../words.ts';
import { humanBytes, utc } from './parts.ts';

export interface JobInfo {
  id: string;
  product: Product;
  state: 'queued' | 'processing' | 'completed' | 'partial' | 'failed';
  progress: number;
  message: string;
  createdAt: number;
  finishedAt: number | null;
  expiresAt: number | null;
}

export interface ResultFile {
  n: number;
  name: string;
  outputName?: string;
  mimeType: string;
  size: number;
  width?: number;
  height?: number;
  notes: string[];
}

const RUNNING = { hide: 'job.hide.running', reveal: 'job.reveal.running', analyse: 'job.analyse.running', convert: 'job.convert.running' } as const;
const RESULTS = { hide: 'job.hide.results', reveal: 'job.reveal.results', analyse: 'job.analyse.results', convert: 'job.convert.results' } as const;
const STATE_WORDS = {
  queued: 'job.state.queued',
  processing: 'job.state.processing',
  completed: 'job.state.completed',
  partial: 'job.state.partial',
  failed: 'job.state.failed',
} as const;

export const jobHref = (id: string): string => `/job/${encodeURIComponent(id)}`;

/** A job page's title: the product, running or with its results. */
export function jobTitle(job: Pick<JobInfo, 'product' | 'state'>, w: Words = ENGLISH): string {
  return job.state === 'queued' || job.state === 'processing' ? w.t(RUNNING[job.product]) : w.t(RESULTS[job.product]);
}

export function jobState(job: JobInfo, w: Words = ENGLISH): Html {
  return html`<p class="job-state">${w.say('job.state', { state: html`<span class="state state-${job.state}">${w.t(STATE_WORDS[job.state])}</span>` })}</p>`;
}

function times(job: JobInfo, w: Words): Html {
  const { t } = w;
  return html`<dl class="facts">
<dt>${t('job.started')}</dt><dd>${ltr(utc(job.createdAt))}</dd>
${job.finishedAt !== null ? html`<dt>${t('job.finished')}</dt><dd>${ltr(utc(job.finishedAt))}</dd>` : null}
${job.expiresAt !== null ? html`<dt>${t('job.destroyedAt')}</dt><dd>${ltr(utc(job.expiresAt))}</dd>` : null}
</dl>`;
}

/** The state, and the message in an alert when the job failed (a wrong passphrase, say). */
export function jobSummary(job: JobInfo, w: Words = ENGLISH): Html {
  return html`${jobState(job, w)}
${job.state === 'failed' ? html`<div class="notice notice-error" role="alert"><p>${job.message}</p></div>` : html`<p class="message">${job.message}</p>`}
${times(job, w)}`;
}

export function jobView(v: { job: JobInfo; words?: Words }): Html {
  const w = v.words ?? ENGLISH;
  const { t, say } = w;
  const job = v.job;
  const pct = Math.max(0, Math.min(100, Math.round(job.progress)));
  const running = job.state === 'queued' || job.state === 'processing';
  return html`<h1>${t(RUNNING[job.product])}</h1>
${jobState(job, w)}
${
  running
    ? html`<div class="field">
<label for="job-progress">${t('job.progress', { pct })}</label>
<progress id="job-progress" max="100" value="${pct}">${pct} %</progress>
</div>
<p class="message" role="status">${job.message}</p>
<p>${say('job.checkAgain', { a: link(jobHref(job.id)) })}</p>`
    : html`<p class="message">${job.message}</p>
<p><a href="${jobHref(job.id)}">${t('job.seeResults')}</a></p>`
}
<p class="hint">${t('job.keepAddress')}</p>
`;
}

function fileList(job: JobInfo, files: ResultFile[], w: Words): Html {
  if (!files.length) return html``;
  return html`<ul class="files">
${files.map((f) => {
  const name = f.outputName ?? f.name;
  const dims = f.width && f.height ? `, ${f.width}×${f.height}` : '';
  return html`<li>
<a href="${jobHref(job.id)}/file/${f.n}" download>${name}</a>
<span class="meta" dir="ltr">${humanBytes(f.size, w)}${dims}, ${f.mimeType}</span>
${f.outputName && f.outputName !== f.name ? html`<span class="meta">${w.say('job.from', { name: html`<bdi>${f.name}</bdi>` })}</span>` : null}
${f.notes.length ? html`<ul class="notes">${f.notes.map((n) => html`<li>${n}</li>`)}</ul>` : null}
</li>`;
})}
</ul>`;
}

export function stegoResultView(v: { job: JobInfo; files: ResultFile[]; words?: Words }): Html {
  const w = v.words ?? ENGLISH;
  const { t } = w;
  const job = v.job;
  const heading = job.product === 'reveal' ? t('job.revealed') : t('job.hidden');
  return html`<h1>${t(RESULTS[job.product])}</h1>
${jobSummary(job, w)}
${
  v.files.length
    ? html`<section aria-labelledby="files-h">
<h2 id="files-h">${heading}</h2>
${fileList(job, v.files, w)}
${job.product === 'hide' ? html`<p class="hint">${t('job.shareAsIs')}</p>` : null}
</section>`
    : null
}
`;
}

export function convertResultView(v: { job: JobInfo; files: ResultFile[]; failed: { name: string; error: string; message: string }[]; words?: Words }): Html {
  const w = v.words ?? ENGLISH;
  const { t } = w;
  const job = v.job;
  return html`<h1>${t('job.convert.results')}</h1>
${jobSummary(job, w)}
${
  v.files.length
    ? html`<section aria-labelledby="files-h">
<h2 id="files-h">${t('job.converted')}</h2>
${fileList(job, v.files, w)}
</section>`
    : null
}
${
  v.failed.length
    ? html`<section aria-labelledby="failed-h">
<h2 id="failed-h">${t('job.notConverted')}</h2>
<ul class="files failed">
${v.failed.map((f) => html`<li><strong><bdi>${f.name}</bdi></strong>: ${f.message} <small class="code">(${f.error})</small></li>`)}
</ul>
</section>`
    : null
}
`;
}
