import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { promtool } from './promtool';

/**
 * What Prometheus would hold after scraping an exposition twice, a minute apart, from processes that started
 * with it: counters (and histograms' series) at 0 then at their value, gauges at their value both times. The
 * series are written in promtool's `input_series` notation, each with an `instance` label as a scrape adds.
 */
export function scrapedSeries(exposition: string, instance = 'test'): Array<{ series: string; values: string }> {
  const types = new Map<string, string>();
  const series: Array<{ series: string; values: string }> = [];
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (!line || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`unparsable exposition line: ${line}`);
    const [, name, labels, raw] = sample;
    const value = Number(raw);
    if (!Number.isFinite(value)) continue; // NaN and ±Inf: nothing Prometheus would draw
    const family = types.has(name!) ? name! : name!.replace(/_(bucket|sum|count)$/, '');
    const growing = ['counter', 'histogram'].includes(types.get(family) ?? 'gauge');
    const all = [labels, `instance="${instance}"`].filter(Boolean).join(',');
    series.push({ series: `${name}{${all}}`, values: growing ? `0 ${value}` : `${value} ${value}` });
  }
  return series;
}

/**
 * The queries among `exprs` that select no series at all from `series` a minute after the first scrape (what a
 * Grafana panel shows as "No data"), each asked through promtool's rule unit tests as `absent(expr)`, which is
 * empty exactly when the query selects something.
 */
export function emptyQueries(exprs: string[], series: Array<{ series: string; values: string }>): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-panels-'));
  try {
    const rules = path.join(dir, 'none.yaml');
    writeFileSync(rules, stringify({ groups: [] }));
    return exprs.filter((expr) => {
      const file = path.join(dir, 'panel.test.yaml');
      writeFileSync(
        file,
        stringify({
          rule_files: [rules],
          evaluation_interval: '1m',
          tests: [
            {
              interval: '1m',
              input_series: series,
              promql_expr_test: [{ expr: `absent(${expr})`, eval_time: '1m', exp_samples: [] }],
            },
          ],
        }),
      );
      const run = promtool(['test', 'rules', file]);
      const output = `${run.stdout}${run.stderr}`;
      if (run.status === 0) return false;
      if (!/FAILED/.test(output) || /could not|error|parse/i.test(output.replace(/FAILED:[\s\S]*$/, '')))
        throw new Error(`promtool could not evaluate ${expr}:\n${output}`);
      return true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
