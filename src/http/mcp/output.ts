// Output schemas. Each tool's success shape is what the SDK checks a result against before it
// leaves; the JSON Schema published for it also admits the error envelope, because SDK clients
// up to 1.32 check an error result's structuredContent against the output schema too
// (modelcontextprotocol/typescript-sdk#1943), and would reject every tool error otherwise.
import { z } from 'zod';

const ERROR_ENVELOPE = {
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'string', description: 'machine-readable code, as the REST API gives it' }, message: { type: 'string' } },
};

export function output<S extends z.ZodRawShape>(shape: S) {
  const success = z.looseObject(shape);
  const required = (z.toJSONSchema(success, { io: 'output' }).required as string[] | undefined) ?? [];
  // `required` moves into the success branch (undefined drops it from the published JSON)
  return success.meta({ required: undefined, anyOf: [{ required }, ERROR_ENVELOPE] } as Record<string, unknown>);
}

export const iso = z.string().describe('ISO 8601 time');
export const isoOrNull = iso.nullable();
