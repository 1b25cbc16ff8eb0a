import { logger } from '@leadgen/logger';

// Every process looks this often whether the fleet's period has come round: a sweep's cadence is
// the fleet's, not tied to any one process living a whole period.
const TICK_MS = 5_000;

export interface PeriodicSweep {
  /** no more sweeps; resolves once a sweep under way has ended */
  stop(): Promise<void>;
}

/**
 * Runs `sweep` at start and every tick (at most `periodMs` apart), never two at once in this process.
 * The sweep itself takes the fleet-wide claim for its period (claimPeriodicTask), so one process of
 * the fleet does the work per period however briefly each lives. A failure is logged as `name`
 * failing and the next tick tries again.
 */
export function startPeriodicSweep(name: string, periodMs: number, sweep: () => Promise<void>): PeriodicSweep {
  let running: Promise<void> | null = null;
  const run = async () => {
    try {
      await sweep();
    } catch (error) {
      logger.warn(`${name} failed`, { error: (error as Error).message });
    }
  };
  const tick = () => {
    running ??= run().finally(() => (running = null));
  };
  tick();
  const timer = setInterval(tick, Math.min(TICK_MS, periodMs));
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
