// Every test file imports `test` from here rather than from ava: it adds the egress check
// after each test.
import anyTest, { type TestFn } from 'ava';
import { takeEgressViolations } from './no-egress.ts';

export const test = anyTest as TestFn;

test.afterEach.always('no connection left this machine', (t) => {
  const v = takeEgressViolations();
  if (v.length) t.fail(`the process tried to open outbound connections: ${v.join(', ')}`);
});

export default test;
