// What finished jobs answer: result files of hide, reveal and convert, and analyse items (the
// same items on both interfaces).
import { z } from 'zod';
import { HIDDEN_WITH } from '../../media/stego/foreign.ts';

const iso = z.iso.datetime();
const state = z.enum(['queued', 'processing', 'completed', 'partial', 'failed']);
const download = {
  download_path: z.string().describe('The download, relative to the origin.'),
  download_url: z.url().describe('The download on the network the request came in on.'),
};

export const ResultFile = z.object({
  asset_id: z.string(),
  name: z.string().describe('The input it came from (a revealed file: its original name).'),
  output_name: z.string().optional(),
  mime_type: z.string(),
  file_size: z.int(),
  width: z.int().optional(),
  height: z.int().optional(),
  notes: z.array(z.string()),
  ...download,
});

export const ConvertResults = z.object({
  job_uid: z.string(),
  status: state,
  expires_at: iso.nullable(),
  result_files: z.array(ResultFile),
  failed_files: z.array(z.object({ name: z.string(), error: z.string(), message: z.string() })),
});

export const StegoResults = z.object({
  job_uid: z.string(),
  job_type: z.enum(['hide', 'reveal']),
  status: state,
  message: z.string(),
  expires_at: iso.nullable(),
  hidden_with: z.enum(HIDDEN_WITH).optional().describe("A reveal that found something: the program whose format it was (this service's, or steghide's, outguess's or stegosuite's)."),
  result_files: z.array(ResultFile),
});

const verdict = (what: string) => z.looseObject({}).nullable().describe(`${what}. null: the check gave no answer (never a clean result).`);

const AnalysedFile = z.object({
  name: z.string(),
  grade: z.enum(['A', 'B', 'C', 'D', 'F']),
  grade_reasons: z.array(z.object({ points: z.int(), reason: z.string() })),
  face_count: z.int().nullable(),
  text_region_count: z.int().nullable(),
  watermark_flagged: z.boolean().nullable(),
  steganography_suspected: z.boolean().nullable(),
  verdicts: z.object({
    ai_generation: verdict('Declared or likely AI generation'),
    c2pa: verdict('C2PA manifest, signature and trust'),
    camera_fingerprint: verdict('JPEG quantisation tables: quality and encoder family'),
    forensic: verdict("Error level, noise residual and (deep) copy-move: {score, verdict, ela, noise, clone}; clone (deep; null at standard depth) is {method: 'keypoints' or null when no copy was found, regions [{x, y, width, height}] (the two areas, in the picture's pixels), shift {dx, dy}, rotation_deg (clockwise) and scale of the copy, matches (keypoint pairs that agree), blocks (always 0: block matching was replaced), other_shifts (further copies)}"),
    privacy: verdict('Metadata that exposes the owner, place or device'),
    hidden_content: verdict('LSB steganalysis and appended or embedded data'),
    video_tamper: verdict('Videos: {applicable, suspected, breaks: [{time_s, kind, at_keyframe, strength}]} from frame timing, frame size or format changes and scene jumps; {applicable: false, reason} for images'),
    audio_splice: verdict('Videos: {applicable, suspected, breaks: [{time_s, kind, strength}]} from sudden spectrum or level breaks and gaps; {applicable: false, reason} for images and videos without audio'),
    watermark: verdict('Watermarks: {flagged, invisible: {mark, agreement, correlation} (the open dwtDct mark of Stable Diffusion 1.x, 2.x, XL), declared: [{source, field, value}] (rights and watermark fields, C2PA watermark statements), visible: [{text, where, kind}] (copyright or stock-agency text near the edges)}; a part is null when it could not answer'),
    faces: verdict('Faces found: count, model, threshold and boxes {x, y, width, height, score} in pixels of the picture as displayed'),
    text: verdict('Text read by OCR: region_count, regions [{box {x, y, width, height} in pixels of the picture as displayed, text, confidence 0..1}], text (every line), exposures [{kind: email|phone|handle|licence_plate|badge_name|street_sign, severity, count}]'),
    findings: z.array(
      z.object({
        label: z.string(),
        severity: z.enum(['info', 'low', 'medium', 'high']),
        detector: z.string(),
        tip: z.string().optional(),
      }),
    ),
  }),
  media: z.object({ kind: z.string(), format: z.string(), width: z.int(), height: z.int() }),
  assets: z.array(
    z.object({
      asset_id: z.string(),
      category: z.enum(['display_image', 'ela_map', 'forensic_noise_map', 'forensic_clone', 'faces', 'text_regions']),
      mime_type: z.string(),
      file_size: z.int(),
      ...download,
    }),
  ),
});

const FailedFile = z.object({ name: z.string(), error: z.string(), message: z.string(), grade: z.null() });

export const AnalyseItem = z.union([AnalysedFile, FailedFile]).describe('One file of an analysis: its verdicts, or why it could not be analysed.');

export const AnalyseResult = z.object({
  job_uid: z.string(),
  status: state,
  message: z.string(),
  expires_at: iso.nullable(),
  files: z.array(AnalyseItem),
});
