import { formatName } from '../../media/format-names.ts';
import { html } from '../../http/web/html.ts';
import { decoyPasswordField, expiryField, fileField, one, passwordField, select, type Option } from '../../http/web/views/form-fields.ts';
import { humanBytes } from '../../http/web/views/parts.ts';
import type { ProductForm } from '../form.ts';

export const hideForm: ProductForm = {
  product: 'hide',
  words: { title: 'product.hide.title', intro: 'product.hide.intro', submit: 'product.hide.submit' },
  steps: { secret: 1, cover: 2, decoy: 3 },
  fields(values, l, w) {
    const { t } = w;
    const size = humanBytes(l.fileMaxBytes, w);
    return html`${fileField('secret', 'secret', t('form.hide.secret'), true, null, t('form.hide.secret.hint', { size, count: l.sessionMaxFiles }))}
${fileField('cover', 'cover', t('form.hide.cover'), false, 'image/*,video/*', t('form.hide.cover.hint', { size }))}
${passwordField('new-password', w)}
${fileField('decoy', 'decoy', t('form.hide.decoy'), true, null, t('form.hide.decoy.hint'), false)}
${decoyPasswordField(w)}
${select(
  'output-format',
  'output_format',
  t('form.hide.output'),
  [['', t('form.hide.output.auto')], ...[...l.stegoImageFormats, ...l.stegoVideoFormats].map((f): Option => [f, formatName(f)])],
  one(values, 'output_format'),
  t('form.hide.output.hint', { image: l.stegoImageFormats.join(', '), video: l.stegoVideoFormats.join(', ') }),
)}
${expiryField(values, l.expiryMax, w)}`;
  },
};

export const revealForm: ProductForm = {
  product: 'reveal',
  words: { title: 'product.reveal.title', intro: 'product.reveal.intro', submit: 'product.reveal.submit' },
  steps: { file: 1 },
  fields(values, l, w) {
    const { t } = w;
    return html`${fileField('file', 'file', t('form.reveal.file'), false, null, t('form.reveal.file.hint', { size: humanBytes(l.fileMaxBytes, w) }))}
<p class="hint">${t('form.reveal.others', { mp: l.stegosuiteMaxPixels / 1e6 })}</p>
${passwordField('off', w)}
${expiryField(values, l.expiryMax, w)}`;
  },
};
