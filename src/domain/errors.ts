// What went wrong, in the users' words. Every error code the service answers with is declared
// once, in ERRORS, with its kind; the HTTP layer maps each kind to a status (STATUS_OF in
// http/middleware/errors.ts, v1's own table in http/v1/errors.ts); the domain never speaks HTTP.
export type ErrorKind =
  | 'bad_request'
  | 'invalid'
  | 'unauthorized'
  | 'payment_required'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'length_required'
  | 'too_large'
  | 'range_not_satisfiable'
  | 'unsupported_media'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

export interface ErrorSpec {
  kind: ErrorKind;
  /** When it happens, in one short line (the OpenAPI document writes its error answers from these). */
  summary: string;
  /** The user-facing message, where it never varies: `new AppError(code)` then needs none. */
  message?: string;
}

/**
 * The catalogue: every code an AppError carries (and every code a body schema's refusal carries:
 * http/schemas/validate.ts), one kind each. test/error-catalogue.test.ts checks the sources and
 * the OpenAPI document against it.
 */
export const ERRORS = {
  // --- keys and accounts
  missing_api_key: { kind: 'unauthorized', summary: 'no API key was sent' },
  malformed_api_key: { kind: 'unauthorized', summary: 'the API key is not in the expected format', message: 'The API key is not in the expected format; send the whole key, prefix included.' },
  invalid_api_key: { kind: 'unauthorized', summary: 'the API key is unknown, revoked or expired', message: 'The API key is not valid: it is unknown, revoked or expired.' },
  account_not_verified: { kind: 'unauthorized', summary: "the key's account has not verified its e-mail address" },
  account_inactive: { kind: 'unauthorized', summary: 'the account was deactivated by the operator' },
  sign_in_failed: { kind: 'unauthorized', summary: 'the e-mail address or the password is wrong' },
  key_not_found: { kind: 'not_found', summary: 'no such key on the account' },
  account_exists: { kind: 'conflict', summary: 'an account with that e-mail address already exists', message: 'an account with that e-mail already exists' },
  account_not_found: { kind: 'not_found', summary: 'no account with that e-mail address', message: 'no account with that e-mail' },
  already_verified: { kind: 'conflict', summary: 'the address is verified already' },
  invalid_email: { kind: 'invalid', summary: 'not an e-mail address' },
  missing_credentials: { kind: 'invalid', summary: 'the e-mail address or the password is missing', message: 'Enter your e-mail address and your password.' },
  weak_password: { kind: 'invalid', summary: 'the new password is too short, too long or too common' },
  passwords_differ: { kind: 'invalid', summary: 'the two passwords typed differ', message: 'The two passwords differ; type the same password twice.' },
  sign_up_closed: { kind: 'forbidden', summary: 'sign-up is closed: the service sends no mail', message: 'Sign-up is closed on this service: it sends no mail, and an address must be verified. The operator adds accounts with the command line.' },
  mail_off: { kind: 'forbidden', summary: 'the service sends no mail' },
  mail_failed: { kind: 'unavailable', summary: 'the mail could not be sent just now', message: 'The mail could not be sent just now; try again in a few minutes.' },
  link_invalid: { kind: 'gone', summary: "an e-mail's link is not valid (used, expired, or its account gone)" },

  // --- request bodies (http/body.ts, the web forms)
  invalid_json: { kind: 'bad_request', summary: 'the body is not JSON', message: 'The body is not valid JSON.' },
  body_too_large: { kind: 'too_large', summary: 'the JSON body (or the form) is over its size limit' },
  expected_json: { kind: 'unsupported_media', summary: 'the body is labelled as something else and is not JSON', message: 'Send the body as application/json.' },
  invalid_body: { kind: 'invalid', summary: 'the body is not a JSON object', message: 'The body must be a JSON object.' },
  invalid_input: { kind: 'invalid', summary: 'the input is not valid' },
  unknown_field: { kind: 'invalid', summary: 'the body has a field the operation does not take' },
  unknown_option: { kind: 'invalid', summary: 'the body has an option the job does not take' },
  invalid_option: { kind: 'invalid', summary: "an option's value is not one the job takes" },
  invalid_field: { kind: 'invalid', summary: "a field's value is not valid" },
  csrf_failed: { kind: 'forbidden', summary: "a form's security token does not match", message: 'This form is stale or did not come from this page (its security token does not match); open the page again and resend it.' },
  expected_form: { kind: 'unsupported_media', summary: 'a form was not sent as a form', message: 'Send this form from its page.' },
  expected_multipart: { kind: 'unsupported_media', summary: 'the body is not multipart/form-data' },
  invalid_multipart: { kind: 'bad_request', summary: 'the form body is not valid multipart' },
  field_too_long: { kind: 'invalid', summary: "a form's field is too long" },
  too_many_fields: { kind: 'invalid', summary: 'a form has too many fields or parts' },
  too_many_files: { kind: 'invalid', summary: 'a form has too many files' },
  invalid_language: { kind: 'bad_request', summary: 'not a language of the site' },
  invalid_back: { kind: 'bad_request', summary: 'back is not a path on this site', message: 'back must be a path on this site, starting with one /.' },

  // --- sessions and uploads
  invalid_session_type: { kind: 'invalid', summary: "the session's type is not one the route takes" },
  session_not_found: { kind: 'not_found', summary: "no such session of this kind, or another account's" },
  session_expired: { kind: 'gone', summary: 'its 24 hours are over and its files destroyed', message: 'This session has expired or was deleted; start a new one.' },
  session_busy: { kind: 'conflict', summary: 'a job is queued or running on the session (job_uid)', message: 'A job is queued or running on this session: its files cannot change until the job ends; poll it, or start a new session.' },
  session_used: { kind: 'conflict', summary: 'the session (or media-url) has had its job, in any state (job_uid, job_status): it holds one job, ever, so another job needs a new one' },
  missing_upload_uid: { kind: 'invalid', summary: 'no upload_uid names the session' },
  invalid_step: { kind: 'invalid', summary: "the step is not one the session's type takes" },
  step_full: { kind: 'invalid', summary: 'the step has all the files it takes' },
  invalid_name: { kind: 'invalid', summary: 'the file name is missing or not a string' },
  name_too_long: { kind: 'invalid', summary: 'the file name is over its length limit' },
  invalid_size: { kind: 'invalid', summary: 'the size is not a whole number of bytes, at least 1' },
  invalid_client_upload_id: { kind: 'invalid', summary: 'X-Client-Upload-Id is not short printable text' },
  invalid_content_length: { kind: 'bad_request', summary: 'Content-Length is not a byte count', message: 'Content-Length is not a byte count.' },
  length_mismatch: { kind: 'bad_request', summary: 'the body held more or fewer bytes than its Content-Length' },
  length_required: { kind: 'length_required', summary: 'no Content-Length' },
  file_too_large: { kind: 'too_large', summary: 'the file is over the largest file taken (max_upload_bytes)' },
  upload_in_progress: { kind: 'conflict', summary: 'some files are still uploading (or the same X-Client-Upload-Id is under way)' },
  upload_not_found: { kind: 'not_found', summary: 'no such upload (or not one of this interface)', message: 'No such upload.' },
  upload_expired: { kind: 'gone', summary: 'the upload has expired and its bytes were destroyed', message: 'This upload has expired and its bytes were destroyed.' },
  upload_deleted: { kind: 'gone', summary: 'the upload was deleted' },
  offset_mismatch: { kind: 'conflict', summary: 'the offset sent is not where the upload stands (upload_offset)' },
  upload_incomplete: { kind: 'invalid', summary: 'the upload is not complete (upload_offset)' },
  // v1's chunks (http/v1/upload.ts, domain/uploads-v1.ts): each carries upload_offset
  invalid_key: { kind: 'invalid', summary: "no key names the media-url" },
  upload_complete: { kind: 'invalid', summary: 'the upload is already complete' },
  empty_chunk: { kind: 'invalid', summary: 'the file part is empty' },
  chunk_too_large: { kind: 'invalid', summary: 'the chunk is over the chunk limit' },
  chunk_past_end: { kind: 'invalid', summary: 'the chunk would end past the declared size' },
  malformed_multipart: { kind: 'invalid', summary: 'the multipart body could not be parsed' },
  body_incomplete: { kind: 'invalid', summary: 'the body ended early' },
  too_many_parts: { kind: 'invalid', summary: 'the body has too many parts' },
  unexpected_part: { kind: 'invalid', summary: 'the body has a part other than offset and file' },
  missing_offset: { kind: 'invalid', summary: 'the offset field is missing' },
  repeated_offset: { kind: 'invalid', summary: 'the offset field appears more than once' },
  missing_file: { kind: 'invalid', summary: 'the file part is missing' },
  repeated_file: { kind: 'invalid', summary: 'the file part appears more than once' },
  invalid_offset: { kind: 'invalid', summary: 'the offset is negative, not a whole number or out of range' },

  // --- jobs
  not_available: { kind: 'not_found', summary: 'the product is not available on this service' },
  invalid_expiry: { kind: 'invalid', summary: 'expiry is not a duration the service takes' },
  no_files: { kind: 'invalid', summary: 'the session has no files yet', message: 'This session has no files yet; upload them first.' },
  no_secret: { kind: 'invalid', summary: 'a hide has no file to hide (step 1)', message: 'Upload at least one file to hide (step 1).' },
  no_cover: { kind: 'invalid', summary: 'a hide has not exactly one cover (step 2)', message: 'Upload exactly one cover image (step 2).' },
  no_file: { kind: 'invalid', summary: 'a reveal has no file to reveal from (step 1)', message: 'Upload the one file to reveal from (step 1).' },
  missing_password: { kind: 'invalid', summary: 'no passphrase, or an empty one' },
  invalid_password: { kind: 'invalid', summary: 'the passphrase is over its length limit' },
  secret_too_large: { kind: 'invalid', summary: 'the files to hide are over the capacity of the cover or OBSCURA_MAX_REVEAL_BYTES (capacity_bytes, needed_bytes)' },
  decoy_incomplete: { kind: 'invalid', summary: 'a decoy is its files (step 3) and decoy_password, both or neither' },
  decoy_same_password: { kind: 'invalid', summary: "the decoy passphrase is the secret's", message: "The decoy passphrase is the secret's: choose two different passphrases." },
  decoy_too_small: { kind: 'invalid', summary: 'the decoy is smaller than the secret, which its size would give away' },
  unsupported_media: { kind: 'unsupported_media', summary: 'a file of a kind outside the allow-list (a PDF, a ZIP)' },
  invalid_wait: { kind: 'invalid', summary: 'wait is not a whole number of seconds from 0 to 30' },
  job_not_found: { kind: 'not_found', summary: 'no such job (or no job started on the session)' },
  job_not_finished: { kind: 'conflict', summary: 'the job has not finished: poll until it has (retry_after)', message: 'The job has not finished yet; poll it until it does.' },
  job_failed: { kind: 'invalid', summary: 'the job failed' },
  results_expired: { kind: 'gone', summary: 'the results have expired and were destroyed' },
  asset_not_found: { kind: 'not_found', summary: 'no such result file', message: 'No such file.' },
  range_not_satisfiable: { kind: 'range_not_satisfiable', summary: 'the Range is outside the file (Content-Range gives its size)' },
  analyse_session: { kind: 'invalid', summary: 'an analysis has one report per file, not result files', message: 'An analysis answers one report per file: call get_analyse_result with this upload_uid.' },
  // the media engine's refusals of a file (media/errors.ts MediaErrorCode, the pool's
  // worker_stopped), as a job's start answers them
  limit_exceeded: { kind: 'invalid', summary: 'a file is over a size limit (pixels, frames, resolution, duration)' },
  output_too_large: { kind: 'invalid', summary: 'the result the options ask for would be over a limit' },
  too_much_memory: { kind: 'invalid', summary: 'the work would need more memory than one job may have' },
  corrupt: { kind: 'unsupported_media', summary: 'the file is damaged' },
  empty: { kind: 'unsupported_media', summary: 'the file is empty' },
  engine_failed: { kind: 'unsupported_media', summary: 'the media tools could not read the file' },
  cpu_budget_exceeded: { kind: 'unsupported_media', summary: 'the file needed more CPU time than a job may have' },
  reveal_too_large: { kind: 'unsupported_media', summary: 'the hidden files are over the bound' },
  nothing_found: { kind: 'unsupported_media', summary: 'nothing hidden was found' },
  aborted: { kind: 'unsupported_media', summary: 'the work was stopped' },
  worker_stopped: { kind: 'unsupported_media', summary: 'the worker stopped while processing the file' },

  // --- the service
  rate_limited: { kind: 'rate_limited', summary: 'too many requests: try again after retry_after seconds' },
  maintenance: { kind: 'unavailable', summary: 'the service is down for maintenance (retry_after)' },

  // --- the command line (backup, restore, copy-accounts)
  no_master_key: { kind: 'invalid', summary: 'restore finds no master key' },
  no_stores: { kind: 'invalid', summary: 'the command needs the database and blob store it is not given' },
  no_target: { kind: 'invalid', summary: 'no target database to copy the accounts to', message: 'set OBSCURA_TARGET_DATABASE_URL to the database to copy the accounts to' },
  not_embedded: { kind: 'invalid', summary: 'backup and restore are for the embedded engine only' },
  backup_dir_not_empty: { kind: 'invalid', summary: 'the backup folder is not empty' },
  backup_blob_torn: { kind: 'internal', summary: 'blobs could not be copied whole' },
  backup_damaged: { kind: 'invalid', summary: 'the backup is damaged, altered or not a backup' },
  backup_too_new: { kind: 'invalid', summary: 'the backup was made by a newer version' },
  data_dir_in_use: { kind: 'conflict', summary: 'the data folder already holds data' },
  wrong_master_key: { kind: 'invalid', summary: "the master key is not the one the backup's data was sealed with" },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

/** The codes whose message never varies: an AppError of one of them may leave its message out. */
export type CodeWithMessage = { [C in ErrorCode]: (typeof ERRORS)[C] extends { message: string } ? C : never }[ErrorCode];

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERRORS, code);
}

/**
 * A failure code from elsewhere (the media engine's) as a catalogue code. The catalogue holds
 * every code the engine answers with (media/errors.ts, the pool's worker_stopped), so this throws
 * only for a code added there and not here: a bug, answered 500.
 */
export function errorCode(code: string): ErrorCode {
  if (!isErrorCode(code)) throw new Error(`the error code ${code} is not in the catalogue (domain/errors.ts)`);
  return code;
}

export class AppError extends Error {
  override name = 'AppError';
  /** Machine-readable code, sent as `error`. */
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: CodeWithMessage, message?: string, details?: Record<string, unknown>);
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>);
  constructor(code: ErrorCode, message?: string, details?: Record<string, unknown>) {
    const spec: ErrorSpec = ERRORS[code];
    if (!spec) throw new Error(`new AppError(): ${String(code)} is not in the catalogue`);
    super(message ?? spec.message);
    this.code = code;
    this.details = details;
  }

  /** The catalogue's kind of the code: one code, one kind, wherever it is raised. */
  get kind(): ErrorKind {
    return ERRORS[this.code].kind;
  }
}

/** Whether `err` is an AppError with one of these codes (checked against the catalogue by type). */
export function hasCode(err: unknown, ...codes: ErrorCode[]): err is AppError {
  return err instanceof AppError && codes.includes(err.code);
}
