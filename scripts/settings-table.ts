// Writes the settings table of docs/operators.md from src/config/settings.ts.
//   npm run docs:settings            rewrite it
//   npm run docs:settings -- --check exit 1 if it is not what the declarations give
import { readFileSync, writeFileSync } from 'node:fs';
import { withSettingsTable } from '../src/config/table.ts';

const file = new URL('../docs/operators.md', import.meta.url);
const before = readFileSync(file, 'utf8');
const after = withSettingsTable(before);
if (process.argv.includes('--check')) {
  if (after !== before) {
    console.error('docs/operators.md: the settings table differs from src/config/settings.ts; run npm run docs:settings');
    process.exit(1);
  }
} else if (after !== before) {
  writeFileSync(file, after);
  console.log('docs/operators.md: settings table written');
} else console.log('docs/operators.md: settings table up to date');
