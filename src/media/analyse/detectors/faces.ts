// Faces: how many, and where (boxes in pixels of the picture as displayed), with a picture
// that shows them. Off when the user did not ask for it: then no answer, and a finding says so.
import type { AnalyseInput, AnalyseOptions, Detector, DetectorResult } from '../detector.ts';
import { finding, noAnswer } from '../detector.ts';
import type { FaceBox, FaceDetection, FaceModel } from '../faces/detect.ts';
import { drawFaces } from '../faces/draw.ts';
import { overFrames } from '../video/frames.ts';
import { API_WORDS } from '../api-words.ts';
import { isAborted } from '../../errors.ts';

export interface FacesVerdict {
  count: number;
  model: FaceModel;
  threshold: number;
  boxes: FaceBox[];
  /** Videos: the faces of each sampled frame; count and boxes are the frame with the most. */
  frames?: { time_s: number; count: number }[];
  time_s?: number;
}

const NAME = 'faces';

export const facesDetector: Detector<FacesVerdict> = {
  name: NAME,
  verdictOrder: 70,
  async run(input: AnalyseInput, options: AnalyseOptions): Promise<DetectorResult<FacesVerdict>> {
    if (options.faces && !options.faces.enabled) {
      return noAnswer(NAME, { id: 'finding.faces.off', values: { off: API_WORDS.facesOff, count: API_WORDS.countNull } });
    }
    if (input.probe.kind === 'video') return videoFaces(input, options);
    let pixels, found;
    try {
      pixels = await input.pixels();
      found = await input.faces();
    } catch (e) {
      if (isAborted(e)) throw e;
      return noAnswer(NAME, { id: 'finding.faces.failed', values: { count: API_WORDS.countNoAnswer } });
    }
    const verdict: FacesVerdict = { count: found.faces.length, model: found.model, threshold: found.threshold, boxes: found.faces };
    const n = verdict.count;
    const findings: DetectorResult<FacesVerdict>['findings'] = [
      n
        ? finding(NAME, 'low', 'finding.faces.found', { count: n }, { id: 'tip.faces.found', values: { redact: API_WORDS.redactFaces } })
        : finding(NAME, 'info', 'finding.faces.none'),
    ];
    const assets = n ? [await drawFaces(pixels, found.faces, options.outDir)] : [];
    return { verdict, findings, assets };
  },
};

// A video: the sampled frames (keyframes and uniform samples) are each looked at; the answer is
// the frame with the most faces, and every frame's count is in the verdict.
async function videoFaces(input: AnalyseInput, options: AnalyseOptions): Promise<DetectorResult<FacesVerdict>> {
  let per: { time_s: number; value: FaceDetection }[] | null;
  try {
    per = await overFrames<FaceDetection>(input, options, 'faces');
  } catch (e) {
    if (isAborted(e) || options.signal?.aborted) throw e;
    per = null;
  }
  if (!per?.length) return noAnswer(NAME, { id: 'finding.faces.video_failed', values: { count: API_WORDS.countNoAnswer } });
  const most = per.reduce((a, b) => (b.value.faces.length > a.value.faces.length ? b : a));
  const n = most.value.faces.length;
  const verdict: FacesVerdict = {
    count: n,
    model: most.value.model,
    threshold: most.value.threshold,
    boxes: most.value.faces,
    frames: per.map((f) => ({ time_s: f.time_s, count: f.value.faces.length })),
    time_s: most.time_s,
  };
  const findings: DetectorResult<FacesVerdict>['findings'] = [
    n
      ? finding(NAME, 'low', 'finding.faces.video_found', { count: n, time: most.time_s.toFixed(1), frames: per.length }, { id: 'tip.faces.video_found', values: { redact: API_WORDS.redactFaces } })
      : finding(NAME, 'info', 'finding.faces.video_none', { frames: per.length }),
  ];
  return { verdict, findings, assets: [] };
}
