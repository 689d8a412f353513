// convert_file(file_path, output_format, output_dir?): one image or video in, the converted
// file saved beside it (or in output_dir) under a name that overwrites nothing.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CompanionError } from '../errors.ts';
import { ALL_FORMATS, formatOption } from '../formats.ts';
import { inputFile, outputDir } from '../paths.ts';
import { download, localName } from '../save.ts';
import { downloading, runTask } from '../task.ts';
import { runTool, type ToolDeps } from './run-tool.ts';

export function registerConvertFile(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'convert_file',
    {
      title: 'Convert an image or video',
      description:
        'Converts one local image or video to another format with the Obscura service, and saves the result beside the input ' +
        '(or in output_dir) under a new name; no existing file is ever overwritten. Inputs are recognised by their content ' +
        '(JPEG, PNG, WebP, AVIF, HEIC, JPEG XL, GIF, TIFF, BMP and common video containers). Returns where the output was saved.',
      inputSchema: {
        file_path: z.string().describe('Path of the image or video to convert (absolute is safest).'),
        // a plain string, checked by the tool, so that a wrong value comes back as an {error}
        // listing the choices; the enum is still shown to the model
        output_format: z
          .string()
          .meta({ enum: ALL_FORMATS })
          .describe('Target format. Images: jpeg, png, webp, avif, heic, jxl. Videos: mp4h264, mp4h265, webm, mkv, mov.'),
        output_dir: z.string().optional().describe('Existing folder to save into; by default the folder of file_path.'),
      },
      outputSchema: {
        saved_to: z.string().describe('Absolute path of the converted file.'),
        output_format: z.string(),
        mime_type: z.string(),
        bytes: z.number(),
        width: z.number().optional(),
        height: z.number().optional(),
        notes: z.array(z.string()).describe('What the service changed or dropped on the way, if anything.'),
      },
      annotations: { title: 'Convert an image or video', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    runTool('convert_file', deps, async (args: { file_path: string; output_format: string; output_dir?: string }, { progress, signal }) => {
      const format = formatOption(args.output_format);
      const file = await inputFile(args.file_path, 'file_path');
      const dir = await outputDir(args.output_dir, file);
      const api = deps.api();
      const target = Object.values(format)[0];
      return runTask(api, { product: 'convert', files: [{ file, step: 1 }], options: format, progress, signal }, async ({ uploadUid }) => {
        const results = await api.json('GET', `/api/convert/job/${encodeURIComponent(uploadUid)}/results`, undefined, { signal });
        const made = results.result_files?.[0];
        if (!made) {
          const failed = results.failed_files?.[0];
          throw new CompanionError(failed?.error || 'conversion_failed', failed?.message || 'The service made no output for this file.');
        }
        const size = Number(made.file_size);
        const saved = await download(api, `/api/convert/download/${encodeURIComponent(made.asset_id)}`, dir, localName(made.output_name ?? made.name, `converted.${target}`), size, signal, downloading(progress, size));
        return {
        saved_to: saved.path,
        output_format: target,
        mime_type: String(made.mime_type),
        bytes: saved.bytes,
        ...(typeof made.width === 'number' ? { width: made.width, height: made.height } : {}),
        notes: Array.isArray(made.notes) ? made.notes.map(String) : [],
        };
      });
    }),
  );
}
