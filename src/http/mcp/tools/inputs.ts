// The input schemas of the tools that start jobs, derived from the REST start bodies
// (products/<product>/start.ts): the same option fields, the same refusals and the same "Unknown
// option" message, made by the same strictBody. get_capabilities publishes them as each
// product's options. A call then starts through the REST body itself (products/start.ts).
import { z } from 'zod';
import type { Product } from '../../../domain/ports.ts';
import { START_OPTIONS } from '../../../products/index.ts';
import { expiryField } from '../../../products/start.ts';
import { strictBody } from '../../schemas/validate.ts';

export const uploadUid = z.string().min(1).max(64).describe('the upload_uid create_session gave');

/**
 * A REST field as a tool argument: optional rather than nullable (a tool caller leaves an
 * option out; JSON clients of REST may send null for "not set"), with its checks and words.
 */
function argument(field: z.ZodType): z.ZodType {
  const description = field.description;
  let inner = field;
  let optional = false;
  for (;;) {
    if (inner instanceof z.ZodOptional) optional = true;
    else if (inner instanceof z.ZodNullable) optional = true;
    else break;
    inner = inner.unwrap() as z.ZodType;
  }
  const arg = optional ? inner.optional() : inner;
  return description === undefined ? arg : arg.describe(description);
}

type Arguments<S extends z.ZodRawShape> = { [K in keyof S]: z.ZodType<Exclude<z.output<S[K]>, null>, Exclude<z.input<S[K]>, null>> };

/** A start tool's input: upload_uid, the product's REST options as arguments, then expiry. */
function startInput<S extends z.ZodRawShape>(options: { shape: S; tail: string }) {
  const args = Object.fromEntries(Object.entries(options.shape).map(([k, field]) => [k, argument(field as z.ZodType)])) as Arguments<S>;
  return strictBody({ upload_uid: uploadUid, ...args, expiry: argument(expiryField()) }, 'option', options.tail);
}

/** Each product's start tool input. */
export const START_INPUTS: Record<Product, z.ZodObject> = {
  hide: startInput(START_OPTIONS.hide),
  reveal: startInput(START_OPTIONS.reveal),
  analyse: startInput(START_OPTIONS.analyse),
  convert: startInput(START_OPTIONS.convert),
};
