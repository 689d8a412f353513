// Each product's REST operations and the schemas the document names, in the order it lists them.
import type { z } from 'zod';
import type { Operation } from '../http/openapi/operation.ts';
import { analyseOperations, analyseSchemas } from './analyse/operations.ts';
import { convertOperations, convertSchemas } from './convert/operations.ts';
import { stegoOperations, stegoSchemas } from './stego/operations.ts';

export function productOperations(expiryMaxMs: number): Operation[] {
  return [...stegoOperations(expiryMaxMs), ...analyseOperations(expiryMaxMs), ...convertOperations(expiryMaxMs)];
}

/** Every product's tag, and its request bodies and answers by the names the document gives them. */
export function productSchemas(expiryMaxMs: number): { tags: { name: string; description: string }[]; requests: Record<string, z.ZodType>; answers: Record<string, z.ZodType> } {
  const all = [stegoSchemas(expiryMaxMs), analyseSchemas(expiryMaxMs), convertSchemas(expiryMaxMs)];
  return { tags: all.map((s) => s.tag), requests: Object.assign({}, ...all.map((s) => s.requests)), answers: Object.assign({}, ...all.map((s) => s.answers)) };
}
