// hide_file(secret_path, cover_path, password, output_dir?): the secret encrypted and hidden
// losslessly in the cover; the result saved beside the cover (it is a copy of the cover's
// picture) or in output_dir, never over an existing file.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CompanionError } from '../errors.ts';
import { inputFile, outputDir } from '../paths.ts';
import { download, localName } from '../save.ts';
import { downloading, runTask } from '../task.ts';
import { runTool, type ToolDeps } from './run-tool.ts';
import { checkPassword } from './password.ts';

export function registerHideFile(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'hide_file',
    {
      title: 'Hide a file inside an image or video',
      description:
        'Encrypts secret_path with password and hides it inside cover_path (an image or a video) with the Obscura service. The result ' +
        'looks like the cover and is lossless (PNG for images, MKV for videos); it is saved beside the cover (or in output_dir) ' +
        'under a new name, never over an existing file. Sharing it re-encoded (most messengers and social sites do) destroys the secret: ' +
        'send it as a file. Get the secret back with reveal_file and the same password. With decoy_path and decoy_password a decoy is ' +
        'hidden beside it: reveal_file with decoy_password gives the decoy and nothing else, and nothing shows that ' +
        'the secret exists; the decoy must be at least as large as the secret, also once compressed.',
      inputSchema: {
        secret_path: z.string().describe('Path of the file to hide.'),
        cover_path: z.string().describe('Path of the image or video to hide it in.'),
        password: z.string().describe('Passphrase that encrypts the secret; the same one reveals it. Use a long one.'),
        output_dir: z.string().optional().describe('Existing folder to save into; by default the folder of cover_path.'),
        decoy_path: z.string().optional().describe('Path of a decoy file, to give away if a passphrase is demanded (with decoy_password).'),
        decoy_password: z.string().optional().describe('A different passphrase, for the decoy (with decoy_path).'),
      },
      outputSchema: {
        saved_to: z.string().describe('Absolute path of the file holding the hidden secret.'),
        mime_type: z.string(),
        bytes: z.number(),
        message: z.string().describe("The service's word on the job (a weak passphrase, a decoded JPEG cover)."),
      },
      annotations: { title: 'Hide a file inside an image or video', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    runTool('hide_file', deps, async (args: { secret_path: string; cover_path: string; password: string; output_dir?: string; decoy_path?: string; decoy_password?: string }, { progress, signal }) => {
      checkPassword(args.password);
      if ((args.decoy_path === undefined) !== (args.decoy_password === undefined)) {
        throw new CompanionError('decoy_incomplete', 'A decoy is decoy_path and decoy_password together: give both, or neither.', { argument: args.decoy_path === undefined ? 'decoy_path' : 'decoy_password' });
      }
      const secret = await inputFile(args.secret_path, 'secret_path');
      const cover = await inputFile(args.cover_path, 'cover_path');
      const decoy = args.decoy_path === undefined ? undefined : await inputFile(args.decoy_path, 'decoy_path');
      const dir = await outputDir(args.output_dir, cover);
      const api = deps.api();
      const files: { file: typeof secret; step: 1 | 2 | 3 }[] = [
        { file: secret, step: 1 },
        { file: cover, step: 2 },
        ...(decoy ? [{ file: decoy, step: 3 as const }] : []),
      ];
      const options = { password: args.password, ...(args.decoy_password !== undefined ? { decoy_password: args.decoy_password } : {}) };
      return runTask(api, { product: 'hide', files, options, progress, signal }, async ({ uploadUid, job }) => {
        const results = await api.json('GET', `/api/job/${encodeURIComponent(uploadUid)}/results`, undefined, { signal });
        const made = results.result_files?.[0];
        if (!made) throw new CompanionError('hide_failed', job.progress_message || 'The service made no output.');
        const size = Number(made.file_size);
        const saved = await download(api, `/api/job/download/${encodeURIComponent(made.asset_id)}`, dir, localName(made.output_name ?? made.name, 'hidden.png'), size, signal, downloading(progress, size));
        return { saved_to: saved.path, mime_type: String(made.mime_type), bytes: saved.bytes, message: job.progress_message ?? '' };
      });
    }),
  );
}
