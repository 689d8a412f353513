// A job's page says the job's messages, its failures and its notes in the page's language (the
// job and the API keep one English text), and sizes in the page's digits. The English texts here
// are the runners' own, made by their code where it is exported.
import test from 'ava';
import { AppError } from '../src/domain/errors.ts';
import { checkedPassword } from '../src/domain/passwords.ts';
import { OTHER_WAYS_IN, rateLimited } from '../src/domain/web-brakes.ts';
import { weakness } from '../src/products/stego/runner.ts';
import { describeRedaction } from '../src/media/convert/redact.ts';
import { NOTHING_FOUND } from '../src/media/stego/stream.ts';
import { translator } from '../src/i18n/format.ts';
import { LANGS } from '../src/i18n/languages.ts';
import { failureText, jobText } from '../src/http/web/job-words.ts';
import { errorText } from '../src/http/web/respond.ts';
import { humanBytes } from '../src/http/web/views/parts.ts';
import { wordsFor } from '../src/http/web/words.ts';

/** What the runners write (domain/jobs.ts, products/<product>/runner.ts, media/stego/*, media/convert/*). */
const RUNNERS: string[] = [
  'Queued.',
  'Preparing the cover and the files to hide.',
  'Hiding.',
  'Looking for hidden content.',
  'Looking for content hidden by other tools.',
  'Converting file 2 of 3.',
  'Analysing file 1 of 1.',
  ['Hid 1 file in the cover; the result is lossless.', 'The cover was a JPEG; the result is a lossless PNG of its picture.', weakness('abc')!].join(' '),
  "Hid 1 file in the cover; the result is lossless. The decoy's 2 files are hidden beside them, under the decoy passphrase.",
  "Hid 2 files in the cover; the result is lossless. The decoy's 1 file is hidden beside them, under the decoy passphrase.",
  // a format of two words, as the one table names it (media/format-names.ts)
  'Hid 1 file in the cover; the result is lossless. The cover was a JPEG XL; the result is a lossless WebP of its picture.',
  `Hid 2 files in the cover; the result is lossless. The cover was animated; the result is a lossless PNG of its first picture. ${weakness('aaaaaaaaaaaaaaaa')!}`,
  `Hid 1 file in the cover; the result is lossless. The video is written losslessly as FFV1 in MKV; it is much larger than the cover. ${weakness('horsebattery')!}`,
  'Recovered 1 hidden file.',
  'Recovered 3 hidden files.',
  'Recovered 1 hidden file, hidden with steghide.',
  'Recovered 2 hidden files, hidden with stegosuite.',
  `Converted 1 file. ${describeRedaction(2, 1, ['faces', 'text'])}`,
  `Converted 2 files. ${describeRedaction(1, 0, ['faces'])}`,
  'Converted 1 of 2 files; 1 failed.',
  'No file could be converted.',
  'Analysed 1 file.',
  'Analysed 2 of 3 files; 1 could not be analysed.',
  'None of the 3 files could be analysed.',
  'JPEG has no transparency: transparent areas were filled with white.',
  'Only the first page of the 4-page TIFF was converted.',
  'quality does not apply to PNG; it is lossless.',
  'quality does not apply to lossless output.',
  'The video carried a rotation flag; its frames were turned upright and the flag removed.',
  'Only the first video and audio track were kept; subtitles, extra tracks, chapters and data streams were removed.',
  'WebM audio is Opus, which is lossy; choose mkv for lossless audio (FLAC).',
  'JPEG output keeps no animation here: only the first of the 12 frames was converted. Choose webp to keep the animation.',
  'Redaction keeps no animation here: only the first of the 12 frames was redacted and converted.',
  describeRedaction(0, 3, ['text']),
];
/** Said again in the page's words, not word for word (the form's words for an API option, say). */
const REWORDED = ['Queued again: the service restarted.', 'Queued again after a restart.', 'The image was not enlarged (it is 64×48); set upscale to true to enlarge it.', 'The video was not enlarged (it is 64×48); set upscale to true to enlarge it.'];

// names of formats and codecs stay as they are in every language
const NAMES = /\b(steghide|outguess|stegosuite|JPEG XL|JPEG|PNG|TIFF|FFV1|MKV|WebM|WebP|Opus|FLAC|webp|mkv)\b/g;

test('the English page says the runners’ sentences as they wrote them, from the catalogue', (t) => {
  const en = wordsFor('en');
  for (const text of RUNNERS) t.is(jobText(text, en), text.replace(/^quality/, 'Quality').replace('PNG; it is', 'PNG: it is').replace('mkv for', 'MKV for').replace('webp to', 'WebP to'));
});

test('every runner sentence is said in each language: no English sentence is left on the page', (t) => {
  for (const lang of LANGS.filter((l) => l !== 'en')) {
    const w = wordsFor(lang);
    for (const text of [...RUNNERS, ...REWORDED]) {
      const said = jobText(text, w);
      t.not(said, text, `${lang}: ${text}`);
      for (const sentence of text.split(/(?<=\.) /)) t.false(said.includes(sentence), `${lang} left "${sentence}" in "${said}"`);
      if (lang === 'ru' || lang === 'ar' || lang === 'fa' || lang === 'zh') t.notRegex(said.replace(NAMES, ''), /\b[A-Za-z]{3,}\b/, `${lang}: ${said}`);
    }
  }
  const fa = wordsFor('fa');
  t.is(jobText('Converting file 2 of 3.', fa), 'در حال تبدیل فایل 2 از 3.', 'Latin digits, as the Persian catalogue writes them');
  t.is(jobText('The image was not enlarged (it is 64×48); set upscale to true to enlarge it.', fa), `تصویر بزرگ نشد (اندازه‌اش 64×48 است)؛ برای بزرگ کردنش «${fa.t('form.convert.upscale')}» را علامت بزنید.`, 'the form’s own words for the option');
});

test('a sentence no catalogue has stays English, whole; a convert page does not repeat the per-file reasons it lists', (t) => {
  const fa = wordsFor('fa');
  t.is(jobText('Hiding. Something new happened. Recovered 1 hidden file.', fa), `${fa.t('jobMsg.hide.hiding')} Something new happened. Recovered 1 hidden file.`);
  const partial = 'Converted 1 of 2 files; 1 failed. File 2: The file is not an image or video this service reads.';
  t.is(jobText(partial, fa, { perFileListed: true }), translator('fa')('jobMsg.convert.partial', { done: 1, n: 2, failed: 1 }));
  t.true(jobText(partial, fa).endsWith('File 2: The file is not an image or video this service reads.'));
});

test('a failed job is said by its code: the wrong passphrase of a reveal in every language', (t) => {
  for (const lang of LANGS) {
    const said = failureText('nothing_found', NOTHING_FOUND, wordsFor(lang));
    t.is(said, translator(lang)('error.nothing_found'));
    if (lang === 'en') t.is(said, NOTHING_FOUND);
    else t.not(said, NOTHING_FOUND);
  }
  t.is(failureText('some_new_code', 'Hiding.', wordsFor('fr')), translator('fr')('jobMsg.hide.hiding'), 'a code without words: its sentences');
});

test('page errors in the page’s language: a weak password, a file over the limit with the limit in the page’s digits', (t) => {
  const fa = wordsFor('fa');
  const fr = wordsFor('fr');
  const weak = t.throws(() => checkedPassword('aaaaaaaaaaaa'), { instanceOf: AppError }) as AppError;
  t.is(weak.code, 'weak_password');
  t.is(errorText(fa, weak), translator('fa')('error.weak_password'));
  t.is(errorText(wordsFor('en'), weak), weak.message, 'an English page keeps the API’s precise reason');
  const big = new AppError('file_too_large', 'A file is over the limit of 8388608 bytes for one upload; nothing was stored.', { max_upload_bytes: 8 * 1024 * 1024 });
  t.is(errorText(fa, big), 'بیش از حد بزرگ است: در هر بار حداکثر 8 MiB را می‌توان بارگذاری کرد؛ چیزی ذخیره نشد.');
  t.is(errorText(wordsFor('en'), big), 'Too large: at most 8 MiB can be uploaded at once; nothing was stored.');
  const fit = new AppError('secret_too_large', 'The secret does not fit…', { capacity_bytes: 1536, needed_bytes: 3 * 1024 * 1024 });
  t.regex(errorText(fr, fit), /il leur faut 3 MiB et cette couverture contient au plus 1,5 KiB/);
  t.is(errorText(fa, new AppError('file_too_large', 'The file is over the limit.')), translator('fa')('error.file_too_large'), 'without its limit: the words without it');
  const brake = new AppError('rate_limited', 'Too many sign-in attempts; try again in 30 seconds.', { retry_after: 30 });
  t.is(errorText(wordsFor('ru'), brake), 'Слишком много попыток за короткое время; попробуйте снова через 30 секунд.');
  t.is(errorText(wordsFor('en'), brake), brake.message, 'an English page keeps the API’s words: they say which brake');
  const address = rateLimited(90_000, `5 password sign-ins for this address failed within 15 minutes, so its password is not checked for now. ${OTHER_WAYS_IN}`);
  t.is(errorText(fa, address), translator('fa')('errorWith.rate_limited.otherWays', { s: 90 }), 'a braked address is told the other ways in');
  t.is(errorText(fa, new AppError('backup_blob_torn', 'Plain English.')), 'Plain English.', 'a code the words lack (no error.<code> key): the API’s message');
});

test('numbers in the page’s language; Arabic and Persian keep the Latin digits their catalogues write', (t) => {
  t.is(humanBytes(1536), '1.5 KiB');
  t.is(humanBytes(1536, wordsFor('fr')), '1,5 KiB');
  t.is(humanBytes(2 * 1024 ** 3, wordsFor('fa')), '2 GiB');
  t.is(humanBytes(1536, wordsFor('ar')), '1.5 KiB');
  t.regex(translator('fa')('job.progress', { pct: 42 }), /42/);
  t.regex(translator('ar')('duration.d', { n: 12 }), /12/);
  t.regex(translator('fa')('form.size', { size: '8 MiB', count: 1234 }), /1,234/);
});
