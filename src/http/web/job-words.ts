// A job's texts in the page's language. The job keeps one English message (the API's, and the
// one in the database); the page says it again from the catalogue: a failure by its code, and
// anything else sentence by sentence from the runners' known sentences. A sentence nobody
// translated stays English, as the API wrote it (never dropped, never guessed).
import { hasMessage, type MessageKey } from '../../i18n/format.ts';
import type { Words } from './words.ts';

type Rule = [RegExp, (m: RegExpExecArray, w: Words) => string];
const int = (s: string | undefined): number => Number(s ?? 0);

/** "3 regions redacted (2 faces, 1 text region)." in the page's words. */
function redacted(m: RegExpExecArray, w: Words): string {
  const faces = m[2] !== undefined ? w.t('jobMsg.redacted.faces', { n: int(m[2]) }) : undefined;
  const text = m[3] !== undefined ? w.t('jobMsg.redacted.text', { n: int(m[3]) }) : undefined;
  const list = faces && text ? w.t('jobMsg.redacted.both', { faces, text }) : (faces ?? text ?? '');
  return w.t('jobMsg.redacted', { n: int(m[1]), list });
}

// Each rule reads one sentence at the start of what is left (the runners' texts: domain/jobs.ts,
// products/<product>/runner.ts, media/stego/*, media/convert/*; test/web-job-words.test.ts holds them to it).
const RULES: Rule[] = [
  [/^Queued\./, (_m, w) => w.t('jobMsg.queued')],
  [/^Queued again(?: after a restart|: the service restarted)\./, (_m, w) => w.t('jobMsg.requeued')],
  [/^Preparing the cover and the files to hide\./, (_m, w) => w.t('jobMsg.hide.preparing')],
  [/^Hiding\./, (_m, w) => w.t('jobMsg.hide.hiding')],
  [/^Looking for hidden content\./, (_m, w) => w.t('jobMsg.reveal.looking')],
  [/^Looking for content hidden by other tools\./, (_m, w) => w.t('jobMsg.reveal.lookingElsewhere')],
  [/^Converting file (\d+) of (\d+)\./, (m, w) => w.t('jobMsg.convert.file', { i: int(m[1]), n: int(m[2]) })],
  [/^Analysing file (\d+) of (\d+)\./, (m, w) => w.t('jobMsg.analyse.file', { i: int(m[1]), n: int(m[2]) })],
  [/^Hid (\d+) files? in the cover; the result is lossless\./, (m, w) => w.t('jobMsg.hide.done', { n: int(m[1]) })],
  [/^The decoy's (\d+) files? (?:is|are) hidden beside them, under the decoy passphrase\./, (m, w) => w.t('jobMsg.hide.decoy', { n: int(m[1]) })],
  [/^The passphrase is very short;[^.]*\. Use four or more random words\./, (_m, w) => w.t('jobMsg.weak.short')],
  [/^The passphrase repeats a few characters;[^.]*\. Use four or more random words\./, (_m, w) => w.t('jobMsg.weak.repeats')],
  [/^The passphrase is weak; use four or more random words, or a longer mix of characters\./, (_m, w) => w.t('jobMsg.weak.weak')],
  [/^The cover was animated; the result is a lossless ([\w ]+?) of its first picture\./, (m, w) => w.t('jobMsg.note.coverAnimated', { to: m[1] })],
  [/^The cover was an? ([\w ]+?); the result is a lossless ([\w ]+?) of its picture\./, (m, w) => w.t('jobMsg.note.coverFormat', { from: m[1], to: m[2] })],
  [/^The video is written losslessly as ([\w ]+? in \w+); it is much larger than the cover\./, (m, w) => w.t('jobMsg.note.videoLossless', { codec: m[1] })],
  [/^Recovered (\d+) hidden files?\./, (m, w) => w.t('jobMsg.reveal.done', { n: int(m[1]) })],
  [/^Recovered (\d+) hidden files?, hidden with (steghide|outguess|stegosuite)\./, (m, w) => w.t('jobMsg.reveal.doneWith', { n: int(m[1]), tool: m[2] })],
  [/^Converted (\d+) files?\./, (m, w) => w.t('jobMsg.convert.done', { n: int(m[1]) })],
  [/^Converted (\d+) of (\d+) files; (\d+) failed\./, (m, w) => w.t('jobMsg.convert.partial', { done: int(m[1]), n: int(m[2]), failed: int(m[3]) })],
  [/^No file could be converted\./, (_m, w) => w.t('jobMsg.convert.none')],
  [/^(\d+) regions? redacted \((?:(\d+) faces?)?(?:, )?(?:(\d+) text regions?)?\)\./, redacted],
  [/^Analysed (\d+) files?\./, (m, w) => w.t('jobMsg.analyse.done', { n: int(m[1]) })],
  [/^Analysed (\d+) of (\d+) files; (\d+) could not be analysed\./, (m, w) => w.t('jobMsg.analyse.partial', { done: int(m[1]), n: int(m[2]), failed: int(m[3]) })],
  [/^None of the (\d+) files could be analysed\./, (m, w) => w.t('jobMsg.analyse.none', { n: int(m[1]) })],
  [/^JPEG has no transparency: transparent areas were filled with white\./, (_m, w) => w.t('jobMsg.note.jpegWhite')],
  [/^The (image|video) was not enlarged \(it is (\d+)×(\d+)\); set upscale to true to enlarge it\./, (m, w) => w.t(m[1] === 'image' ? 'jobMsg.note.imageNotEnlarged' : 'jobMsg.note.videoNotEnlarged', { size: `${m[2]}×${m[3]}`, option: w.t('form.convert.upscale') })],
  [/^Only the first page of the (\d+)-page TIFF was converted\./, (m, w) => w.t('jobMsg.note.tiffFirstPage', { pages: int(m[1]) })],
  [/^quality does not apply to PNG; it is lossless\./, (_m, w) => w.t('jobMsg.note.qualityPng')],
  [/^quality does not apply to lossless output\./, (_m, w) => w.t('jobMsg.note.qualityLossless')],
  [/^The video carried a rotation flag; its frames were turned upright and the flag removed\./, (_m, w) => w.t('jobMsg.note.rotation')],
  [/^Only the first video and audio track were kept; subtitles, extra tracks, chapters and data streams were removed\./, (_m, w) => w.t('jobMsg.note.extraStreams')],
  [/^WebM audio is Opus, which is lossy; choose mkv for lossless audio \(FLAC\)\./, (_m, w) => w.t('jobMsg.note.webmOpus')],
  [/^(\w+) output keeps no animation here: only the first of the (\d+) frames was converted\. Choose webp to keep the animation\./, (m, w) => w.t('jobMsg.note.noAnimation', { format: m[1], pages: int(m[2]) })],
  [/^Redaction keeps no animation here: only the first of the (\d+) frames was redacted and converted\./, (m, w) => w.t('jobMsg.note.redactNoAnimation', { pages: int(m[1]) })],
];

/**
 * An English job text in the page's words, sentence by sentence (English too: its catalogue says
 * the runners' sentences as they wrote them). `perFileListed`: the page lists
 * each failed file with its own reason, so the message's "File 2: …" tail is not said twice.
 */
export function jobText(english: string, w: Words, opts: { perFileListed?: boolean } = {}): string {
  const out: string[] = [];
  let rest = english.trim();
  while (rest) {
    if (opts.perFileListed && /^File \d+: /.test(rest)) break;
    const rule = RULES.map(([re, say]) => [re.exec(rest), say] as const).find(([m]) => m);
    if (!rule) {
      out.push(rest);
      break;
    }
    const [m, say] = rule as [RegExpExecArray, Rule[1]];
    out.push(say(m, w));
    rest = rest.slice(m[0].length).trimStart();
  }
  return out.join(' ');
}

/** A failure's words: by its code where the catalogue has them, else its English text sentence by sentence. */
export function failureText(code: string | null | undefined, english: string, w: Words, opts: { perFileListed?: boolean } = {}): string {
  const key = `error.${code}`;
  if (code && hasMessage(key)) return w.t(key as MessageKey);
  return jobText(english, w, opts);
}
