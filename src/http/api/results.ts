import type { AssetPrivate } from '../../domain/jobs.ts';
import type { AssetRow } from '../../store/repositories.ts';
import { urlFor, type Ctx } from '../context.ts';

/** A result file as clients read it; URLs on the network the request came in on. */
export function resultFile(ctx: Ctx, a: AssetRow & AssetPrivate, downloadBase: string): Record<string, unknown> {
  const path = `${downloadBase}/${a.id}`;
  return {
    asset_id: a.id,
    name: a.name,
    output_name: a.outputName,
    mime_type: a.mimeType,
    file_size: a.size,
    ...(a.extra?.width ? { width: a.extra.width, height: a.extra.height } : {}),
    notes: (a.extra?.notes as string[] | undefined) ?? [],
    download_path: path,
    download_url: urlFor(ctx, path),
  };
}
