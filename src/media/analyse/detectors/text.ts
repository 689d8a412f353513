// Text: the lines OCR reads in the picture (boxes, text, confidence) and the whole text, in the
// verdict only: it is the user's content, so it never goes into a log line or a finding. Text
// that exposes the owner (e-mail, phone, plate, badge, street sign) raises a privacy finding
// that names the kind of thing, not its value. Off when the user did not ask for it: then no
// answer, and a finding says so.
import type { AnalyseInput, AnalyseOptions, Detector, DetectorResult, Finding } from '../detector.ts';
import { noAnswer } from '../detector.ts';
import { drawTextRegions } from '../text/draw.ts';
import { EXPOSURE_TEXT, exposures, type Exposure } from '../text/exposure.ts';
import type { TextRegion, TextReading } from '../text/types.ts';
import { overFrames } from '../video/frames.ts';
import { API_WORDS } from '../api-words.ts';

export interface TextVerdict {
  region_count: number;
  regions: TextRegion[];
  text: string;
  /** What sort of owner-exposing text was read, how often, and how bad (no values). */
  exposures: Exposure[];
  /** Videos: the lines read in each sampled frame; the rest is the frame with the most. */
  frames?: { time_s: number; count: number }[];
  time_s?: number;
}

const NAME = 'text';

export const textDetector: Detector<TextVerdict> = {
  name: NAME,
  verdictOrder: 80,
  grade: {
    // what readable text exposes (e-mail, phone: high; plate, badge, sign: medium)
    section: 'privacy',
    points: (v) => {
      const said = v?.exposures ?? [];
      if (said.some((x) => x.severity === 'high')) return [{ points: 2, reason: 'Readable text in the picture exposes its owner (an e-mail address or a phone number).' }];
      if (said.length) return [{ points: 1, reason: 'Readable text in the picture may identify a person or a place (a plate, a name tag or a street sign).' }];
      return [];
    },
  },
  async run(input: AnalyseInput, options: AnalyseOptions): Promise<DetectorResult<TextVerdict>> {
    if (options.text && !options.text.enabled) {
      return noAnswer(NAME, `Text detection was not asked for ${API_WORDS.textOff}: the text region ${API_WORDS.countNull}.`);
    }
    let reading: TextReading;
    let frames: { time_s: number; value: TextReading }[] | null = null;
    try {
      if (input.probe.kind === 'video') {
        // a video: every sampled frame is read; the answer is the frame with the most lines
        frames = await overFrames<TextReading>(input, options, 'text');
        if (!frames?.length) throw new Error('no frame could be read');
        reading = frames.reduce((a, b) => (b.value.regions.length > a.value.regions.length ? b : a)).value;
      } else reading = await input.text();
    } catch (e) {
      if ((e as { code?: string }).code === 'aborted' || options.signal?.aborted) throw e;
      return noAnswer(NAME, `Text could not be looked for in this file, so the text region ${API_WORDS.countNoAnswer}.`);
    }
    const found = exposures(reading.regions);
    const verdict: TextVerdict = { region_count: reading.regions.length, regions: reading.regions, text: reading.text, exposures: found };
    if (frames) {
      verdict.frames = frames.map((f) => ({ time_s: f.time_s, count: f.value.regions.length }));
      verdict.time_s = frames.find((f) => f.value === reading)?.time_s;
      // the same owner-exposing text seen in any frame counts, not only in the busiest one
      verdict.exposures = exposures(frames.flatMap((f) => f.value.regions));
    }
    const n = verdict.region_count;
    const findings: Finding[] = [
      n
        ? { detector: NAME, severity: 'info', label: `${n} line${n === 1 ? '' : 's'} of text found in the picture (the text is in the result).`, tip: `Text in a picture can say more than meant: ${API_WORDS.redactText} to blur it before sharing.` }
        : { detector: NAME, severity: 'info', label: 'No readable text found.' },
      ...verdict.exposures.map((x): Finding => ({ detector: 'privacy', severity: x.severity, label: EXPOSURE_TEXT[x.kind].label, tip: EXPOSURE_TEXT[x.kind].tip })),
    ];
    const assets = n && !frames ? [await drawTextRegions(await input.pixels(), reading.regions, options.outDir)] : [];
    return { verdict, findings, assets };
  },
};
