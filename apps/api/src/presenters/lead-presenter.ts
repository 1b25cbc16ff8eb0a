import type { LeadRow } from '@leadgen/db';

/**
 * A delivered lead as the lead listings' items and JSON Lines exports carry it (docs/api.md, "Leads
 * and exports"), as JSON text: the record is spliced in as PostgreSQL wrote it, never parsed again.
 */
export function presentLeadItemJson(row: LeadRow): string {
  const head = JSON.stringify({
    jobId: row.jobId,
    resultSetId: row.resultSetId,
    position: row.position,
    deliveredAt: row.deliveredAt.toISOString(),
  });
  return `${head.slice(0, -1)},"lead":${row.data}}`;
}
