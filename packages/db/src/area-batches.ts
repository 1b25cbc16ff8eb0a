import type { GenerationRequest, Rect, ResolvedArea } from '@leadgen/domain';
import type { Database, Queryable } from './client';

/** A tile written with its child: the tile's path and rectangle, and the job that searches it. */
export interface NewTile {
  path: string;
  rect: Rect;
  jobId: string;
}

/** A tile's child to add when a saturated tile is split (prisma/functions/split_batch_tile.sql). */
export interface NewTileChild extends NewTile {
  resultSetId: string;
  request: GenerationRequest;
  reserve: number;
}

export type TileState = 'searching' | 'done' | 'split' | 'saturated_at_minimum';

export interface TileCounts {
  /** tiles by state (decision 039); not_searched: its child ended before its search did (cancelled, budget, failure) */
  byState: Record<TileState | 'not_searched', number>;
  /** places the tiles' searches listed outside the area: neither delivered nor billed */
  outsideArea: number;
}

const RECORD_AREA = `
WITH area AS (UPDATE batches SET area = $2, quote_id = $3, max_results = $5 WHERE id = $1 RETURNING id)
INSERT INTO batch_tiles (batch_id, path, job_id, rect)
SELECT $1, t.path, t."jobId", t.rect FROM jsonb_to_recordset($4::jsonb) AS t(path TEXT, "jobId" TEXT, rect JSONB)`;

/**
 * An area batch's area and first tiles, written in the creation's transaction right after create_batch (whose
 * children are these tiles' jobs), so a batch never exists without them.
 */
export async function recordAreaBatch(
  q: Queryable,
  batchId: string,
  area: ResolvedArea,
  quoteId: string | null,
  tiles: NewTile[],
  /** the batch-wide maxResults (decision 039), or null */
  maxResults: number | null = null,
) {
  await q.query(RECORD_AREA, [batchId, JSON.stringify(area), quoteId, JSON.stringify(tiles), maxResults]);
}

/**
 * What a tile's search came to, and its quarters as new children when it is split: one call of split_batch_tile.
 * Returns the ids of the children it added (none when they exist already, or the batch is cancelled or over).
 */
export async function recordTileOutcome(
  db: Database,
  outcome: { batchId: string; path: string; state: TileState; found: number; outsideArea: number; children: NewTileChild[] },
): Promise<string[]> {
  const children = outcome.children.map((child) => ({
    jobId: child.jobId,
    resultSetId: child.resultSetId,
    path: child.path,
    rect: child.rect,
    source: child.request.source,
    request: child.request,
    requestedCount: child.request.maxResults,
    reserve: child.reserve,
  }));
  const { rows } = await db.sql.query<{ o_job_id: string }>('SELECT * FROM split_batch_tile($1, $2, $3, $4, $5, $6)', [
    outcome.batchId,
    outcome.path,
    outcome.state,
    outcome.found,
    outcome.outsideArea,
    JSON.stringify(children),
  ]);
  return rows.map((row) => row.o_job_id);
}

/** An area batch's area (null for a batch of requests). It never changes: a worker may keep it. */
export async function findBatchArea(db: Database, batchId: string): Promise<ResolvedArea | null> {
  return (await findBatchAreaFacts(db, batchId))?.area ?? null;
}

// A tile still 'searching' whose child ended (cancelled, out of budget, failed) was not searched to its end.
const TILE_COUNTS = `
SELECT CASE WHEN t.state <> 'searching' THEN t.state WHEN j.status IN ('queued', 'running') THEN 'searching' ELSE 'not_searched' END AS state,
       count(*)::int AS n, COALESCE(sum(t.outside_area), 0)::int AS outside
FROM batch_tiles t LEFT JOIN jobs j ON j.id = t.job_id
WHERE t.batch_id = $1 GROUP BY 1`;

export async function batchTileCounts(db: Database, batchId: string): Promise<TileCounts> {
  const { rows } = await db.sql.query<{ state: TileState | 'not_searched'; n: number; outside: number }>(TILE_COUNTS, [batchId]);
  const byState: TileCounts['byState'] = { searching: 0, done: 0, split: 0, saturated_at_minimum: 0, not_searched: 0 };
  let outsideArea = 0;
  for (const row of rows) {
    byState[row.state] = row.n;
    outsideArea += row.outside;
  }
  return { byState, outsideArea };
}

/** A batch's area facts for its body: the area as given (kind, bounds, km²), its quote. */
export async function findBatchAreaFacts(
  db: Database,
  batchId: string,
): Promise<{ area: ResolvedArea; quoteId: string | null; maxResults: number | null } | null> {
  const { rows } = await db.sql.query<{ area: ResolvedArea | null; quote_id: string | null; max_results: number | null }>(
    'SELECT area, quote_id, max_results FROM batches WHERE id = $1',
    [batchId],
  );
  const row = rows[0];
  return row?.area ? { area: row.area, quoteId: row.quote_id, maxResults: row.max_results } : null;
}

/** A stored quote: the request, the area, its leaf tiles and the body it was answered with. */
export interface QuoteRecord {
  id: string;
  accountId: string;
  request: GenerationRequest;
  area: ResolvedArea;
  tiles: Array<{ path: string; rect: Rect; places: number }>;
  body: Record<string, unknown>;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertQuote(db: Database, quote: Omit<QuoteRecord, 'createdAt'>): Promise<void> {
  await db.sql.query(
    'INSERT INTO area_quotes (id, account_id, request, area, tiles, body, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [
      quote.id,
      quote.accountId,
      JSON.stringify(quote.request),
      JSON.stringify(quote.area),
      JSON.stringify(quote.tiles),
      JSON.stringify(quote.body),
      quote.expiresAt,
    ],
  );
}

/** The account's quote; another account's is null, as one that does not exist. */
export async function findQuote(db: Database, accountId: string, quoteId: string): Promise<QuoteRecord | null> {
  const { rows } = await db.sql.query<{
    id: string;
    account_id: string;
    request: GenerationRequest;
    area: ResolvedArea;
    tiles: QuoteRecord['tiles'];
    body: Record<string, unknown>;
    created_at: Date;
    expires_at: Date;
  }>('SELECT * FROM area_quotes WHERE id = $1 AND account_id = $2', [quoteId, accountId]);
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    accountId: row.account_id,
    request: row.request,
    area: row.area,
    tiles: row.tiles,
    body: row.body,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}
