// Audio splicing: sudden spectrum or level breaks far above the track's own variation, and
// gaps of digital silence between sounds (video/audio.ts). Applies to videos with audio.
import { throwIfAborted } from '../../errors.ts';
import { finding, type Detector, type DetectorResult, type Finding } from '../detector.ts';
import { gradeReason } from '../grade.ts';
import { listOf } from '../../../i18n/findings-format.ts';
import { audioBreaks, decodeAudio, MAX_AUDIO_S, RATE, type AudioBreak } from '../video/audio.ts';

export type AudioSpliceVerdict =
  | { applicable: false; reason: string }
  | { applicable: true; suspected: boolean; breaks: AudioBreak[]; seconds_read: number; truncated: boolean };

const NAME = 'audio_splice';
const MAX_LISTED = 50;

/** The first five breaks ("a ... at 1.20 s; ...") and how many more: the findings' values. */
const where = (bs: AudioBreak[]) => ({
  breaks: listOf(bs.slice(0, 5).map((b) => ({ id: 'finding.audio_splice.part.at' as const, values: { kind: { id: `finding.audio_splice.kind.${b.kind}` as const }, time: b.time_s.toFixed(2) } })), 'finding.part.semicolon'),
  more: Math.max(0, bs.length - 5),
});

export const audioSpliceDetector: Detector<AudioSpliceVerdict> = {
  name: NAME,
  verdictOrder: 110,
  grade: {
    section: 'splicing',
    points: (v) => (v?.applicable && v.suspected ? [gradeReason(1, 'grade.audio_splice.breaks')] : []),
  },
  async run(input, options): Promise<DetectorResult<AudioSpliceVerdict>> {
    if (input.probe.kind !== 'video') return { verdict: { applicable: false, reason: 'Only the audio of videos is checked for splices.' }, findings: [], assets: [] };
    if (!input.probe.hasAudio) {
      const said = finding(NAME, 'info', 'finding.audio_splice.no_audio');
      return { verdict: { applicable: false, reason: said.label }, findings: [said], assets: [] };
    }
    throwIfAborted(options.signal);
    const { pcm, truncated } = await decodeAudio(input, options);
    const breaks = audioBreaks(pcm);
    const findings: Finding[] = [];
    if (breaks.length) {
      findings.push(finding(NAME, 'medium', 'finding.audio_splice.breaks', where(breaks), 'tip.audio_splice.breaks'));
    } else {
      findings.push(finding(NAME, 'info', 'finding.audio_splice.none'));
    }
    if (truncated) findings.push(finding(NAME, 'info', 'finding.audio_splice.truncated', { minutes: MAX_AUDIO_S / 60 }));
    const seconds = Math.round((pcm.length / RATE) * 1000) / 1000;
    return { verdict: { applicable: true, suspected: breaks.length > 0, breaks: breaks.slice(0, MAX_LISTED), seconds_read: seconds, truncated }, findings, assets: [] };
  },
};
