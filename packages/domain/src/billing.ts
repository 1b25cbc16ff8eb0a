import type { Source } from './sources';

export interface Tariff {
  /** credits per delivered item (for shopify: per unique store row) */
  perItem: number;
  /** the least a job that delivered anything is charged */
  minimum: number;
}

export const TARIFFS: Record<Source, Tariff> = {
  google_maps: { perItem: 2, minimum: 10 },
  linkedin: { perItem: 2, minimum: 0 },
  shopify: { perItem: 26, minimum: 0 },
};

/** What a job may cost at worst: reserved when it is created. */
export function reservationFor(source: Source, maxResults: number): number {
  const { perItem, minimum } = TARIFFS[source];
  return Math.max(perItem * maxResults, minimum);
}

/**
 * What a job that reached a terminal status is charged, whatever that status is. An area search's tile is charged
 * per item only (decision 039): the buyer bought one area search, not one search per tile, so no tile carries a
 * job's minimum, and a batch-wide maxResults of N caps the batch's charge at exactly N items.
 */
export function chargeFor(source: Source, deliveredCount: number, options: { areaTile?: boolean } = {}): number {
  if (deliveredCount <= 0) return 0;
  const { perItem, minimum } = TARIFFS[source];
  return options.areaTile ? perItem * deliveredCount : Math.max(perItem * deliveredCount, minimum);
}
