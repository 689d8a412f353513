// A job while it runs (the page reloads itself through <meta refresh>: no script) and the
// results of hide, reveal and convert.
import { html, type Html } from '../html.ts';
import type { Product } from './forms.ts';
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

const PRODUCT_WORDS: Record<Product, string> = { hide: 'Hide', reveal: 'Reveal', analyse: 'Analysis', convert: 'Conversion' };
const STATE_WORDS: Record<JobInfo['state'], string> = {
  queued: 'Waiting to start',
  processing: 'Working',
  completed: 'Done',
  partial: 'Done, with some files failed',
  failed: 'Failed',
};

export const jobHref = (id: string): string => `/job/${encodeURIComponent(id)}`;

export function jobState(job: JobInfo): Html {
  return html`<p class="job-state">State: <span class="state state-${job.state}">${STATE_WORDS[job.state]}</span></p>`;
}

function times(job: JobInfo): Html {
  return html`<dl class="facts">
<dt>Started</dt><dd>${utc(job.createdAt)}</dd>
${job.finishedAt !== null ? html`<dt>Finished</dt><dd>${utc(job.finishedAt)}</dd>` : null}
${job.expiresAt !== null ? html`<dt>Results destroyed at</dt><dd>${utc(job.expiresAt)}</dd>` : null}
</dl>`;
}

/** The state, and the message in an alert when the job failed (a wrong passphrase, say). */
export function jobSummary(job: JobInfo): Html {
  return html`${jobState(job)}
${job.state === 'failed' ? html`<div class="notice notice-error" role="alert"><p>${job.message}</p></div>` : html`<p class="message">${job.message}</p>`}
${times(job)}`;
}

export function jobView(v: { job: JobInfo; refreshS: number }): Html {
  const job = v.job;
  const pct = Math.max(0, Math.min(100, Math.round(job.progress)));
  const running = job.state === 'queued' || job.state === 'processing';
  return html`<h1>${PRODUCT_WORDS[job.product]} in progress</h1>
${jobState(job)}
${
  running
    ? html`<div class="field">
<label for="job-progress">Progress: ${pct} %</label>
<progress id="job-progress" max="100" value="${pct}">${pct} %</progress>
</div>
<p class="message" role="status">${job.message}</p>
<p>This page reloads itself every ${v.refreshS} seconds. <a href="${jobHref(job.id)}">Reload now</a></p>`
    : html`<p class="message">${job.message}</p>
<p><a href="${jobHref(job.id)}">See the results</a></p>`
}
<p class="hint">You can leave this page and come back to it: its address is the only way back to the job, so keep it if you close the page.</p>
`;
}

function fileList(job: JobInfo, files: ResultFile[]): Html {
  if (!files.length) return html``;
  return html`<ul class="files">
${files.map((f) => {
  const name = f.outputName ?? f.name;
  const dims = f.width && f.height ? `, ${f.width}×${f.height}` : '';
  return html`<li>
<a href="${jobHref(job.id)}/file/${f.n}" download>${name}</a>
<span class="meta">${humanBytes(f.size)}${dims}, ${f.mimeType}</span>
${f.outputName && f.outputName !== f.name ? html`<span class="meta">from ${f.name}</span>` : null}
${f.notes.length ? html`<ul class="notes">${f.notes.map((n) => html`<li>${n}</li>`)}</ul>` : null}
</li>`;
})}
</ul>`;
}

export function stegoResultView(v: { job: JobInfo; files: ResultFile[] }): Html {
  const job = v.job;
  const heading = job.product === 'reveal' ? 'Revealed files' : 'Hidden in the cover';
  return html`<h1>${PRODUCT_WORDS[job.product]}: results</h1>
${jobSummary(job)}
${
  v.files.length
    ? html`<section aria-labelledby="files-h">
<h2 id="files-h">${heading}</h2>
${fileList(job, v.files)}
${job.product === 'hide' ? html`<p class="hint">Share the file as it is: re-saving, resizing or sending it through a service that recompresses pictures destroys what is hidden.</p>` : null}
</section>`
    : null
}
`;
}

export function convertResultView(v: { job: JobInfo; files: ResultFile[]; failed: { name: string; error: string; message: string }[] }): Html {
  const job = v.job;
  return html`<h1>Conversion: results</h1>
${jobSummary(job)}
${
  v.files.length
    ? html`<section aria-labelledby="files-h">
<h2 id="files-h">Converted files</h2>
${fileList(job, v.files)}
</section>`
    : null
}
${
  v.failed.length
    ? html`<section aria-labelledby="failed-h">
<h2 id="failed-h">Files that could not be converted</h2>
<ul class="files failed">
${v.failed.map((f) => html`<li><strong>${f.name}</strong>: ${f.message} <small class="code">(${f.error})</small></li>`)}
</ul>
</section>`
    : null
}
`;
}
