import type { Request, Response } from 'express';
import { stringify } from 'csv-stringify/sync';
import { countLedgerEntries, type LedgerEntryRecord } from '@leadgen/db';
import { logger } from '@leadgen/logger';
import type { ApiDependencies } from '../../dependencies';
import { authenticatedAccount } from '../../http/authenticate';
import { linkNext, nextPageUrl } from '../../http/paging';
import type { Valid } from '../../http/request-validation';
import { chargeRateLimit } from '../../http/rate-limit';
import { write } from '../../lead-export';
import { LEDGER_CSV_COLUMNS, presentLedgerEntry } from '../../presenters/ledger-presenter';
import { ledgerBatch, ledgerRange, listLedger, usage } from '../../use-cases/account-ledger';
import { holdExportSlot } from '../../use-cases/export-slots';
import type { LedgerQuery, UsageQuery } from './ledger-schema';

/** Ledger rows are small: one call more in the `read` window per this many rows an export streams. */
export const LEDGER_ROWS_PER_UNIT = 1000;
const EXPORT_BATCH = 1000;

/** GET /api/v1/account/ledger: a page of the account's ledger, oldest first. */
export function ledgerRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response, { query }: Valid<unknown, LedgerQuery>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const page = await listLedger(deps, account.id, query);
    res.setHeader('Cache-Control', 'no-store');
    if (page.nextCursor) res.setHeader('Link', linkNext(nextPageUrl(req, deps.config.http.publicBaseUrl, page.nextCursor)));
    res.json(page);
  };
}

const csv = (rows: LedgerEntryRecord[], header: boolean) =>
  stringify(rows.map(presentLedgerEntry), {
    header,
    columns: [...LEDGER_CSV_COLUMNS],
    record_delimiter: 'windows',
    escape_formulas: true,
    quoted_string: true,
    cast: { number: (value) => String(value) },
  });

/**
 * GET /api/v1/account/ledger.csv: the whole selection (from `cursor` if given) as an RFC 4180 download, a keyset batch
 * in memory at a time. It takes one of the account's export places and is charged by its rows before a byte
 * streams, as a lead export is (decision 027).
 */
export function ledgerCsvRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response, { query }: Valid<unknown, LedgerQuery>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    const release = await holdExportSlot(deps, account.id);
    try {
      const estimate = await countLedgerEntries(deps.db.reads, account.id, ledgerRange(query), query.cursor ?? null);
      await chargeRateLimit(res, Math.floor(estimate / LEDGER_ROWS_PER_UNIT));
      let batch = await ledgerBatch(deps, account.id, query, null, EXPORT_BATCH);
      res.status(200);
      res.setHeader('Content-Type', 'text/csv; charset=utf-8; header=present');
      res.setHeader('Content-Disposition', 'attachment; filename="ledger.csv"');
      res.setHeader('Cache-Control', 'no-store');
      let header = true;
      try {
        do {
          if (!(await write(res, csv(batch, header)))) return;
          header = false;
          batch = batch.length < EXPORT_BATCH ? [] : await ledgerBatch(deps, account.id, query, batch.at(-1)!, EXPORT_BATCH);
        } while (batch.length > 0);
        res.end();
      } catch (error) {
        // Headers and part of the body are out: the only honest signal left is a cut connection.
        logger.warn('ledger export stopped by an error', { error: (error as Error).message });
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      }
    } finally {
      await release();
    }
  };
}

/** GET /api/v1/account/usage: charges per UTC day and source, with totals. */
export function usageRoute(deps: ApiDependencies) {
  return async (req: Request, res: Response, { query }: Valid<unknown, UsageQuery>): Promise<void> => {
    const account = authenticatedAccount(res.locals);
    res.setHeader('Cache-Control', 'no-store');
    res.json(await usage(deps, account.id, query));
  };
}
