// The four product forms. One multipart form each; the field names are the API's own, so the
// server can hand the fields to the same checks as a JSON start.
import { html, type Html } from '../html.ts';
import { csrfField, durationMs, durationWords, humanBytes } from './parts.ts';

export type Product = 'hide' | 'reveal' | 'analyse' | 'convert';

export interface FormLimits {
  fileMaxBytes: number;
  sessionMaxFiles: number;
  expiryMax: string;
  imageFormats: readonly string[];
  videoFormats: readonly string[];
  stegoImageFormats: readonly string[];
  stegoVideoFormats: readonly string[];
  fits: readonly string[];
}

type Values = Record<string, string | string[]>;
type Option = readonly [value: string, label: string];

const EXPIRIES = ['1h', '6h', '1d', '3d', '7d'];

/** Labels other pages name when they tell a person what to tick (the report's tips). */
export const LABELS = {
  convertPage: 'Convert',
  redactLegend: 'Redact before converting',
  redactFaces: 'Faces',
  redactText: 'Text',
  findFaces: 'Find faces',
  findText: 'Find readable text',
} as const;

function all(values: Values, name: string): string[] {
  const v = values[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}
function one(values: Values, name: string): string {
  return all(values, name)[0] ?? '';
}

function select(id: string, name: string, label: string, options: Option[], selected: string, hint?: string): Html {
  const hintId = hint ? `${id}-hint` : null;
  return html`<div class="field">
<label for="${id}">${label}</label>
<select id="${id}" name="${name}"${hintId ? html` aria-describedby="${hintId}"` : null}>
${options.map(([value, text]) => html`<option value="${value}"${value === selected ? html` selected` : null}>${text}</option>\n`)}</select>
${hint ? html`<p class="hint" id="${hintId}">${hint}</p>` : null}
</div>`;
}

function checkbox(id: string, name: string, value: string, label: string, checked: boolean): Html {
  return html`<div class="check">
<input type="checkbox" id="${id}" name="${name}" value="${value}"${checked ? html` checked` : null}>
<label for="${id}">${label}</label>
</div>`;
}

function numberField(id: string, name: string, label: string, value: string, min: number, max: number | null, hint: string): Html {
  return html`<div class="field">
<label for="${id}">${label}</label>
<input type="number" id="${id}" name="${name}" inputmode="numeric" min="${min}"${max !== null ? html` max="${max}"` : null} step="1" value="${value}" aria-describedby="${id}-hint">
<p class="hint" id="${id}-hint">${hint}</p>
</div>`;
}

function fileField(id: string, name: string, label: string, multiple: boolean, accept: string | null, hint: string): Html {
  return html`<div class="field">
<label for="${id}">${label}</label>
<input type="file" id="${id}" name="${name}"${multiple ? html` multiple` : null}${accept ? html` accept="${accept}"` : null} required aria-describedby="${id}-hint">
<p class="hint" id="${id}-hint">${hint}</p>
</div>`;
}

function passwordField(autocomplete: string, hint: string): Html {
  // never prefilled: a passphrase must not travel back in a page
  return html`<div class="field">
<label for="password">Passphrase</label>
<input type="password" id="password" name="password" required maxlength="1024" autocomplete="${autocomplete}" spellcheck="false" aria-describedby="password-hint">
<p class="hint" id="password-hint">${hint}</p>
</div>`;
}

function expiryField(values: Values, expiryMax: string): Html {
  const max = durationMs(expiryMax) ?? Infinity;
  const options: Option[] = [['', '1 day (default)'], ...EXPIRIES.filter((e) => (durationMs(e) ?? 0) <= max).map((e): Option => [e, durationWords(e)])];
  return select('expiry', 'expiry', 'Keep the results for', options, one(values, 'expiry'), `After this the results are destroyed. At most ${durationWords(expiryMax)}.`);
}

const TITLES: Record<Product, string> = {
  hide: 'Hide files in an image or video',
  reveal: 'Reveal hidden files',
  analyse: 'Analyse images and videos',
  convert: 'Convert images and videos',
};

const INTROS: Record<Product, string> = {
  hide: 'The files are sealed with your passphrase and hidden in the cover. The result looks like the cover and is saved losslessly, so the hidden files survive.',
  reveal: 'Give a file made with Hide and its passphrase to get the hidden files back.',
  analyse: 'Each file is checked for signs of editing, AI generation, provenance, hidden content, watermarks, faces, text and identifying metadata, and graded from A to F.',
  convert: 'Choose one output format: one for images or one for videos (a job converts one kind). Every output is stripped of its metadata.',
};

const BUTTONS: Record<Product, string> = { hide: 'Hide', reveal: 'Reveal', analyse: 'Analyse', convert: 'Convert' };

const PASSPHRASE_HINT = 'The passphrase cannot be recovered: without it the hidden files are lost. A weak passphrase is named in the job message.';

function fields(product: Product, values: Values, l: FormLimits): Html {
  const size = `Each file up to ${humanBytes(l.fileMaxBytes)}; at most ${l.sessionMaxFiles} files in one job.`;
  const media = 'image/*,video/*';
  switch (product) {
    case 'hide':
      return html`${fileField('secret', 'secret', 'Files to hide', true, null, `Any kind of file. ${size}`)}
${fileField('cover', 'cover', 'Cover image or video', false, media, `One picture or video to hide them in, up to ${humanBytes(l.fileMaxBytes)}. A larger cover holds more.`)}
${passwordField('new-password', PASSPHRASE_HINT)}
${select(
  'output-format',
  'output_format',
  'Output format',
  [['', 'Automatic (PNG for an image cover, MKV for a video)'], ...[...l.stegoImageFormats, ...l.stegoVideoFormats].map((f): Option => [f, f.toUpperCase()])],
  one(values, 'output_format'),
  `Lossless only: ${l.stegoImageFormats.join(', ')} for an image cover, ${l.stegoVideoFormats.join(', ')} for a video cover.`,
)}
${expiryField(values, l.expiryMax)}`;
    case 'reveal':
      return html`${fileField('file', 'file', 'File to reveal from', false, null, `The file made with Hide, exactly as it was downloaded, up to ${humanBytes(l.fileMaxBytes)}.`)}
${passwordField('off', PASSPHRASE_HINT)}
${expiryField(values, l.expiryMax)}`;
    case 'analyse': {
      // a first visit has no values: the checks are on; after an error, what was sent is shown
      const fresh = Object.keys(values).length === 0;
      const on = (name: string) => fresh || one(values, name) === 'true';
      return html`${fileField('files', 'files', 'Files to analyse', true, media, size)}
${select('forensic-depth', 'forensic_depth', 'Forensic depth', [['standard', 'Standard'], ['deep', 'Deep (slower: adds copy-move detection and more steganalysis)']], one(values, 'forensic_depth') || 'standard')}
${select('face-sensitivity', 'face_sensitivity', 'Face sensitivity', [['low', 'Low'], ['medium', 'Medium'], ['high', 'High (finds fainter faces)']], one(values, 'face_sensitivity') || 'medium')}
<fieldset>
<legend>Checks and explanations</legend>
${checkbox('face-detection', 'face_detection', 'true', LABELS.findFaces, on('face_detection'))}
${checkbox('text-detection', 'text_detection', 'true', LABELS.findText, on('text_detection'))}
${checkbox('tips', 'tips', 'true', 'Add a tip to each finding', on('tips'))}
<p class="hint">An unticked box is not sent at all, and the server treats an absent box as “no”: a check left unticked is not run, and its count shows as “no answer”.</p>
</fieldset>
${expiryField(values, l.expiryMax)}`;
    }
    case 'convert': {
      const redact = all(values, 'redact');
      return html`${fileField('files', 'files', 'Files to convert', true, media, size)}
${select('image-format', 'image_format', 'Images to', [['', '— (no images)'], ...l.imageFormats.map((f): Option => [f, f.toUpperCase()])], one(values, 'image_format'))}
${select('video-format', 'video_format', 'Videos to', [['', '— (no videos)'], ...l.videoFormats.map((f): Option => [f, f.toUpperCase()])], one(values, 'video_format'))}
${numberField('quality', 'quality', 'Quality (optional)', one(values, 'quality'), 1, 100, "1 to 100. Empty: the format's usual quality.")}
<div class="pair">
${numberField('width', 'width', 'Width in pixels (optional)', one(values, 'width'), 1, null, 'Empty: keep the width.')}
${numberField('height', 'height', 'Height in pixels (optional)', one(values, 'height'), 1, null, 'Empty: keep the height.')}
</div>
${select('fit', 'fit', 'Fit to width and height', l.fits.map((f): Option => [f, f === 'inside' ? 'inside (default)' : f]), one(values, 'fit') || 'inside', 'inside keeps the whole picture within the size; cover fills it and crops; fill stretches.')}
<fieldset>
<legend>Options</legend>
${checkbox('upscale', 'upscale', 'true', 'Enlarge smaller pictures to the size', one(values, 'upscale') === 'true')}
${checkbox('lossless', 'lossless', 'true', 'Lossless, where the format allows it', one(values, 'lossless') === 'true')}
</fieldset>
<fieldset>
<legend>${LABELS.redactLegend}</legend>
${checkbox('redact-faces', 'redact', 'faces', LABELS.redactFaces, redact.includes('faces'))}
${checkbox('redact-text', 'redact', 'text', LABELS.redactText, redact.includes('text'))}
${select('redact-style', 'redact_style', 'Redaction style', [['blur', 'Blur (default)'], ['fill', 'Solid black boxes']], one(values, 'redact_style') || 'blur')}
</fieldset>
${expiryField(values, l.expiryMax)}`;
    }
  }
}

export function productFormView(product: Product, v: { csrf: string; values: Record<string, string | string[]>; limits: FormLimits }): Html {
  return html`<h1>${TITLES[product]}</h1>
<p class="lead">${INTROS[product]}</p>
<form method="post" action="/${product}" enctype="multipart/form-data" class="stack">
${csrfField(v.csrf)}
${fields(product, v.values, v.limits)}
<div class="actions"><button type="submit">${BUTTONS[product]}</button></div>
</form>
`;
}
