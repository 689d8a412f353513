// The four product forms. One multipart form each; the field names are the API's own, so the
// server can hand the fields to the same checks as a JSON start.
import { html, type Html } from '../html.ts';
import { ENGLISH, type MessageKey, type Words } from '../words.ts';
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

function passwordField(autocomplete: string, w: Words): Html {
  // never prefilled: a passphrase must not travel back in a page
  return html`<div class="field">
<label for="password">${w.t('form.passphrase')}</label>
<input type="password" id="password" name="password" required maxlength="1024" autocomplete="${autocomplete}" spellcheck="false" aria-describedby="password-hint">
<p class="hint" id="password-hint">${w.t('form.passphrase.hint')}</p>
</div>`;
}

function expiryField(values: Values, expiryMax: string, w: Words): Html {
  const max = durationMs(expiryMax) ?? Infinity;
  const options: Option[] = [
    ['', w.t('form.expiry.default', { duration: durationWords('1d', w) })],
    ...EXPIRIES.filter((e) => (durationMs(e) ?? 0) <= max).map((e): Option => [e, durationWords(e, w)]),
  ];
  return select('expiry', 'expiry', w.t('form.expiry'), options, one(values, 'expiry'), w.t('form.expiry.hint', { max: durationWords(expiryMax, w) }));
}

const TITLES: Record<Product, MessageKey> = {
  hide: 'product.hide.title',
  reveal: 'product.reveal.title',
  analyse: 'product.analyse.title',
  convert: 'product.convert.title',
};

const INTROS: Record<Product, MessageKey> = {
  hide: 'product.hide.intro',
  reveal: 'product.reveal.intro',
  analyse: 'product.analyse.intro',
  convert: 'product.convert.intro',
};

const BUTTONS: Record<Product, MessageKey> = { hide: 'product.hide.submit', reveal: 'product.reveal.submit', analyse: 'product.analyse.submit', convert: 'product.convert.submit' };

/** A product form's heading (and the page's title). */
export const productTitle = (product: Product, w: Words = ENGLISH): string => w.t(TITLES[product]);

function fields(product: Product, values: Values, l: FormLimits, w: Words): Html {
  const { t } = w;
  const sizeValues = { size: humanBytes(l.fileMaxBytes, w), count: l.sessionMaxFiles };
  const size = t('form.size', sizeValues);
  const media = 'image/*,video/*';
  switch (product) {
    case 'hide':
      return html`${fileField('secret', 'secret', t('form.hide.secret'), true, null, t('form.hide.secret.hint', sizeValues))}
${fileField('cover', 'cover', t('form.hide.cover'), false, media, t('form.hide.cover.hint', { size: humanBytes(l.fileMaxBytes, w) }))}
${passwordField('new-password', w)}
${select(
  'output-format',
  'output_format',
  t('form.hide.output'),
  [['', t('form.hide.output.auto')], ...[...l.stegoImageFormats, ...l.stegoVideoFormats].map((f): Option => [f, f.toUpperCase()])],
  one(values, 'output_format'),
  t('form.hide.output.hint', { image: l.stegoImageFormats.join(', '), video: l.stegoVideoFormats.join(', ') }),
)}
${expiryField(values, l.expiryMax, w)}`;
    case 'reveal':
      return html`${fileField('file', 'file', t('form.reveal.file'), false, null, t('form.reveal.file.hint', { size: humanBytes(l.fileMaxBytes, w) }))}
${passwordField('off', w)}
${expiryField(values, l.expiryMax, w)}`;
    case 'analyse': {
      // a first visit has no values: the checks are on; after an error, what was sent is shown
      const fresh = Object.keys(values).length === 0;
      const on = (name: string) => fresh || one(values, name) === 'true';
      return html`${fileField('files', 'files', t('form.analyse.files'), true, media, size)}
${select(
  'forensic-depth',
  'forensic_depth',
  t('form.analyse.depth'),
  [
    ['standard', t('form.analyse.depth.standard')],
    ['deep', t('form.analyse.depth.deep')],
  ],
  one(values, 'forensic_depth') || 'standard',
)}
${select(
  'face-sensitivity',
  'face_sensitivity',
  t('form.analyse.sensitivity'),
  [
    ['low', t('form.analyse.sensitivity.low')],
    ['medium', t('form.analyse.sensitivity.medium')],
    ['high', t('form.analyse.sensitivity.high')],
  ],
  one(values, 'face_sensitivity') || 'medium',
)}
<fieldset>
<legend>${t('form.analyse.checks')}</legend>
${checkbox('face-detection', 'face_detection', 'true', t('form.analyse.findFaces'), on('face_detection'))}
${checkbox('text-detection', 'text_detection', 'true', t('form.analyse.findText'), on('text_detection'))}
${checkbox('tips', 'tips', 'true', t('form.analyse.tips'), on('tips'))}
<p class="hint">${t('form.analyse.checks.hint')}</p>
</fieldset>
${expiryField(values, l.expiryMax, w)}`;
    }
    case 'convert': {
      const redact = all(values, 'redact');
      return html`${fileField('files', 'files', t('form.convert.files'), true, media, size)}
${select('image-format', 'image_format', t('form.convert.images'), [['', t('form.convert.noImages')], ...l.imageFormats.map((f): Option => [f, f.toUpperCase()])], one(values, 'image_format'))}
${select('video-format', 'video_format', t('form.convert.videos'), [['', t('form.convert.noVideos')], ...l.videoFormats.map((f): Option => [f, f.toUpperCase()])], one(values, 'video_format'))}
${numberField('quality', 'quality', t('form.convert.quality'), one(values, 'quality'), 1, 100, t('form.convert.quality.hint'))}
<div class="pair">
${numberField('width', 'width', t('form.convert.width'), one(values, 'width'), 1, null, t('form.convert.width.hint'))}
${numberField('height', 'height', t('form.convert.height'), one(values, 'height'), 1, null, t('form.convert.height.hint'))}
</div>
${select(
  'fit',
  'fit',
  t('form.convert.fit'),
  l.fits.map((f): Option => [f, f === 'inside' ? t('form.convert.fit.default', { fit: f }) : f]),
  one(values, 'fit') || 'inside',
  t('form.convert.fit.hint'),
)}
<fieldset>
<legend>${t('form.convert.options')}</legend>
${checkbox('upscale', 'upscale', 'true', t('form.convert.upscale'), one(values, 'upscale') === 'true')}
${checkbox('lossless', 'lossless', 'true', t('form.convert.lossless'), one(values, 'lossless') === 'true')}
</fieldset>
<fieldset>
<legend>${t('form.convert.redact')}</legend>
${checkbox('redact-faces', 'redact', 'faces', t('form.convert.redactFaces'), redact.includes('faces'))}
${checkbox('redact-text', 'redact', 'text', t('form.convert.redactText'), redact.includes('text'))}
${select(
  'redact-style',
  'redact_style',
  t('form.convert.redactStyle'),
  [
    ['blur', t('form.convert.redactStyle.blur')],
    ['fill', t('form.convert.redactStyle.fill')],
  ],
  one(values, 'redact_style') || 'blur',
)}
</fieldset>
${expiryField(values, l.expiryMax, w)}`;
    }
  }
}

export function productFormView(product: Product, v: { csrf: string; values: Record<string, string | string[]>; limits: FormLimits; words?: Words }): Html {
  const w = v.words ?? ENGLISH;
  return html`<h1>${w.t(TITLES[product])}</h1>
<p class="lead">${w.t(INTROS[product])}</p>
<form method="post" action="/${product}" enctype="multipart/form-data" class="stack">
${csrfField(v.csrf)}
${fields(product, v.values, v.limits, w)}
<div class="actions"><button type="submit">${w.t(BUTTONS[product])}</button></div>
</form>
`;
}
