import type { TerminalStatus } from './job-status';

// Batches (docs/api.md#batches, docs/decisions/021-batches.md): up to 1,000 generation requests as one
// resource, each an ordinary job (a child).

export const MAX_BATCH_REQUESTS = 1000;
export const BATCH_STATUSES = ['running', 'COMPLETE', 'PARTIAL', 'EMPTY', 'FAILED', 'CANCELLED'] as const;
export type BatchStatus = 'running' | TerminalStatus;

/** What a batch body is made of (db's BatchRecord fits). */
export interface BatchFacts {
  id: string;
  name: string | null;
  status: BatchStatus;
  excludeDelivered: boolean;
  maxCredits: number | null;
  webhookUrl: string | null;
  childCount: number;
  open: { queued: number; running: number };
  settled: { COMPLETE: number; PARTIAL: number; EMPTY: number; FAILED: number; CANCELLED: number };
  requestedCount: number;
  deliveredCount: number;
  creditsReserved: number;
  creditsCharged: number;
  createdAt: Date;
  finishedAt: Date | null;
  /** the monitor whose run this batch is (decision 022); null or absent for a batch asked for directly */
  monitorId?: string | null;
}

export interface BatchCounts {
  queued: number;
  running: number;
  COMPLETE: number;
  PARTIAL: number;
  EMPTY: number;
  FAILED: number;
  CANCELLED: number;
}

/** The batch body (docs/api.md#batches): a GET's answer, the 202 of its creation, a listing's item, a webhook event's data. */
export interface BatchBody {
  batchId: string;
  name: string | null;
  pollUrl: string;
  status: BatchStatus;
  /** the batch's children (jobs) by status; they add up to `childCount` */
  childCount: number;
  counts: BatchCounts;
  requestedCount: number;
  deliveredCount: number;
  creditsReserved: number;
  creditsCharged: number;
  maxCredits: number | null;
  excludeDelivered: boolean;
  webhookUrl: string | null;
  createdAt: string;
  finishedAt: string | null;
  /** the monitor whose run this batch is (decision 022); absent for a batch asked for directly */
  monitorId?: string;
  /** exactly when the status is terminal */
  terminal?: { status: TerminalStatus; childCount: number; deliveredCount: number; creditsCharged: number };
}

export function batchPath(batchId: string): string {
  return `/api/v1/leads/batches/${batchId}`;
}

export function batchBody(batch: BatchFacts, publicBaseUrl: string | null): BatchBody {
  const terminal = batch.status !== 'running';
  return {
    batchId: batch.id,
    name: batch.name,
    pollUrl: `${publicBaseUrl ?? ''}${batchPath(batch.id)}`,
    status: batch.status,
    childCount: batch.childCount,
    counts: { ...batch.open, ...batch.settled },
    requestedCount: batch.requestedCount,
    deliveredCount: batch.deliveredCount,
    creditsReserved: terminal ? 0 : batch.creditsReserved,
    creditsCharged: batch.creditsCharged,
    maxCredits: batch.maxCredits,
    excludeDelivered: batch.excludeDelivered,
    webhookUrl: batch.webhookUrl,
    createdAt: batch.createdAt.toISOString(),
    finishedAt: batch.finishedAt?.toISOString() ?? null,
    // Only a monitor's run carries it: its webhook event names the monitor, as a job run's does.
    ...(batch.monitorId ? { monitorId: batch.monitorId } : {}),
    ...(terminal
      ? {
          terminal: {
            status: batch.status as TerminalStatus,
            childCount: batch.childCount,
            deliveredCount: batch.deliveredCount,
            creditsCharged: batch.creditsCharged,
          },
        }
      : {}),
  };
}
