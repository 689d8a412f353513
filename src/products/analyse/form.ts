import { html } from '../../http/web/html.ts';
import { checkbox, expiryField, fileField, one, select } from '../../http/web/views/form-fields.ts';
import { humanBytes } from '../../http/web/views/parts.ts';
import type { ProductForm } from '../form.ts';

export const analyseForm: ProductForm = {
  product: 'analyse',
  words: { title: 'product.analyse.title', intro: 'product.analyse.intro', submit: 'product.analyse.submit' },
  steps: { files: 1 },
  flags: ['face_detection', 'text_detection', 'tips'],
  numbers: ['face_sensitivity'],
  fields(values, l, w) {
    const { t } = w;
    const size = t('form.size', { size: humanBytes(l.fileMaxBytes, w), count: l.sessionMaxFiles });
    // a first visit has no values: the checks are on; after an error, what was sent is shown
    const fresh = Object.keys(values).length === 0;
    const on = (name: string) => fresh || one(values, name) === 'true';
    return html`${fileField('files', 'files', t('form.analyse.files'), true, 'image/*,video/*', size)}
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
  },
};
