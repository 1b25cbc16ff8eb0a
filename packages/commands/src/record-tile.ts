import { recordTileOutcome, type TileState } from '@leadgen/db';
import { canSplit, newId, reservationFor, splitTile, type GenerationRequest, type ResolvedArea } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { afterCommit } from './after-commit';
import type { Lifecycle } from './lifecycle';

export interface TileSearched {
  accountId: string;
  batchId: string;
  /** the tile's child's request (request.tile is the tile) */
  request: GenerationRequest;
  area: ResolvedArea;
  /** what the tile's search listed (the provider's TileReport) */
  found: number;
  outsideArea: number;
  saturated: boolean;
}

/**
 * An area batch's tile has been searched to its end (decision 039): records what it listed and, when it was
 * saturated (Google's 60), adds its quarters that meet the area to the running batch as new children, held and
 * released under the account's share like every batch child. Called by the worker before it settles the tile's
 * child, so the batch cannot end before the quarters exist; a worker repeating it after a crash adds nothing
 * (split_batch_tile is keyed by the tile's path). A saturated tile at the minimum size is recorded as such: it may
 * hold more places than one search lists, and the batch body says so.
 */
export async function recordTileSearch(lc: Lifecycle, searched: TileSearched): Promise<{ state: TileState; added: number }> {
  const tile = searched.request.tile!;
  const quarters = searched.saturated ? splitTile(searched.area, tile) : [];
  const state: TileState = !searched.saturated ? 'done' : canSplit(tile.rect) ? 'split' : 'saturated_at_minimum';
  const children = quarters.map((quarter) => {
    const request: GenerationRequest = { ...searched.request, tile: quarter };
    return {
      ...quarter,
      jobId: newId.job(),
      resultSetId: newId.resultSet(),
      request,
      reserve: reservationFor(request.source, request.maxResults),
    };
  });
  const added = await recordTileOutcome(lc.db, {
    batchId: searched.batchId,
    path: tile.path,
    state,
    found: searched.found,
    outsideArea: searched.outsideArea,
    children,
  });
  if (state === 'saturated_at_minimum')
    logger.warn('area tile saturated at the minimum size', { batchId: searched.batchId, path: tile.path });
  if (added.length > 0) {
    const created = added.map((jobId) => ({ jobId, source: searched.request.source }));
    // Not strict: the quarters are committed; what Redis does not take now, the periodic release takes.
    await afterCommit(lc, { accountId: searched.accountId, created, releaseCreated: true });
  }
  return { state, added: added.length };
}
