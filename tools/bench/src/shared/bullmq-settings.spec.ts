// Starts: the built oracle worker (apps/oracle-worker/dist) with --describe-config, which prints
// its settings and their defaults without connecting anywhere.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { APP_ENTRIES } from '@ahp/stack';
import { describe, expect, it } from 'vitest';
import { BASELINE_WORKER_OPTIONS, WORKER_CONCURRENCY } from './bullmq-settings.js';

interface Setting {
  name: string;
  default: string | null;
}

const WORKSPACE_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

function workerDefaults(): Map<string, string | null> {
  const output = execFileSync(process.execPath, [APP_ENTRIES.worker, '--describe-config'], { cwd: WORKSPACE_ROOT, encoding: 'utf8' });
  const described = JSON.parse(output) as Setting[];
  return new Map(described.map((setting) => [setting.name, setting.default]));
}

describe('the bare BullMQ baseline', () => {
  it('runs its worker with the oracle worker’s default concurrency, lock and stall settings, so it differs only by what the product adds', () => {
    const defaults = workerDefaults();
    expect({
      concurrency: WORKER_CONCURRENCY,
      lockDuration: BASELINE_WORKER_OPTIONS.lockDuration,
      stalledInterval: BASELINE_WORKER_OPTIONS.stalledInterval,
      maxStalledCount: BASELINE_WORKER_OPTIONS.maxStalledCount,
    }).toEqual({
      concurrency: Number(defaults.get('AHP_WORKER_CONCURRENCY')),
      lockDuration: Number(defaults.get('AHP_WORKER_LOCK_MS')),
      stalledInterval: Number(defaults.get('AHP_WORKER_STALLED_INTERVAL_MS')),
      maxStalledCount: Number(defaults.get('AHP_WORKER_MAX_STALLED')),
    });
    // It starts the built worker process: seconds on a busy machine, past Vitest's 5 s default.
  }, 30_000);
});
