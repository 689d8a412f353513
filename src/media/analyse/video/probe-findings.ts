// What a video's container says about its maker, from ffprobe's tags (exiftool's QuickTime
// group is treated as technical by the privacy detector): encoder and handler strings,
// creation times, the recording device, and a location (ISO 6709, as QuickTime and Android
// write it). Plus one info line naming the container and codecs.
import type { AnalyseInput, AnalyseOptions, Finding, Severity } from '../detector.ts';
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
  const add = (category: string, severity: Severity, label: string, tip?: string) => {
    categories.push(category);
    findings.push({ detector: NAME, severity, label, ...(tip ? { tip } : {}) });
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
  if (gps) add('gps', 'high', `GPS position recorded in the video's container: ${gps.latitude.toFixed(4)}, ${gps.longitude.toFixed(4)}.`, 'Anyone with the file can see where it was made. Remove the location before sharing.');

  const device = pick(/^(com\.apple\.quicktime\.(make|model)|com\.android\.(manufacturer|model)|make|model)$/i);
  if (device.length) add('camera', 'medium', `Recording device named in the video's container (${device.slice(0, 3).map(short).join('; ')}).`, 'The make and model narrow down who could have filmed it.');

  const encoders = [...pick(/^(encoder|com\.apple\.quicktime\.software|com\.android\.version|software|encoded_by|writing_app)$/i), ...pick(/^handler_name$/i).filter((h) => !DEFAULT_HANDLER.test(h))];
  if (encoders.length) add('encoder', 'low', `Encoder or software strings recorded (${encoders.slice(0, 4).map(short).join('; ')}${encoders.length > 4 ? `; and ${encoders.length - 4} more` : ''}).`, 'They say which app, phone software or editor made the file.');

  const dates = pick(/^(creation_time|com\.apple\.quicktime\.creationdate|date|date_recorded)$/i).filter((d) => !/^(0000|1970-01-01T00:00:00|1904-01-01)/.test(d));
  if (dates.length) add('dates', 'low', `Creation times recorded in the video's container (${dates.slice(0, 3).map(short).join('; ')}).`, 'The time of recording, with its time zone, can place a person at a moment.');

  const codecs = info.streams.filter((s) => s.codec).map((s) => `${s.type} ${s.codec}${s.profile ? ` (${s.profile})` : ''}`);
  findings.push({ detector: NAME, severity: 'info', label: `Container ${info.container ?? 'unknown'}; streams: ${codecs.join(', ') || 'none readable'}.` });
  return { findings, categories, gps };
}
