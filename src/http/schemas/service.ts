// The service's own answers: health, the key check, and the shapes every error takes.
import { z } from 'zod';

export const Status = z.object({ status: z.literal('UP'), service: z.string(), version: z.string(), timestamp: z.iso.datetime() });

export const Account = z.object({ email: z.string(), verified: z.boolean(), active: z.boolean(), created_at: z.iso.datetime() });

export const ErrorBody = z
  .looseObject({
    error: z.string().describe('A stable, lower-case code.'),
    message: z.string().describe('What went wrong, for people.'),
  })
  .describe('Every error. Some carry details beside the two fields (retry_after, upload_offset, capacity_bytes, job_uid, request_id...).');

export const AUTH_CODES = ['missing_api_key', 'malformed_api_key', 'invalid_api_key', 'account_not_verified', 'account_inactive'] as const;

export const Unauthorized = z.looseObject({ error: z.enum(AUTH_CODES), message: z.string() });

export const RateLimited = z.looseObject({
  error: z.literal('rate_limited'),
  message: z.string(),
  retry_after: z.int().describe('Seconds, as in Retry-After.'),
});

export const Maintenance = z.looseObject({
  status: z.literal('MAINTENANCE'),
  error: z.literal('maintenance'),
  message: z.string(),
  service: z.string(),
  version: z.string(),
  timestamp: z.iso.datetime(),
  retry_after: z.int(),
});
