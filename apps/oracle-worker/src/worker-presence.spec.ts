import type { WorkerInfo } from '@ahp/protocol';
import { WorkerInfoSchema } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { startWorkerPresence } from './worker-presence.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** Records what the worker publishes, as the Redis health store would keep it (tested against Redis in libs/store). */
function recordingHealth() {
  const beats: { info: WorkerInfo; ttlMs: number }[] = [];
  const removed: string[] = [];
  return {
    beats,
    removed,
    health: {
      async heartbeatWorker(info: WorkerInfo, ttlMs: number) {
        beats.push({ info, ttlMs });
      },
      async removeWorker(workerId: string) {
        removed.push(workerId);
      },
    },
  };
}

describe('startWorkerPresence', () => {
  it('publishes a valid entry at once, with the counters and configuration version of the moment', async () => {
    const { health, beats, removed } = recordingHealth();
    let jobs = 7;
    const presence = await startWorkerPresence({ health, workerId: 'w-1', concurrency: 16, jobsProcessed: () => jobs, configVersion: () => 3, logger: silent, everyMs: 60_000 });
    expect(beats).toHaveLength(1);
    expect(WorkerInfoSchema.parse(beats[0]!.info)).toMatchObject({ worker_id: 'w-1', concurrency: 16, jobs_processed: 7, config_version: 3, pid: process.pid });
    expect(beats[0]!.ttlMs).toBe(180_000);
    jobs = 8;
    await presence.stop();
    expect(removed).toEqual(['w-1']);
  });

  it('omits the configuration version while the built-in defaults run, and survives a failing store', async () => {
    const { health, beats } = recordingHealth();
    const presence = await startWorkerPresence({ health, workerId: 'w-2', concurrency: 1, jobsProcessed: () => 0, configVersion: () => undefined, logger: silent, everyMs: 60_000 });
    expect(beats[0]!.info.config_version).toBeUndefined();
    await presence.stop();

    const failing = {
      heartbeatWorker: () => Promise.reject(new Error('redis down')),
      removeWorker: () => Promise.reject(new Error('redis down')),
    };
    const warned: string[] = [];
    const logger = { ...silent, warn: (_fields: unknown, message: string) => void warned.push(message) };
    const down = await startWorkerPresence({ health: failing, workerId: 'w-3', concurrency: 1, jobsProcessed: () => 0, configVersion: () => undefined, logger, everyMs: 60_000 });
    await down.stop();
    expect(warned).toEqual(['worker heartbeat failed', 'removing the worker entry failed']);
  });
});
