/**
 * The worker's entry in the health view: refreshed on an interval with what the process is doing
 * (jobs processed, the configuration version it evaluates with), removed on a clean shutdown and
 * expiring on its own when the process dies.
 */
import { hostname } from 'node:os';
import type { HealthStore, Logger } from '@ahp/store';

/** Options of {@link startWorkerPresence}. */
export interface WorkerPresenceOptions {
  health: Pick<HealthStore, 'heartbeatWorker' | 'removeWorker'>;
  workerId: string;
  concurrency: number;
  /** Jobs evaluated so far. */
  jobsProcessed: () => number;
  /** The active hooks configuration version (undefined: built-in defaults). */
  configVersion: () => number | undefined;
  logger: Logger;
  /**
   * Refresh interval; the entry lives three intervals.
   * @defaultValue `5000`
   */
  everyMs?: number;
}

/** Publishes the entry now and then every interval; the returned `stop` removes it. */
export async function startWorkerPresence(options: WorkerPresenceOptions): Promise<{ stop(): Promise<void> }> {
  const everyMs = options.everyMs ?? 5000;
  const startedAt = new Date().toISOString();
  const beat = async (): Promise<void> => {
    const now = Date.now();
    const version = options.configVersion();
    try {
      await options.health.heartbeatWorker(
        {
          worker_id: options.workerId,
          hostname: hostname().slice(0, 200) || 'unknown',
          pid: process.pid,
          concurrency: options.concurrency,
          started_at: startedAt,
          last_seen_at: new Date(now).toISOString(),
          jobs_processed: options.jobsProcessed(),
          ...(version === undefined ? {} : { config_version: version }),
        },
        everyMs * 3,
        now,
      );
    } catch (error) {
      options.logger.warn({ error }, 'worker heartbeat failed');
    }
  };
  await beat();
  const timer = setInterval(() => void beat(), everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      try {
        await options.health.removeWorker(options.workerId);
      } catch (error) {
        options.logger.warn({ error }, 'removing the worker entry failed');
      }
    },
  };
}
