// A session and its files as clients read them: the same objects from REST and MCP.
import type { SessionLimits } from '../../domain/sessions.ts';
import type { SessionRow } from '../../domain/ports.ts';
import type { StoredFile } from '../../domain/uploads.ts';

/** A session as clients read it: its id is the wire's upload_uid, with the limits of its files (REST and MCP). */
export function sessionView(row: SessionRow, limits: SessionLimits): Record<string, unknown> {
  return {
    upload_uid: row.id,
    type: row.type,
    max_upload_bytes: limits.directUploadMax,
    max_file_bytes: limits.fileMax,
    max_files: limits.sessionMaxFiles,
    created_at: new Date(row.createdAt).toISOString(),
    expires_at: new Date(row.expiresAt).toISOString(),
  };
}

/** A stored file as clients read it (REST and MCP). */
export function fileView(f: StoredFile): Record<string, unknown> {
  return { storage_uid: f.id, name: f.name, step: f.step, size: f.size, status: f.complete ? 'completed' : 'uploading' };
}
