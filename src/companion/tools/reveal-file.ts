// reveal_file(stego_path, password, output_dir?): every secret hidden in the file, saved under
// its original name beside the stego file (or in output_dir), never over an existing file.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { inputFile, outputDir } from '../paths.ts';
import { download, localName } from '../save.ts';
import { downloading, runTask } from '../task.ts';
import { checkPassword } from './password.ts';
import { runTool, type ToolDeps } from './run-tool.ts';

export function registerRevealFile(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'reveal_file',
    {
      title: 'Reveal a file hidden in an image or video',
      description:
        'Recovers the file(s) hidden by hide_file in stego_path with password, using the Obscura service, and saves each under its ' +
        'original name beside stego_path (or in output_dir); a name already taken gets " (1)" and so on, nothing is overwritten. ' +
        'A wrong passphrase, a file with nothing hidden and a re-encoded file all give the same error, nothing_found; ' +
        'hidden files larger than the service gives back in one reveal give reveal_too_large, with the limit.',
      inputSchema: {
        stego_path: z.string().describe('Path of the image or video holding the hidden file.'),
        password: z.string().describe('The passphrase used when hiding.'),
        output_dir: z.string().optional().describe('Existing folder to save into; by default the folder of stego_path.'),
      },
      outputSchema: {
        files: z
          .array(z.object({ name: z.string().describe('The original name of the hidden file.'), saved_to: z.string(), mime_type: z.string(), bytes: z.number() }))
          .describe('Every recovered file, where it was saved.'),
        message: z.string(),
      },
      annotations: { title: 'Reveal a file hidden in an image or video', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    runTool('reveal_file', deps, async (args: { stego_path: string; password: string; output_dir?: string }, { progress, signal }) => {
      checkPassword(args.password);
      const stego = await inputFile(args.stego_path, 'stego_path');
      const dir = await outputDir(args.output_dir, stego);
      const api = deps.api();
      return runTask(api, { product: 'reveal', files: [{ file: stego, step: 1 }], options: { password: args.password }, progress, signal }, async ({ uploadUid, job }) => {
        const results = await api.json('GET', `/api/job/${encodeURIComponent(uploadUid)}/results`, undefined, { signal });
        const list = (results.result_files ?? []) as { asset_id: string; name: string; mime_type: string; file_size: number }[];
        const total = list.reduce((n, f) => n + Number(f.file_size), 0);
        const onBytes = downloading(progress, total, 'Downloading the recovered files');
        const files = [];
        let before = 0;
        for (const [i, f] of list.entries()) {
          // the name comes from inside the stego file: only its last segment is ever used
          const name = localName(f.name, `revealed-${i + 1}.bin`);
          const saved = await download(api, `/api/job/download/${encodeURIComponent(f.asset_id)}`, dir, name, Number(f.file_size), signal, (n) => onBytes(before + n));
          before += saved.bytes;
          files.push({ name, saved_to: saved.path, mime_type: String(f.mime_type), bytes: saved.bytes });
        }
        return { files, message: job.progress_message ?? '' };
      });
    }),
  );
}
