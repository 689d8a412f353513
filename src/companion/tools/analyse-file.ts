// analyse_file(file_path, face_detection=true, text_detection=true): the service's per-file
// report (grade, verdicts, findings) for one local image or video. Nothing is saved.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CompanionError } from '../errors.ts';
import { inputFile } from '../paths.ts';
import { runTask } from '../task.ts';
import { runTool, type ToolDeps } from './run-tool.ts';

const NULL_NOTE = 'A null verdict or count means the check gave no answer for this file (it does not apply, or could not run); it never means clean. The findings say why.';

export function registerAnalyseFile(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'analyse_file',
    {
      title: 'Analyse an image or video',
      description:
        'Analyses one local image or video with the Obscura service: signs of manipulation and AI generation, C2PA provenance, ' +
        'camera fingerprint, hidden content, privacy exposures (GPS, camera serials, faces, text), graded A (clean) to F. ' +
        'Returns the per-file verdicts and findings. ' +
        NULL_NOTE,
      inputSchema: {
        file_path: z.string().describe('Path of the image or video to analyse.'),
        face_detection: z.boolean().default(true).describe('Look for faces.'),
        text_detection: z.boolean().default(true).describe('Look for text in the picture.'),
      },
      outputSchema: {
        file_path: z.string(),
        grade: z.string().describe('A (clean, authentic, nothing exposed) to F.'),
        grade_reasons: z.array(z.unknown()),
        face_count: z.number().nullable(),
        text_region_count: z.number().nullable(),
        watermark_flagged: z.boolean().nullable(),
        steganography_suspected: z.boolean().nullable(),
        media: z.record(z.string(), z.unknown()).optional(),
        verdicts: z.record(z.string(), z.unknown()).describe('ai_generation, c2pa, camera_fingerprint, forensic, privacy, hidden_content, and findings [{label, severity, detector, tip?}].'),
        assets: z.array(z.object({ category: z.string(), mime_type: z.string(), file_size: z.number() })).describe('Maps the service made (kept on the service with the results; not downloaded).'),
        note: z.string(),
      },
      annotations: { title: 'Analyse an image or video', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    runTool('analyse_file', deps, async (args: { file_path: string; face_detection: boolean; text_detection: boolean }, { progress, signal }) => {
      const file = await inputFile(args.file_path, 'file_path');
      const api = deps.api();
      const options = { face_detection: args.face_detection, text_detection: args.text_detection };
      const { job, result } = await runTask(api, { product: 'analyse', files: [{ file, step: 1 }], options, progress, signal }, async ({ job }) => ({
        job,
        result: await api.json('GET', `/api/analyse/result/${encodeURIComponent(job.job_uid)}`, undefined, { signal }),
      }));
      const item = result.files?.[0];
      if (!item) throw new CompanionError('analyse_failed', job.progress_message || 'The service gave no report for this file.');
      if (item.grade === null || item.grade === undefined) throw new CompanionError(item.error || 'analyse_failed', item.message || 'The file could not be analysed.');
      return {
        file_path: file.path,
        grade: String(item.grade),
        grade_reasons: Array.isArray(item.grade_reasons) ? item.grade_reasons : [],
        face_count: item.face_count ?? null,
        text_region_count: item.text_region_count ?? null,
        watermark_flagged: item.watermark_flagged ?? null,
        steganography_suspected: item.steganography_suspected ?? null,
        ...(item.media && typeof item.media === 'object' ? { media: item.media } : {}),
        verdicts: item.verdicts ?? {},
        assets: ((item.assets ?? []) as { category: string; mime_type: string; file_size: number }[]).map((a) => ({ category: a.category, mime_type: a.mime_type, file_size: a.file_size })),
        note: NULL_NOTE,
      };
    }),
  );
}
