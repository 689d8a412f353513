// AI generation: does the file say it was made by a generative AI? Declared: a C2PA manifest
// or an IPTC/XMP DigitalSourceType with the "trained algorithmic media" values. Possible:
// weaker traces (generator settings in PNG text chunks, generator names in software tags, an
// "AI" credit line). Metadata proves nothing either way: it is easy to strip and to add.
import { c2paOf, type C2paReading } from '../c2pa-reader.ts';
import { throwIfAborted } from '../../errors.ts';
import { finding, noAnswer, type Detector, type DetectorResult, type Finding, type Tags } from '../detector.ts';
import { gradeReason } from '../grade.ts';
import { listOf, say, type Message, type MessageId, type MessageValue } from '../../../i18n/findings-format.ts';

export interface AiGenerationVerdict {
  verdict: 'declared_aigc' | 'possible_aigc' | 'no_indication';
  signals: { source: string; detail: string }[];
}

const NAME = 'ai_generation';

/** IPTC digital source types that declare generative AI (URL or bare term). */
const DECLARED_TYPE = /(^|\/)(trainedAlgorithmicMedia|compositeWithTrainedAlgorithmicMedia)$/i;
/** "A mix of elements, any of which may or may not be generative AI". */
const POSSIBLE_TYPE = /(^|\/)compositeSynthetic$/i;

/** PNG text chunks that generators write (keyword, lower case -> what it is). */
const PNG_GENERATOR_CHUNKS: Record<string, MessageId> = {
  parameters: 'finding.ai_generation.chunk.parameters',
  prompt: 'finding.ai_generation.chunk.prompt',
  workflow: 'finding.ai_generation.chunk.workflow',
  dream: 'finding.ai_generation.chunk.dream',
  'sd-metadata': 'finding.ai_generation.chunk.invokeai_metadata',
  invokeai_metadata: 'finding.ai_generation.chunk.invokeai_metadata',
  invokeai_graph: 'finding.ai_generation.chunk.invokeai_graph',
  generation_data: 'finding.ai_generation.chunk.generation_data',
};

/** Tags that name the software a file came from. */
const SOFTWARE_TAG = /:(Software|CreatorTool|ProcessingSoftware|HistorySoftwareAgent|SoftwareAgent|Source|Generator|Producer|Claim_?Generator\w*|AIGenerator\w*)$/i;
const GENERATOR_NAME =
  /\b(midjourney|dall[\s·.-]?e(\s?[23])?|stable[\s-]?diffusion|sdxl|automatic1111|comfyui|invokeai|fooocus|firefly|google imagen|imagen\s?\d|gemini|nano[\s-]?banana|novel\s?ai|leonardo\.ai|leonardo ai|flux(\.1)?|black forest labs|ideogram|dreamstudio|nightcafe|craiyon|playground ai|bing image creator|image creator from microsoft|chatgpt|gpt-image|gpt-4o|openai|sora|runwayml|runway gen-?\d|krea|recraft|seedream|hidream|kling|veo\s?\d|pika labs|luma ai|dream machine|grok|artbreeder|wombo|starryai)\b/i;
/** Credit lines such as Google's "Made with Google AI". */
const AI_CREDIT = /\b(made|created|generated|edited|enhanced)\s+(with|by|using)\s+([\w.-]+\s+){0,3}AI\b|\bAI[\s-]generated\b|\bgenerative AI\b/i;
/** The parameter line AUTOMATIC1111 writes (into PNG "parameters" or EXIF UserComment). */
const A1111_PARAMS = /\bSteps: \d+, Sampler: /;
const DESCRIPTIVE_TAG = /:(UserComment|ImageDescription|Description|Comment|Caption-Abstract)$/i;

const tagName = (k: string) => k.slice(k.indexOf(':') + 1);
const group = (k: string) => k.slice(0, Math.max(0, k.indexOf(':')));
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.flatMap(strings) : typeof v === 'string' ? [v] : []);
const short = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n - 3)}...` : s);
const term = (t: string) => t.slice(t.lastIndexOf('/') + 1);

/** A signal, and its detail as a message (the verdict's detail is its English text). */
type Signal = AiGenerationVerdict['signals'][number] & { said: Message };

function signal(source: string, id: MessageId, values: Record<string, MessageValue>): Signal {
  const r = say(id, values);
  return { source, detail: r.text, said: r.message };
}

function fromC2pa(reading: C2paReading, declared: Signal[], possible: Signal[]): void {
  if (reading.status !== 'manifest') return;
  const standing = reading.validation_state === 'Invalid' ? 'invalid' : 'signed';
  for (const dst of reading.digital_source_types) {
    const on = reading.actions.find((a) => a.digital_source_type === dst)?.action;
    const s = on ? signal('c2pa', 'finding.ai_generation.part.manifest_states_action', { standing, type: term(dst), action: on }) : signal('c2pa', 'finding.ai_generation.part.manifest_states', { standing, type: term(dst) });
    if (DECLARED_TYPE.test(dst)) declared.push(s);
    else if (POSSIBLE_TYPE.test(dst)) possible.push(s);
  }
  for (const g of reading.generators) {
    if (GENERATOR_NAME.test(g)) possible.push(signal('c2pa', 'finding.ai_generation.part.manifest_names_tool', { standing, tool: short(g) }));
  }
}

function fromTags(tags: Tags, manifestRead: boolean, declared: Signal[], possible: Signal[]): void {
  for (const [key, value] of Object.entries(tags)) {
    const name = tagName(key);
    const g = group(key);
    const values = strings(value);
    // exiftool also decodes C2PA manifests (groups JUMBF, CBOR): used only when the library
    // could not read the manifest, since the manifest reading already covers them
    const fromManifest = /^(JUMBF|CBOR|C2PA)/i.test(g);
    if (fromManifest && manifestRead) continue;
    const source = fromManifest ? `${key} (C2PA, not validated)` : key;

    if (/DigitalSourceType$/i.test(name)) {
      for (const v of values) {
        if (DECLARED_TYPE.test(v.trim())) declared.push(signal(source, 'finding.ai_generation.part.source_type', { type: term(v.trim()) }));
        else if (POSSIBLE_TYPE.test(v.trim())) possible.push(signal(source, 'finding.ai_generation.part.source_type', { type: term(v.trim()) }));
      }
      continue;
    }
    if (g.startsWith('PNG')) {
      const what = PNG_GENERATOR_CHUNKS[name.toLowerCase()];
      if (what) {
        possible.push(signal(key, 'finding.ai_generation.part.png_chunk', { what: { id: what } }));
        continue;
      }
    }
    const text = values.join(' ');
    if (!text) continue;
    if (SOFTWARE_TAG.test(key) && GENERATOR_NAME.test(text)) {
      possible.push(signal(source, 'finding.ai_generation.part.tag_names_tool', { tag: name, tool: short(text) }));
    } else if (/:Credit$/i.test(key) && AI_CREDIT.test(text)) {
      possible.push(signal(source, 'finding.ai_generation.part.credit_line', { text: short(text) }));
    } else if (DESCRIPTIVE_TAG.test(key) && A1111_PARAMS.test(text)) {
      possible.push(signal(source, 'finding.ai_generation.part.settings', { tag: name }));
    }
  }
}

const dedupe = (signals: Signal[]) => signals.filter((s, i) => signals.findIndex((t) => t.source === s.source && t.detail === s.detail) === i);
/** The first n signals ("a; b; c") and how many more: the findings' values. */
const list = (signals: Signal[], n = 3) => ({ signals: listOf(signals.slice(0, n).map((s) => s.said), 'finding.part.semicolon'), more: Math.max(0, signals.length - n) });

export const aiGenerationDetector: Detector<AiGenerationVerdict> = {
  name: NAME,
  verdictOrder: 10,
  explainNoAnswerOnVideo: true,
  grade: {
    section: 'provenance',
    points: (v) =>
      v?.verdict === 'declared_aigc'
        ? [gradeReason(2, 'grade.ai_generation.declared')]
        : v?.verdict === 'possible_aigc'
          ? [gradeReason(1, 'grade.ai_generation.possible')]
          : [],
  },
  async run(input, options): Promise<DetectorResult<AiGenerationVerdict>> {
    throwIfAborted(options.signal);
    const [reading, tags] = await Promise.all([c2paOf(input, options), input.tags().catch(() => null)]);
    const tagsRead = tags !== null && Object.keys(tags).length > 0;
    const c2paRead = reading.status !== 'unreadable';
    if (!tagsRead && !c2paRead) return noAnswer(NAME, 'finding.ai_generation.unreadable');

    const declared: Signal[] = [];
    const possible: Signal[] = [];
    fromC2pa(reading, declared, possible);
    if (tagsRead) fromTags(tags, reading.status === 'manifest', declared, possible);
    const d = dedupe(declared);
    const p = dedupe(possible);

    const findings: Finding[] = [];
    let verdict: AiGenerationVerdict['verdict'];
    if (d.length) {
      verdict = 'declared_aigc';
      findings.push(finding(NAME, 'medium', 'finding.ai_generation.declared', list(d), 'tip.ai_generation.declared'));
    } else if (p.length) {
      verdict = 'possible_aigc';
      findings.push(finding(NAME, 'low', 'finding.ai_generation.possible', list(p), 'tip.ai_generation.possible'));
    } else {
      verdict = 'no_indication';
      findings.push(finding(NAME, 'info', 'finding.ai_generation.none'));
    }
    if (!tagsRead) findings.push(finding(NAME, 'info', 'finding.ai_generation.tags_unreadable'));
    return { verdict: { verdict, signals: [...d, ...p].map(({ source, detail }) => ({ source, detail })) }, findings, assets: [] };
  },
};
