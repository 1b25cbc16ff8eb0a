import type { StoredSuppression } from '@leadgen/db';

/** An entry of the account's suppression list, as GET /api/v1/suppressions lists it. */
export function presentSuppression(entry: StoredSuppression) {
  return { kind: entry.kind, value: entry.value, createdAt: entry.createdAt.toISOString() };
}
