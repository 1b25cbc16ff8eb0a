/**
 * How a command's result is printed. JSON (one object, one line) is what scripts have always read,
 * so it stays the default whenever stdout is not a terminal; a terminal gets tables. `--json` and
 * `--table` force either.
 */
export type OutputMode = 'json' | 'table';

export function outputMode(flags: { json: boolean; table: boolean }, isTTY: boolean): OutputMode {
  if (flags.json) return 'json';
  if (flags.table) return 'table';
  return isTTY ? 'table' : 'json';
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function table(rows: Array<Record<string, unknown>>): string {
  if (rows.length === 0) return '(none)';
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

/** The result as text: its scalar fields as `name: value` lines, its `rows` (if any) as a table. */
export function render(result: Record<string, unknown>, mode: OutputMode): string {
  if (mode === 'json') return JSON.stringify(result);
  const { rows, ...fields } = result;
  const lines = Object.entries(fields).map(([k, v]) => `${k}: ${cell(v)}`);
  if (Array.isArray(rows)) lines.push(...(lines.length > 0 ? [''] : []), table(rows as Array<Record<string, unknown>>));
  return lines.join('\n');
}
