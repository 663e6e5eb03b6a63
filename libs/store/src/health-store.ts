/**
 * What the health view reads: live oracle workers (each refreshes its entry while it runs) and
 * each gateway's latest health snapshot (decision latency histogram, hooks in flight).
 *
 * Guarantees: entries expire `ttlMs` after their last refresh, so a process that died without
 * saying goodbye disappears within one TTL; `listWorkers` prunes the index as it reads. Entries
 * are validated before they are written (StoreInputError) and parsed when read back
 * (StoreDataError naming the key).
 */
import { GatewayHealthSnapshotSchema, WorkerInfoSchema, type GatewayHealthSnapshot, type WorkerInfo } from '@ahp/protocol';
import { StoreDataError, StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { parseStored, parseStoredJson } from './lua.js';
import type { RedisClient } from './redis-client.js';
import { describeIssues } from './validate.js';

/** See the module comment. */
export interface HealthStore {
  heartbeatWorker(info: WorkerInfo, ttlMs: number, now: number): Promise<void>;
  removeWorker(workerId: string): Promise<void>;
  listWorkers(now: number): Promise<WorkerInfo[]>;
  putGatewayHealth(snapshot: GatewayHealthSnapshot, ttlMs: number): Promise<void>;
  /** The snapshots of these gateways that exist (a gateway that never published one is skipped). */
  gatewayHealth(gatewayIds: readonly string[]): Promise<GatewayHealthSnapshot[]>;
}

export function createHealthStore(options: { redis: RedisClient; keys: StoreKeys }): HealthStore {
  const { redis, keys } = options;
  const ttl = (ttlMs: number): number => Math.max(1, Math.trunc(ttlMs));

  return {
    async heartbeatWorker(info, ttlMs, now) {
      const checked = WorkerInfoSchema.safeParse(info);
      if (!checked.success) throw new StoreInputError(`invalid worker info: ${describeIssues(checked.error.issues)}`);
      // Two commands (two hash tags, which a cluster cannot run in one MULTI): the entry first.
      await redis.set(keys.workerInfo(checked.data.worker_id), JSON.stringify(checked.data), { expiration: { type: 'PX', value: ttl(ttlMs) } });
      await redis.zAdd(keys.workers, { score: now + ttlMs, value: checked.data.worker_id });
    },

    async removeWorker(workerId) {
      await redis.del(keys.workerInfo(workerId));
      await redis.zRem(keys.workers, workerId);
    },

    async listWorkers(now) {
      const [, members] = await redis.multi().zRemRangeByScore(keys.workers, '-inf', now).zRange(keys.workers, `(${now}`, '+inf', { BY: 'SCORE' }).exec();
      if (!Array.isArray(members) || !members.every((member) => typeof member === 'string')) {
        throw new StoreDataError(keys.workers, 'index did not read back as a list of ids');
      }
      const workers: WorkerInfo[] = [];
      for (const id of members as string[]) {
        const key = keys.workerInfo(id);
        const value = await redis.get(key);
        if (value !== null) workers.push(parseStored(WorkerInfoSchema, parseStoredJson(value, key, 'json'), key));
      }
      return workers.sort((a, b) => (a.worker_id < b.worker_id ? -1 : 1));
    },

    async putGatewayHealth(snapshot, ttlMs) {
      const checked = GatewayHealthSnapshotSchema.safeParse(snapshot);
      if (!checked.success) throw new StoreInputError(`invalid gateway health: ${describeIssues(checked.error.issues)}`);
      await redis.set(keys.gatewayHealth(checked.data.gateway_id), JSON.stringify(checked.data), { expiration: { type: 'PX', value: ttl(ttlMs) } });
    },

    async gatewayHealth(gatewayIds) {
      const snapshots: GatewayHealthSnapshot[] = [];
      for (const id of gatewayIds) {
        const key = keys.gatewayHealth(id);
        const value = await redis.get(key);
        if (value !== null) snapshots.push(parseStored(GatewayHealthSnapshotSchema, parseStoredJson(value, key, 'json'), key));
      }
      return snapshots;
    },
  };
}
