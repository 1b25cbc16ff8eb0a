// A section that measured nothing is broken, whatever its figures would say: every request of a side failed,
// a fairness or webhook side gave up, no export byte came, no batch child delivered. The bench never fails on
// a figure, but it fails on these (exit 1), so a smoke run in CI (`--quick`) catches a section that rotted.
import type { AttackPhase } from './attacks';
import type { BatchRun } from './batch-fairness';
import type { VolumeRun } from './data-volume';
import type { ExportRun } from './export-memory';
import type { FairnessSide } from './fairness';
import type { KneeSeries } from './knee';
import type { LoadResult } from './load';
import type { WebhookSide } from './webhook';

export interface SectionResults {
  /** closed-loop runs by section and side: sync1, sync50, async, get, fleet */
  loads: Array<{ section: string; side: string; load: LoadResult }>;
  knees: KneeSeries[];
  exports: ExportRun[];
  batch: BatchRun | null;
  fairness: FairnessSide[] | null;
  webhooks: WebhookSide[] | null;
  /** the enrichment corpus's business addresses found, when the section ran */
  enrichmentFound: number | null;
  /** jobs per side of the verification section, when it ran */
  verificationJobs: number | null;
  /** the attacks section's phases, when it ran; a harness failure of the section is its message */
  attacks?: AttackPhase[] | string | null;
  /** leads the lead-size section measured, when it ran */
  leadSizeLeads: number | null;
  /** the data-volume section, when it ran */
  volume?: VolumeRun | null;
}

/** One line per broken section, saying why; empty when every section that ran measured something. */
export function brokenSections(r: SectionResults): string[] {
  const broken: string[] = [];
  for (const { section, side, load } of r.loads) {
    if (load.okTotal === 0) broken.push(`${section} ${side}: no request answered as expected (${load.firstError ?? 'no answer'})`);
    else if (load.errors > 0) broken.push(`${section} ${side}: ${load.errors} requests failed (${load.firstError ?? 'no message'})`);
  }
  for (const series of r.knees)
    // A loaded machine answers after the step's window (achieved 0/s): a figure. No 200 at all is a broken section.
    if (series.steps.every((step) => step.p50 === undefined))
      broken.push(`knee ${series.label}: no request answered a 200 (${series.steps.find((s) => s.firstError)?.firstError ?? 'no answer'})`);
  for (const run of r.exports) if (run.bytes === 0) broken.push(`export ${run.format} ${run.leads} ${run.side}: no byte downloaded`);
  if (r.batch && (r.batch.deliveredCount === 0 || r.batch.idleP50 === undefined || r.batch.duringP50 === undefined))
    broken.push(
      `batch: ${r.batch.deliveredCount} leads delivered, status ${r.batch.status}, other account's p50 idle ${r.batch.idleP50 ?? '-'} / during ${r.batch.duringP50 ?? '-'}`,
    );
  for (const side of r.fairness ?? []) {
    if (side.refused) broken.push(`fair ${side.label}: ${side.refused}`);
    else if (side.idle.length === 0 || side.backlog.length === 0) broken.push(`fair ${side.label}: no sample idle or during the backlog`);
  }
  for (const side of r.webhooks ?? []) {
    if (side.refused) broken.push(`webhook ${side.label}: ${side.refused}`);
    else if (side.idle.length === 0) broken.push(`webhook ${side.label}: no idle ping arrived`);
  }
  if (r.enrichmentFound === 0) broken.push('enrichment: no business address found in the corpus');
  if (r.verificationJobs === 0) broken.push('verify: no job measured');
  if (typeof r.attacks === 'string') broken.push(`attacks: ${r.attacks}`);
  else
    for (const phase of r.attacks ?? []) {
      if (phase.failed) broken.push(`attacks ${phase.name}: ${phase.failed}`);
      else if (phase.sync.length === 0 || phase.webhook.length + phase.late === 0)
        broken.push(`attacks ${phase.name}: the other account got no sync answer or no webhook (refused ${JSON.stringify(phase.refused)})`);
      // A row that cannot move is no figure: nothing of the attacker's taken on, nothing attacked (the uploads once read
      // OK with all 579 refused, the exports having spent the attacker's read window).
      else if (phase.admitted === 0)
        broken.push(
          `attacks ${phase.name}: none of the attacker's requests was admitted, nothing attacked (${JSON.stringify(phase.attacker)})`,
        );
    }
  if (r.leadSizeLeads === 0) broken.push('leadsize: no sandbox lead measured');
  for (const problem of r.volume?.problems ?? []) broken.push(`volume: ${problem}`);
  return broken;
}
