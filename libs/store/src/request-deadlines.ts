/**
 * The time-driven side of the request store, run periodically by every gateway (`expireDue`):
 * pending requests past their deadline expire (compare-and-set makes a double expiry
 * impossible), settled requests past their retention leave their indexes (idempotent), and under
 * Redis Cluster the follow-ups a dead writer left are run.
 */
import { IdSchema, expireRequest, type Logger, type ProtocolState } from '@ahp/protocol';
import { StoreDataError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript } from './lua.js';
import { isClusterClient, type RedisClient } from './redis-client.js';
import { SYSTEM_ACTOR_ID } from './request-messages.js';
import { checkLimit, iso, reportCorrupt } from './request-records.js';
import type { RequestTransitions } from './request-transitions.js';
import { PURGE_REQUEST_CORE_LUA, PURGE_REQUEST_LUA } from './scripts/purge-request.lua.js';

const purgeRequest = new LuaScript('purge-request', PURGE_REQUEST_LUA);
const purgeRequestCore = new LuaScript('purge-request-core', PURGE_REQUEST_CORE_LUA);

/**
 * Under Redis Cluster, how old a transition must be before `expireDue` runs its follow-ups for it:
 * long enough that the writer itself has finished them unless it died.
 */
const FOLLOW_UPS_SWEEP_AFTER_MS = 30_000;

/**
 * How far `expireDue` moves the deadline of a request that does not parse. It cannot be expired
 * (its state is unreadable), and left due it would take a slot of every batch: enough of them
 * would stop every other request expiring. Moved, it is tried (and reported) again an hour later,
 * until an operator repairs or deletes it.
 */
export const CORRUPT_REQUEST_RETRY_MS = 3_600_000;

/** See the module comment. */
export interface RequestDeadlines {
  /** Expires up to `limit` due requests, then purges the index entries of up to `limit` settled requests past their retention. */
  expireDue(now: number, limit?: number): Promise<ProtocolState[]>;
}

/**
 * Creates the deadline and retention sweep of the request store. A request or retention member
 * that does not parse is reported on `logger` with its key and passed over (see
 * {@link CORRUPT_REQUEST_RETRY_MS}); the rest of the batch goes on.
 */
export function createRequestDeadlines(redis: RedisClient, keys: StoreKeys, transitions: RequestTransitions, logger: Logger): RequestDeadlines {
  const { read, retrying, settle } = transitions;

  async function expireOne(requestId: string, now: string, nowMs: number): Promise<ProtocolState | null> {
    try {
      return await expireOrSkip(requestId, now);
    } catch (error) {
      if (!(error instanceof StoreDataError)) throw error;
      reportCorrupt(logger, error, 'expireDue', requestId);
      await redis.zAdd(keys.requestDeadlines, { score: nowMs + CORRUPT_REQUEST_RETRY_MS, value: requestId }, { XX: true });
      return null;
    }
  }

  async function expireOrSkip(requestId: string, now: string): Promise<ProtocolState | null> {
    return retrying(requestId, async () => {
      const stored = await read(requestId);
      const result = stored === null ? undefined : expireRequest(stored.state, now);
      if (stored === null || result?.outcome === 'not_pending') {
        // Settling removes a request from the deadline set in the same script; a member left here
        // (data changed by hand) would otherwise take a slot of every later batch.
        await redis.zRem(keys.requestDeadlines, requestId);
        return null;
      }
      if (result?.outcome !== 'expired') return null;
      const written = await settle(stored, result.state, { kind: 'system', id: SYSTEM_ACTOR_ID }, now);
      return written.kind === 'ok' ? result.state : 'retry';
    });
  }

  async function purgeDue(now: number, limit: number): Promise<void> {
    const members = await redis.zRange(keys.requestRetention, '-inf', now, { BY: 'SCORE', LIMIT: { offset: 0, count: limit } });
    await Promise.all(
      members.map(async (member) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(member);
        } catch {
          parsed = undefined;
        }
        const [id, incarnation, ...indexes] = Array.isArray(parsed) ? (parsed as unknown[]) : [];
        if (typeof id !== 'string' || typeof incarnation !== 'string' || !indexes.every((index) => typeof index === 'string')) {
          // Nothing can be purged through a member that names nothing; left, it would take a slot of every batch.
          const error = new StoreDataError(keys.requestRetention, `member ${member.slice(0, 200)} is not [id, incarnation, ...index keys]`, { field: 'member' });
          logger.error({ code: error.code, key: error.key, field: error.field, during: 'expireDue' }, `${error.message}; removed`);
          await redis.zRem(keys.requestRetention, member);
          return;
        }
        if (!isClusterClient(redis)) {
          await purgeRequest.run(redis, [keys.request(id), keys.requestHistory(id), keys.requestRetention, ...(indexes as string[])], [id, incarnation, member]);
          return;
        }
        // The data on the request's tag, then its index entries, the retention member last: a crash
        // before that leaves the member, and the next purge runs again (each step is idempotent).
        const outcome = await purgeRequestCore.run(redis, [keys.request(id), keys.requestHistory(id)], [id, incarnation, member]);
        if (outcome === 'purged') await Promise.all((indexes as string[]).map((index) => redis.zRem(index, id)));
        await redis.zRem(keys.requestRetention, member);
      }),
    );
  }

  /**
   * Cluster mode: runs the follow-ups of transitions whose writer has not removed them from the
   * sweep set after {@link FOLLOW_UPS_SWEEP_AFTER_MS} (it died between the parts). Reading the
   * request runs what it still holds; a member whose request owes nothing (done, or purged) is
   * removed unless a later transition re-added it.
   */
  async function sweepFollowUps(now: number, limit: number): Promise<void> {
    const due = await redis.zRangeWithScores(keys.requestFollowUps, '-inf', now - FOLLOW_UPS_SWEEP_AFTER_MS, { BY: 'SCORE', LIMIT: { offset: 0, count: limit } });
    await Promise.all(
      due.map(async ({ value: id, score }) => {
        if (IdSchema.safeParse(id).success) {
          try {
            await read(id);
          } catch (error) {
            if (!(error instanceof StoreDataError)) throw error;
            reportCorrupt(logger, error, 'expireDue', id);
            return;
          }
        }
        await transitions.forgetFollowUps(id, score);
      }),
    );
  }

  return {
    async expireDue(now: number, limit = 100): Promise<ProtocolState[]> {
      const batch = checkLimit(limit);
      const at = iso(now);
      const due = await redis.zRange(keys.requestDeadlines, '-inf', now, { BY: 'SCORE', LIMIT: { offset: 0, count: batch } });
      const expired = await Promise.all(due.map((requestId) => expireOne(requestId, at, now)));
      await purgeDue(now, batch);
      if (isClusterClient(redis)) await sweepFollowUps(now, batch);
      return expired.filter((state) => state !== null);
    },
  };
}
