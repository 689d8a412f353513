// What every fuzzed parser must do with any input: give a result that makes sense, or refuse
// with the project's own error type. Anything else thrown (TypeError, RangeError, a plain
// Error) fails the property, and fast-check prints the input and the seed that found it.
import assert from 'node:assert/strict';

type ErrorClass = abstract new (...args: never[]) => Error;

/** Runs f; a `refusal` is fine, any other exception propagates; a result goes to `check`. */
export function resultOrRefusal<T>(refusal: ErrorClass, f: () => T, check: (r: T) => void = () => {}): void {
  let r: T;
  try {
    r = f();
  } catch (e) {
    if (e instanceof refusal) return;
    throw e;
  }
  check(r);
}

export async function resultOrRefusalAsync<T>(refusal: ErrorClass, p: Promise<T>, check: (r: T) => void = () => {}): Promise<void> {
  let r: T;
  try {
    r = await p;
  } catch (e) {
    if (e instanceof refusal) return;
    throw e;
  }
  check(r);
}

/** A size a result may report: a whole, positive, exactly representable number. */
export function assertDimension(n: unknown, what: string): void {
  assert.ok(typeof n === 'number' && Number.isSafeInteger(n) && n > 0, `${what} is ${String(n)}`);
}
