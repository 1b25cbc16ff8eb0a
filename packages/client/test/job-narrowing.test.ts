import type { JobBody, JobSummary } from '../src/api-bodies.js';

// A job body is a union with one variant per status (the document's JobQueued, JobComplete, …), so it
// narrows whichever way a consumer checks its status. These functions are the check: with the earlier
// two variants (open, finished) `tsc` refused `job.terminal` after the two `!==` tests, as a consumer's
// build would. The test runs them on bodies of each kind.

function deliveredIfEnded(job: JobBody): number | null {
  if (job.status !== 'queued' && job.status !== 'running') return job.terminal.deliveredCount + job.leads.length * 0;
  return null;
}

function stopReasonOf(job: JobSummary): string | null {
  switch (job.status) {
    case 'queued':
    case 'running':
      return null;
    default:
      return job.terminal.stopReason ?? 'none';
  }
}

const open = { status: 'running' } as unknown as JobBody;
const ended = { status: 'COMPLETE', terminal: { deliveredCount: 3, stopReason: null }, leads: [] } as unknown as JobBody;

describe('a job body, as a consumer checks its status', () => {
  it('when the status is neither queued nor running, then the terminal object is typed (and read)', () => {
    expect(deliveredIfEnded(open)).toBeNull();
    expect(deliveredIfEnded(ended)).toBe(3);
    expect(stopReasonOf(open as unknown as JobSummary)).toBeNull();
    expect(stopReasonOf(ended as unknown as JobSummary)).toBe('none');
  });
});
