// The still-image checks on a video's sampled frames (frames.ts): the forensic maps on each
// frame, its worst frame giving the verdict, and LSB steganalysis when the codec is lossless
// (a lossy codec rewrites every low bit, so there LSB figures mean nothing).
import { finding, type AnalyseInput, type AnalyseOptions, type Detector, type DetectorResult, type Finding } from '../detector.ts';
import { say } from '../../../i18n/findings-format.ts';
import { analyseLsb } from '../steganalysis/index.ts';
import { losslessVideo, sampledFrames } from './frames.ts';

interface Scored {
  score: number;
  verdict: string;
}

/** The image detector on every sampled frame; the verdict is the worst frame's, with each
 *  frame's score listed. Only the worst frame's maps are kept as assets. */
export async function frameForensics<V extends Scored>(input: AnalyseInput, options: AnalyseOptions, detector: Detector<V>): Promise<DetectorResult<V & { frames: { time_s: number; keyframe: boolean; score: number | null; verdict: string | null }[]; worst_frame_s: number }>> {
  const frames = await sampledFrames(input, options);
  if (!frames.length) throw new Error('no frame could be decoded');
  const runs: { time_s: number; keyframe: boolean; r: DetectorResult<V> }[] = [];
  for (const f of frames) runs.push({ time_s: f.time_s, keyframe: f.keyframe, r: await detector.run(f.input, options) });
  const scored = runs.filter((x) => x.r.verdict);
  if (!scored.length) return { verdict: null, findings: runs[0].r.findings, assets: [] };
  const worst = scored.reduce((a, b) => (b.r.verdict!.score > a.r.verdict!.score ? b : a));
  // each of the worst frame's findings, said of that frame
  const findings: Finding[] = worst.r.findings.map((f) => {
    const at = say('finding.video.worst_frame', { time: worst.time_s.toFixed(2), sampled: runs.length, finding: { ...f.message, midSentence: true } });
    return { ...f, label: at.text, message: at.message };
  });
  const list = runs.map((x) => ({ time_s: x.time_s, keyframe: x.keyframe, score: x.r.verdict?.score ?? null, verdict: x.r.verdict?.verdict ?? null }));
  return { verdict: { ...worst.r.verdict!, frames: list, worst_frame_s: worst.time_s }, findings, assets: worst.r.assets };
}

export interface FrameLsb {
  suspected: boolean | null;
  payload_bpp: number | null;
  threshold_bpp: number | null;
  methods: { method: string; rate: number | null; detected: boolean | null }[];
  frames_checked: number;
  frames_suspected: number;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** LSB steganalysis of the sampled frames of a lossless video; null for a lossy one. The
 *  figures are the frame with the highest estimate's. */
export async function frameSteganalysis(input: AnalyseInput, options: AnalyseOptions): Promise<{ lsb: FrameLsb | null; findings: Finding[] }> {
  const NAME = 'hidden_content';
  if (!(await losslessVideo(input, options))) {
    return { lsb: null, findings: [finding(NAME, 'info', 'finding.hidden_content.video_lossy')] };
  }
  const frames = await sampledFrames(input, options);
  let best: ReturnType<typeof analyseLsb> | undefined;
  let checked = 0;
  let hits = 0;
  let answered = 0;
  for (const f of frames) {
    const v = analyseLsb(await f.input.pixels(), { samplePairs: options.depth === 'deep' });
    checked++;
    if (v.suspected !== null) answered++;
    if (v.suspected) hits++;
    if (!best || (v.rate ?? -1) > (best.rate ?? -1)) best = v;
  }
  if (!best) return { lsb: null, findings: [finding(NAME, 'info', 'finding.hidden_content.video_no_frame')] };
  const lsb: FrameLsb = {
    suspected: hits > 0 ? true : answered ? false : null,
    payload_bpp: best.rate === null ? null : round(best.rate),
    threshold_bpp: best.thresholdBpp === null ? null : round(best.thresholdBpp),
    methods: best.estimates.map((e) => ({ method: e.method, rate: e.rate === null ? null : round(e.rate), detected: e.detected })),
    frames_checked: checked,
    frames_suspected: hits,
  };
  const findings: Finding[] = [];
  if (hits) findings.push(finding(NAME, 'high', 'finding.hidden_content.video_lsb_suspected', { hits, checked, payload: String(lsb.payload_bpp) }, 'tip.hidden_content.video_lsb_suspected'));
  else if (answered) findings.push(finding(NAME, 'info', 'finding.hidden_content.video_lsb_none', { checked }));
  else findings.push(finding(NAME, 'info', 'finding.hidden_content.video_lsb_no_answer'));
  return { lsb, findings };
}
