// Audio splicing: sudden spectrum or level breaks far above the track's own variation, and
// gaps of digital silence between sounds (video/audio.ts). Applies to videos with audio.
import { throwIfAborted } from '../../errors.ts';
import type { Detector, DetectorResult, Finding } from '../detector.ts';
import { audioBreaks, decodeAudio, MAX_AUDIO_S, RATE, type AudioBreak } from '../video/audio.ts';

export type AudioSpliceVerdict =
  | { applicable: false; reason: string }
  | { applicable: true; suspected: boolean; breaks: AudioBreak[]; seconds_read: number; truncated: boolean };

const NAME = 'audio_splice';
const MAX_LISTED = 50;

const KIND_LABEL: Record<AudioBreak['kind'], string> = {
  spectrum_break: 'a sudden change of sound',
  level_break: 'a sudden jump in loudness',
  gap: 'a gap of digital silence',
};

export const audioSpliceDetector: Detector<AudioSpliceVerdict> = {
  name: NAME,
  verdictOrder: 110,
  grade: {
    section: 'splicing',
    points: (v) => (v?.applicable && v.suspected ? [{ points: 1, reason: 'The audio breaks abruptly: another recording may have been spliced in.' }] : []),
  },
  async run(input, options): Promise<DetectorResult<AudioSpliceVerdict>> {
    if (input.probe.kind !== 'video') return { verdict: { applicable: false, reason: 'Only the audio of videos is checked for splices.' }, findings: [], assets: [] };
    if (!input.probe.hasAudio) {
      const reason = 'The video has no audio track, so there is no audio to check for splices.';
      return { verdict: { applicable: false, reason }, findings: [{ detector: NAME, severity: 'info', label: reason }], assets: [] };
    }
    throwIfAborted(options.signal);
    const { pcm, truncated } = await decodeAudio(input, options);
    const breaks = audioBreaks(pcm);
    const findings: Finding[] = [];
    const where = breaks.slice(0, 5).map((b) => `${KIND_LABEL[b.kind]} at ${b.time_s.toFixed(2)} s`).join('; ') + (breaks.length > 5 ? `; and ${breaks.length - 5} more` : '');
    if (breaks.length) {
      findings.push({ detector: NAME, severity: 'medium', label: `The audio breaks abruptly, far beyond its usual variation: ${where}. Another recording may have been spliced in, or a part cut out.`, tip: 'Listen around these times; an edited soundtrack or a hard cut in music can look the same.' });
    } else {
      findings.push({ detector: NAME, severity: 'info', label: 'No sudden break or gap found in the audio. This does not prove it is unedited.' });
    }
    if (truncated) findings.push({ detector: NAME, severity: 'info', label: `Only the first ${MAX_AUDIO_S / 60} minutes of audio were checked for splices.` });
    const seconds = Math.round((pcm.length / RATE) * 1000) / 1000;
    return { verdict: { applicable: true, suspected: breaks.length > 0, breaks: breaks.slice(0, MAX_LISTED), seconds_read: seconds, truncated }, findings, assets: [] };
  },
};
