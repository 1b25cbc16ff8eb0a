import { VARIABLES } from './variables';
import type { Variable } from './variable';

/**
 * docs/configuration.md's table sits between these two lines; `npm run docs:config` writes it. Links in a
 * variable's description are relative to docs/ (`decisions/...`, `operations.md#...`).
 */
export const CONFIG_TABLE_START = '<!-- config-table: written by `npm run docs:config` from packages/config/src/variables.ts -->';
export const CONFIG_TABLE_END = '<!-- /config-table -->';

function shownDefault(variable: Variable<unknown>): string {
  if (variable.options.shownDefault !== undefined) return variable.options.shownDefault;
  const value = (variable.schema.describe().flags as { default?: unknown } | undefined)?.default;
  if (value === undefined) return '—';
  // A flag is written as an operator sets it.
  return `\`${typeof value === 'boolean' ? Number(value) : String(value)}\``;
}

/** The Markdown table of every variable, in declaration order. */
export function renderConfigTable(): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const rows = VARIABLES.map((v) => `| \`${v.name}\` | ${cell(shownDefault(v))} | ${cell(v.description)} |`);
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The page with its configuration table replaced by the declaration's; throws if the markers are missing. */
export function withConfigTable(page: string): string {
  const start = page.indexOf(CONFIG_TABLE_START);
  const end = page.indexOf(CONFIG_TABLE_END);
  if (start < 0 || end < start) throw new Error(`the page has no "${CONFIG_TABLE_START}" ... "${CONFIG_TABLE_END}" section`);
  return `${page.slice(0, start + CONFIG_TABLE_START.length)}\n${renderConfigTable()}\n${page.slice(end)}`;
}
