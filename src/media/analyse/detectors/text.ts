// Text: the lines OCR reads in the picture (boxes, text, confidence) and the whole text, in the
// verdict only: it is the user's content, so it never goes into a log line or a finding. Text
// that exposes the owner (e-mail, phone, plate, badge, street sign) raises a privacy finding
// that names the kind of thing, not its value. Off when the user did not ask for it: then no
// answer, and a finding says so.
import type { AnalyseInput, AnalyseOptions, Detector, DetectorResult, Finding } from '../detector.ts';
import { finding, noAnswer } from '../detector.ts';
import { gradeReason } from '../grade.ts';
import { drawTextRegions } from '../text/draw.ts';
import { exposureFinding, exposures, type Exposure } from '../text/exposure.ts';
import type { TextRegion, TextReading } from '../text/types.ts';
import { overFrames } from '../video/frames.ts';
import { API_WORDS } from '../api-words.ts';
import { isAborted } from '../../errors.ts';

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
      if (said.some((x) => x.severity === 'high')) return [gradeReason(2, 'grade.text.high')];
      if (said.length) return [gradeReason(1, 'grade.text.medium')];
      return [];
    },
  },
  async run(input: AnalyseInput, options: AnalyseOptions): Promise<DetectorResult<TextVerdict>> {
    if (options.text && !options.text.enabled) {
      return noAnswer(NAME, { id: 'finding.text.off', values: { off: API_WORDS.textOff, count: API_WORDS.countNull } });
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
      if (isAborted(e) || options.signal?.aborted) throw e;
      return noAnswer(NAME, { id: 'finding.text.failed', values: { count: API_WORDS.countNoAnswer } });
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
        ? finding(NAME, 'info', 'finding.text.found', { count: n }, { id: 'tip.text.found', values: { redact: API_WORDS.redactText } })
        : finding(NAME, 'info', 'finding.text.none'),
      ...verdict.exposures.map(exposureFinding),
    ];
    const assets = n && !frames ? [await drawTextRegions(await input.pixels(), reading.regions, options.outDir)] : [];
    return { verdict, findings, assets };
  },
};
