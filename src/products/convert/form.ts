import { formatName } from '../../media/format-names.ts';
import { html } from '../../http/web/html.ts';
import { all, checkbox, expiryField, fileField, numberField, one, select, type Option } from '../../http/web/views/form-fields.ts';
import { humanBytes } from '../../http/web/views/parts.ts';
import type { ProductForm } from '../form.ts';

export const convertForm: ProductForm = {
  product: 'convert',
  words: { title: 'product.convert.title', intro: 'product.convert.intro', submit: 'product.convert.submit' },
  steps: { files: 1 },
  flags: ['upscale', 'lossless'],
  numbers: ['quality', 'width', 'height'],
  lists: ['redact'],
  // the style select always sends its default; alone it would be refused as a style of nothing
  tidy(body) {
    if (body.redact === undefined && body.redact_style === 'blur') delete body.redact_style;
  },
  fields(values, l, w) {
    const { t } = w;
    const size = t('form.size', { size: humanBytes(l.fileMaxBytes, w), count: l.sessionMaxFiles });
    const redact = all(values, 'redact');
    return html`${fileField('files', 'files', t('form.convert.files'), true, 'image/*,video/*', size)}
${select('image-format', 'image_format', t('form.convert.images'), [['', t('form.convert.noImages')], ...l.imageFormats.map((f): Option => [f, formatName(f)])], one(values, 'image_format'))}
${select('video-format', 'video_format', t('form.convert.videos'), [['', t('form.convert.noVideos')], ...l.videoFormats.map((f): Option => [f, formatName(f)])], one(values, 'video_format'))}
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
  },
};
