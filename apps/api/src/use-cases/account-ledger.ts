import { accountUsage, listLedgerEntries, type LedgerEntryRecord, type LedgerRange, type UsageDay } from '@leadgen/db';
import { errors, SOURCES } from '@leadgen/domain';
import type { ApiDependencies } from '../dependencies';
import { presentLedgerEntry } from '../presenters/ledger-presenter';
import { ledgerCursorOf, USAGE_DEFAULT_DAYS, USAGE_MAX_DAYS, type LedgerQuery, type UsageQuery } from '../routes/ledger/ledger-schema';

// The account's credit history for its owner (decision 036): the ledger's rows as written, and charges per day and source.

export const ledgerRange = (query: LedgerQuery): LedgerRange => ({
  createdAfter: query.createdAfter ?? null,
  createdBefore: query.createdBefore ?? null,
});

/** One page of the account's ledger, oldest first, and the cursor of the next. */
export async function listLedger(deps: ApiDependencies, accountId: string, query: LedgerQuery) {
  // One more than asked: whether a next page exists is known without a second query.
  const rows = await listLedgerEntries(deps.db.reads, accountId, ledgerRange(query), query.cursor ?? null, query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return { items: page.map(presentLedgerEntry), nextCursor: rows.length > query.limit && last ? ledgerCursorOf(last.id) : null };
}

/** The next batch of an export after `last`, or the first when null. */
export function ledgerBatch(deps: ApiDependencies, accountId: string, query: LedgerQuery, last: LedgerEntryRecord | null, size: number) {
  return listLedgerEntries(deps.db.reads, accountId, ledgerRange(query), last ? last.id : (query.cursor ?? null), size);
}

const DAY_MS = 86_400_000;
const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/** Charges per UTC day and source between two days (both included), with totals overall and per source. */
export async function usage(deps: ApiDependencies, accountId: string, query: UsageQuery) {
  const to = query.to ?? dayOf(Date.now());
  const from = query.from ?? dayOf(Date.parse(`${to}T00:00:00Z`) - (USAGE_DEFAULT_DAYS - 1) * DAY_MS);
  const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  if (span < 1) throw errors.validation([{ pointer: '#/from', detail: 'from must not be after to' }]);
  if (span > USAGE_MAX_DAYS) throw errors.validation([{ pointer: '#/from', detail: `at most ${USAGE_MAX_DAYS} days at once` }]);
  const found = await accountUsage(deps.db.reads, accountId, from, to);
  const sum = (days: UsageDay[]) => ({
    jobsCharged: days.reduce((n, d) => n + d.jobsCharged, 0),
    leadsDelivered: days.reduce((n, d) => n + d.leadsDelivered, 0),
    creditsCharged: days.reduce((n, d) => n + d.creditsCharged, 0),
  });
  return {
    from,
    to,
    days: found.days,
    totals: {
      ...sum(found.days),
      creditsGranted: found.creditsGranted,
      bySource: SOURCES.map((source) => ({ source, ...sum(found.days.filter((d) => d.source === source)) })),
    },
  };
}
