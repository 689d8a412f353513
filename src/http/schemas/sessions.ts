// Sessions: the bodies that create one (checked by api/sessions.ts) and what they answer.
import { z } from 'zod';
import { PRODUCTS, type SessionType } from '../../domain/ports.ts';
import { strictBody, withCodes } from './validate.ts';

const typeOf = (allowed: readonly [string, ...string[]]) => z.enum(allowed, { error: `type must be ${allowed.map((t) => `"${t}"`).join(' or ')}.` });

const body = <S extends z.ZodRawShape>(shape: S) =>
  withCodes(strictBody(shape, 'field'), { unknown: 'unknown_field', fields: { type: 'invalid_session_type' } });

const bodies = new Map<string, SessionBody>();

export type SessionBody = ReturnType<typeof body<{ type: z.ZodOptional<z.ZodEnum> | z.ZodEnum }>>;

/**
 * The body that creates a session on a path its products share: with one product the type is
 * implied (if sent, it must agree); with several (hide and reveal) it says which. One schema
 * object per set, so the routes and the document hold the very same one.
 */
export function sessionBody(types: readonly [SessionType, ...SessionType[]]): SessionBody {
  const key = types.join(',');
  let made = bodies.get(key);
  if (!made) bodies.set(key, (made = types.length === 1 ? body({ type: typeOf(types).optional() }) : body({ type: typeOf(types).describe('What the session is for.') })));
  return made;
}

/** POST /api/session: a hide or a reveal. */
export const HideRevealSessionBody = sessionBody(['hide', 'reveal']);

const iso = z.iso.datetime();

export const Session = z.object({
  upload_uid: z.string().describe("The session's id: it names the session in uploads, jobs and polls."),
  type: z.enum(PRODUCTS),
  max_upload_bytes: z.int().describe('Largest direct upload (POST /api/upload).'),
  max_file_bytes: z.int().describe('Largest file by any upload.'),
  max_files: z.int().describe('Most files at step 1.'),
  created_at: iso,
  expires_at: iso.describe('After this every call on the session answers 410 and its files are destroyed.'),
});

export const StoredFile = z.object({
  storage_uid: z.string(),
  name: z.string().describe('The last path segment of the name sent, made safe.'),
  step: z.int().describe('1: the input, the secret or the stego file; 2: the cover of a hide.'),
  size: z.int(),
  status: z.enum(['uploading', 'completed']),
});

/** DELETE of a session: its files and its jobs' results are destroyed now. */
export const SessionDeleted = z.object({
  upload_uid: z.string(),
  type: z.enum(PRODUCTS),
  deleted: z.literal(true),
  files_destroyed: z.int(),
  jobs_destroyed: z.int(),
});

export const SessionFiles = z.object({ upload_uid: z.string(), files: z.array(StoredFile) });

export const DirectUploadResult = z.object({ file: StoredFile });
