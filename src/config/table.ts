// The operators' table of settings (docs/operators.md "Configuration"), written from the
// declarations so that it cannot drift from them: `npm run docs:settings` rewrites it,
// test/config-docs.test.ts fails while it differs.
import { SETTINGS, type Setting } from './settings.ts';

export const TABLE_START = '<!-- settings: written by `npm run docs:settings` from src/config/settings.ts; edit them there -->';
export const TABLE_END = '<!-- /settings -->';

/** The default as the table shows it. */
export function shownDefault(s: Setting): string {
  return s.shown ?? (s.default === undefined ? 'unset' : `\`${s.default}\``);
}

export function settingsTable(): string {
  const rows = (Object.entries(SETTINGS) as [string, Setting][]).map(([name, s]) => `| \`${name}\` | ${shownDefault(s)} | ${s.doc} |`);
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The document with the table between the markers replaced by the one the declarations give. */
export function withSettingsTable(doc: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`the settings table's markers are missing: ${TABLE_START} … ${TABLE_END}`);
  return `${doc.slice(0, start + TABLE_START.length)}\n\n${settingsTable()}\n\n${doc.slice(end)}`;
}
