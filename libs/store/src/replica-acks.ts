/**
 * Waiting for replicas after a deciding write (`WAIT numreplicas timeout`).
 *
 * Redis replicates asynchronously: a master acknowledges a write before any replica has it, so a
 * failover in the next moment can promote a replica without it. For AHP that write may be a hook's
 * decision or a request's settlement — and the agent may already have acted on it. With replica
 * acknowledgements on, the store asks the master that holds the written key to confirm that this
 * many replicas have the write before the decision is routed on (Redis Cluster: the route and the
 * request's deliveries are separate calls, made after the wait; a single Redis routes a decision in
 * the same script, so only the writer's own completion waits there).
 *
 * What it does not do: make Redis strongly consistent. A replica that acknowledged can still lose
 * the race to be promoted against one that did not (with one replica per master it is the one
 * promoted). When fewer replicas answer within the timeout the write stands (it was made, and
 * refusing it now would help nobody); the shortfall is logged and counted for the operator.
 */
import type { Logger } from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import { isClusterClient, type RedisClient } from './redis-client.js';

/** Options of {@link createReplicaAcks}. */
export interface ReplicaAckOptions {
  /** Replicas that must have a deciding write before it is routed on; 0 turns waiting off. */
  readonly replicas: number;
  /** Longest wait for them (ms); WAIT answers with how many it got by then. */
  readonly timeoutMs: number;
}

/**
 * How long a master whose WAIT got no acknowledgement at all is not waited on. A master with no
 * replica (its replica was just promoted elsewhere, or is down) would otherwise add the whole
 * timeout to every decision it holds; its writes then go unconfirmed, which the log says.
 */
export const REPLICA_ACK_BACKOFF_MS = 5_000;

/** Replica acknowledgements for the stores; see the module comment. */
export interface ReplicaAcks {
  /** Whether waiting is on. */
  readonly enabled: boolean;
  /**
   * Waits until the configured replicas of the master holding `key` have every write this client
   * made there so far, or the timeout passes. Resolves with the replicas that acknowledged
   * (`Infinity` when waiting is off). Never throws for a shortfall; a failed WAIT command rejects.
   */
  after(key: string): Promise<number>;
  /** Writes that got fewer acknowledgements than configured, since the process started. */
  readonly shortfalls: number;
  /** WAIT commands sent (writes not waited for, on a master in its backoff, are shortfalls without one). */
  readonly waits: number;
}

/** Waiting switched off: what stores use when no options are given. */
export const NO_REPLICA_ACKS: ReplicaAcks = { enabled: false, after: async () => Infinity, shortfalls: 0, waits: 0 };

/** Validates the options (whole numbers; replicas 0–16, timeout 1–60,000 ms). */
export function checkReplicaAckOptions(options: ReplicaAckOptions): ReplicaAckOptions {
  const { replicas, timeoutMs } = options;
  if (!Number.isInteger(replicas) || replicas < 0 || replicas > 16) throw new StoreInputError(`replica acknowledgements must be a whole number from 0 to 16, got ${replicas}`);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000) throw new StoreInputError(`the replica acknowledgement timeout must be a whole number of ms from 1 to 60000, got ${timeoutMs}`);
  return options;
}

/** Creates the waits of one client; `logger` hears of every shortfall. `now` is for tests. */
export function createReplicaAcks(redis: RedisClient, options: ReplicaAckOptions | undefined, logger?: Logger, now: () => number = Date.now): ReplicaAcks {
  if (options === undefined || options.replicas === 0) return NO_REPLICA_ACKS;
  const { replicas, timeoutMs } = checkReplicaAckOptions(options);
  const args = ['WAIT', String(replicas), String(timeoutMs)];
  /** Masters (their connections) in backoff after a WAIT nobody acknowledged, until when. */
  const backoff = new WeakMap<object, number>();
  let shortfalls = 0;
  let waits = 0;
  return {
    enabled: true,
    get shortfalls() {
      return shortfalls;
    },
    get waits() {
      return waits;
    },
    async after(key: string): Promise<number> {
      // Under Cluster the command goes to the connection of the master that holds `key`, the one
      // the write went through: WAIT counts that connection's writes. (The cluster client's own
      // sendCommand would follow WAIT's "all shards" policy and wait on every master.)
      const client = isClusterClient(redis) ? await redis.getNodeClientForKey(key, false) : redis;
      if ((backoff.get(client) ?? 0) > now()) {
        shortfalls++;
        return 0;
      }
      waits++;
      const reply = await client.sendCommand(args);
      const acknowledged = typeof reply === 'number' ? reply : Number(reply);
      if (!(acknowledged >= replicas)) {
        shortfalls++;
        if (acknowledged === 0) backoff.set(client, now() + REPLICA_ACK_BACKOFF_MS);
        logger?.warn(
          { key, replicas, acknowledged, timeoutMs, ...(acknowledged === 0 ? { backoffMs: REPLICA_ACK_BACKOFF_MS } : {}) },
          acknowledged === 0
            ? 'no replica acknowledged a deciding write before the timeout; it stands, unconfirmed, and this master is not waited on for a while (has it a replica?)'
            : 'a deciding write reached fewer replicas than AHP_REDIS_WAIT_REPLICAS before the timeout; it stands, and a failover now could lose it',
        );
      }
      return acknowledged;
    },
  };
}
