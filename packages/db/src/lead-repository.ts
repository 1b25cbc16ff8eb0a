import type { Lead } from '@leadgen/domain';
import type { Tx } from './client';

export interface PageLead {
  dedupKey: string;
  lead: Lead;
}

/**
 * Adds a page's leads to a result set, at most `room` of them, skipping keys the set already has
 * (a resumed job re-reads pages its predecessor committed). The caller holds the job's row lock,
 * so positions are contiguous. Returns how many were added.
 */
export async function appendLeads(tx: Tx, jobId: string, firstPosition: number, room: number, page: PageLead[]): Promise<number> {
  if (room <= 0 || page.length === 0) return 0;
  const keys = [...new Set(page.map((p) => p.dedupKey))];
  const existing = await tx.lead.findMany({ where: { jobId, dedupKey: { in: keys } }, select: { dedupKey: true } });
  const seen = new Set(existing.map((e) => e.dedupKey));
  const fresh: PageLead[] = [];
  for (const item of page) {
    if (fresh.length >= room) break;
    if (seen.has(item.dedupKey)) continue;
    seen.add(item.dedupKey);
    fresh.push(item);
  }
  if (fresh.length === 0) return 0;
  await tx.lead.createMany({
    data: fresh.map((item, i) => ({
      jobId,
      position: firstPosition + i,
      dedupKey: item.dedupKey,
      data: item.lead as object,
    })),
  });
  return fresh.length;
}
