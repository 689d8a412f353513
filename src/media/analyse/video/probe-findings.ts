// What a video's container says about its maker, from ffprobe's tags (exiftool's QuickTime
// group is treated as technical by the privacy detector): encoder and handler strings,
// creation times, the recording device, and a location (ISO 6709, as QuickTime and Android
// write it). Plus one info line naming the container and codecs.
import { finding, type AnalyseInput, type AnalyseOptions, type Finding, type Severity, type TipMessage } from '../detector.ts';
import type { MessageId, MessageValue } from '../../../i18n/findings-format.ts';
import { streamInfo } from './stream.ts';

const NAME = 'privacy';
const short = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}...` : s);
/** Handler names muxers write by themselves: they say nothing about the maker. */
const DEFAULT_HANDLER = /^(VideoHandler|SoundHandler|DataHandler|Core Media (Video|Audio|Data)|Mainconcept (Video|Audio) Media Handler|ISO Media file produced by Google Inc\.|L-SMASH (Video|Audio) Handler)$/i;

export interface VideoPrivacy {
  findings: Finding[];
  categories: string[];
  gps: { latitude: number; longitude: number } | null;
}

export async function videoProbeFindings(input: AnalyseInput, options: AnalyseOptions): Promise<VideoPrivacy> {
  const info = await streamInfo(input, options);
  const findings: Finding[] = [];
  const categories: string[] = [];
  const add = (category: string, severity: Severity, id: MessageId, values: Record<string, MessageValue>, tip?: TipMessage) => {
    categories.push(category);
    findings.push(finding(NAME, severity, id, values, tip));
  };
  const all: [string, string][] = [...Object.entries(info.formatTags), ...info.streams.flatMap((s) => Object.entries(s.tags))];
  const pick = (re: RegExp) => [...new Set(all.filter(([k, v]) => re.test(k) && v.trim()).map(([, v]) => v.trim()))];

  let gps: VideoPrivacy['gps'] = null;
  for (const v of pick(/^(location(-\w+)?|com\.apple\.quicktime\.location\.ISO6709|com\.android\.location)$/i)) {
    const m = /^([+-]\d+(?:\.\d+)?)([+-]\d+(?:\.\d+)?)/.exec(v);
    if (m) {
      gps = { latitude: Number(m[1]), longitude: Number(m[2]) };
      break;
    }
  }
  if (gps) add('gps', 'high', 'finding.privacy.video_gps', { latitude: gps.latitude.toFixed(4), longitude: gps.longitude.toFixed(4) }, 'tip.privacy.gps');

  const device = pick(/^(com\.apple\.quicktime\.(make|model)|com\.android\.(manufacturer|model)|make|model)$/i);
  if (device.length) add('camera', 'medium', 'finding.privacy.video_device', { names: device.slice(0, 3).map(short).join('; ') }, 'tip.privacy.video_device');

  const encoders = [...pick(/^(encoder|com\.apple\.quicktime\.software|com\.android\.version|software|encoded_by|writing_app)$/i), ...pick(/^handler_name$/i).filter((h) => !DEFAULT_HANDLER.test(h))];
  if (encoders.length) add('encoder', 'low', 'finding.privacy.video_encoders', { names: encoders.slice(0, 4).map(short).join('; '), more: Math.max(0, encoders.length - 4) }, 'tip.privacy.video_encoders');

  const dates = pick(/^(creation_time|com\.apple\.quicktime\.creationdate|date|date_recorded)$/i).filter((d) => !/^(0000|1970-01-01T00:00:00|1904-01-01)/.test(d));
  if (dates.length) add('dates', 'low', 'finding.privacy.video_dates', { dates: dates.slice(0, 3).map(short).join('; ') }, 'tip.privacy.video_dates');

  const codecs = info.streams.filter((s) => s.codec).map((s) => `${s.type} ${s.codec}${s.profile ? ` (${s.profile})` : ''}`);
  findings.push(finding(NAME, 'info', 'finding.privacy.video_container', { container: info.container ?? { id: 'finding.part.unknown' }, streams: codecs.join(', ') || { id: 'finding.part.none_readable' } }));
  return { findings, categories, gps };
}
