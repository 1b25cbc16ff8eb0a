import { promtool } from './promtool';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { collectProcessMetrics, registeredMetricNames } from '@leadgen/ops';

// deploy/grafana and deploy/prometheus name metrics as text: a renamed metric would leave a panel
// empty and an alert silent without anyone noticing. Every name they use must be one the code registers.
const ROOT = path.resolve(__dirname, '..');
const DASHBOARD = path.join(ROOT, 'deploy/grafana/leadgen-overview.json');
const ALERTS = path.join(ROOT, 'deploy/prometheus/leadgen-alerts.yaml');
const ALERT_TESTS = path.join(ROOT, 'deploy/prometheus/leadgen-alerts.test.yaml');
const RUNBOOKS = path.join(ROOT, 'docs/runbooks.md');

interface Rule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: string };
  annotations: { summary: string; runbook_url?: string };
}

const METRIC = /\b(?:leadgen|process|nodejs)_[a-z0-9_]+\b/g;
// A histogram is registered under its base name and exposed with these suffixes.
const base = (name: string) => name.replace(/_(bucket|count|sum)$/, '');

function namesIn(expressions: string[]): string[] {
  return [...new Set(expressions.flatMap((e) => e.match(METRIC) ?? []).map(base))].sort();
}

describe('deploy/ dashboards and alerts', () => {
  let registered: string[];
  beforeAll(async () => {
    collectProcessMetrics();
    registered = await registeredMetricNames();
  });

  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
  const rules = (parse(readFileSync(ALERTS, 'utf8')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((g) => g.rules);

  it('when the Grafana dashboard is read, then every metric its panels name is registered by the code', () => {
    const names = namesIn(dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)));
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((n) => !registered.includes(n))).toEqual([]);
  });

  it('when promtool checks the alert rules, then they are valid Prometheus rules', () => {
    const check = promtool(['check', 'rules', ALERTS]);
    expect({ status: check.status, output: check.stderr.trim() }).toEqual({ status: 0, output: '' });
    expect(check.stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('when the alert rules are read, then every metric they name is registered by the code', () => {
    const names = namesIn(rules.map((r) => r.expr));
    expect(names.filter((n) => !registered.includes(n))).toEqual([]);
  });

  it('when the alert rules are read, then each operator alert is there with a duration, a severity, a summary and a runbook section that exists', () => {
    expect(rules.map((r) => r.alert).sort()).toEqual([
      'LeadgenCreditLedgerDrift',
      'LeadgenHeldBacklog',
      'LeadgenJobFailureRatio',
      'LeadgenMonitorsOverdue',
      'LeadgenNoWorkerConsuming',
      'LeadgenQueueBackingUp',
      'LeadgenReadReplicaLagging',
      'LeadgenReadReplicaNotUsed',
      'LeadgenTargetDown',
      'LeadgenUpstream429Storm',
      'LeadgenWebhookDeliveriesFailing',
    ]);
    // GitHub's anchors: a heading `## LeadgenHeldBacklog` is #leadgenheldbacklog.
    const anchors = readFileSync(RUNBOOKS, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('## '))
      .map((line) => `docs/runbooks.md#${line.slice(3).trim().toLowerCase()}`);
    for (const rule of rules) {
      expect(rule.for).toMatch(/^\d+m$/);
      expect(['warning', 'critical']).toContain(rule.labels.severity);
      expect(rule.annotations.summary).toBeTruthy();
      expect(anchors).toContain(rule.annotations.runbook_url);
    }
  });

  it('when promtool runs the rules unit tests, then each new alert fires on its condition and not before', () => {
    const run = promtool(['test', 'rules', ALERT_TESTS]);
    expect({ status: run.status, output: `${run.stdout}${run.stderr}`.trim() }).toEqual({
      status: 0,
      output: expect.stringMatching(/SUCCESS$/),
    });
  });

  it('when every leadgen_ metric the code registers is listed, then the dashboard shows each one', () => {
    const shown = namesIn(dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)));
    expect(registered.filter((n) => n.startsWith('leadgen_') && !shown.includes(n))).toEqual([]);
  });
});
