/**
 * Every Redis key this library touches, built in one place from one prefix.
 *
 * Layout (prefix `ahp`):
 *
 * | key                               | type   | written by                          | expires                        |
 * |-----------------------------------|--------|-------------------------------------|--------------------------------|
 * | `ahp:hook:{<hookId>}`             | hash   | open-hook, decide-hook              | deadline + decision TTL, then decision TTL |
 * | `ahp:signal:{<signalId>}`         | hash   | decide-hook, respond-signal         | signal TTL (24 h)              |
 * | `ahp:signal-log`                  | stream | decide-hook, respond-signal         | MAXLEN ~ (100k entries)        |
 * | `ahp:gw:{<gatewayId>}:decisions`  | stream | route after decide                  | MAXLEN ~ and decision TTL      |
 * | `ahp:presence:agent:{<agentId>}`  | hash   | presence scripts                    | presence TTL                   |
 * | `ahp:presence:agents`             | zset   | presence scripts (score = expiry)   | pruned by `list`               |
 * | `ahp:presence:gw:{<gatewayId>}`   | string | heartbeatGateway                    | gateway TTL                    |
 * | `ahp:presence:gateways`           | zset   | heartbeatGateway (score = expiry)   | pruned by `listGateways`       |
 * | `ahp:session:{<sessionId>}`       | hash   | session-open                        | session TTL after last use     |
 * | `ahp:bull:hooks:*`                | BullMQ | the hook queue                      | BullMQ's own                   |
 *
 * Hash tags (`{…}`) name the Redis Cluster slot of a key. Every per-entity key is tagged by its
 * own id, so single-key scripts (open-hook, session-open) are Cluster-safe as they are. Scripts
 * that touch several keys do so across tags, which a single Redis (our deployment today) runs
 * atomically and a Cluster refuses with CROSSSLOT:
 *
 * - decide-hook: the hook hash, one signal record per signal, the signal log.
 * - respond-signal: the signal record and the signal log.
 * - presence scripts: the agent's entry and the presence index.
 *
 * Under Cluster each of them splits into a script on the hash-tagged entity key (the part that
 * decides: first writer wins, session and action checks, newest connection wins) followed by
 * idempotent follow-ups on the other keys (records written with "only if absent", log appends,
 * index updates, which `list` already tolerates being stale). A crash between the two parts then
 * loses a log line or a record, never a decision; replaying the follow-ups whenever `decide`
 * returns `first: false` closes that gap. The BullMQ prefix must also carry a hash tag under
 * Cluster (e.g. `{ahp:bull}`), because BullMQ's own scripts touch all keys of a queue at once.
 */
import { StoreInputError } from './errors.js';

/** Default prefix of every key. */
export const DEFAULT_KEY_PREFIX = 'ahp';

/** Name of the BullMQ queue of hook evaluations. */
export const HOOK_QUEUE_NAME = 'hooks';

/** Options of {@link createKeys}. */
export interface KeysOptions {
  /**
   * Prefix of every key; tests isolate themselves with a unique one. A trailing `:` is dropped,
   * so `uniqueKeyPrefix()` output can be passed as it is.
   * @defaultValue {@link DEFAULT_KEY_PREFIX}
   */
  prefix?: string;
  /**
   * BullMQ's `prefix` option. Under Redis Cluster give it a hash tag, e.g. `{ahp:bull}`.
   * @defaultValue `<prefix>:bull`
   */
  bullPrefix?: string;
}

/** The key names of one deployment (one prefix). */
export interface StoreKeys {
  readonly prefix: string;
  /** BullMQ's `prefix` option for the hook queue. */
  readonly bullPrefix: string;
  /** BullMQ queue name of hook evaluations. */
  readonly queueName: string;
  /** Stream of every signal sent and every response recorded. */
  readonly signalLog: string;
  /** Index of agent presence entries, scored by expiry (epoch ms). */
  readonly presenceAgents: string;
  /** Index of gateway entries, scored by expiry (epoch ms). */
  readonly presenceGateways: string;
  hook(hookId: string): string;
  signal(signalId: string): string;
  /** Stream of decisions routed to one gateway; read by that gateway's DecisionFeed. */
  gatewayDecisions(gatewayId: string): string;
  presenceAgent(agentId: string): string;
  presenceGateway(gatewayId: string): string;
  session(sessionId: string): string;
}

/** What an id must look like to be part of a key: the protocol's IdSchema (UUIDs included). No braces, so no id can move a key to another hash tag. */
const KEY_PART = /^[A-Za-z0-9._:-]{1,128}$/;

function part(kind: string, id: string): string {
  if (!KEY_PART.test(id)) {
    throw new StoreInputError(`${kind} id ${JSON.stringify(id.slice(0, 140))} cannot be part of a key: 1-128 of letters, digits and . _ : -`);
  }
  return id;
}

/**
 * Builds the key names for one prefix.
 *
 * @throws StoreInputError when the prefix is empty or holds braces or spaces (a brace would turn
 *   part of it into a hash tag); the key builders throw it for an id outside `[A-Za-z0-9._:-]`.
 */
export function createKeys(options: KeysOptions = {}): StoreKeys {
  const prefix = (options.prefix ?? DEFAULT_KEY_PREFIX).replace(/:+$/, '');
  if (!/^[^\s{}]+$/.test(prefix)) {
    throw new StoreInputError(`key prefix ${JSON.stringify(options.prefix)} must be non-empty, without spaces or braces`);
  }
  const bullPrefix = options.bullPrefix ?? `${prefix}:bull`;
  return Object.freeze({
    prefix,
    bullPrefix,
    queueName: HOOK_QUEUE_NAME,
    signalLog: `${prefix}:signal-log`,
    presenceAgents: `${prefix}:presence:agents`,
    presenceGateways: `${prefix}:presence:gateways`,
    hook: (hookId: string) => `${prefix}:hook:{${part('hook', hookId)}}`,
    signal: (signalId: string) => `${prefix}:signal:{${part('signal', signalId)}}`,
    gatewayDecisions: (gatewayId: string) => `${prefix}:gw:{${part('gateway', gatewayId)}}:decisions`,
    presenceAgent: (agentId: string) => `${prefix}:presence:agent:{${part('agent', agentId)}}`,
    presenceGateway: (gatewayId: string) => `${prefix}:presence:gw:{${part('gateway', gatewayId)}}`,
    session: (sessionId: string) => `${prefix}:session:{${part('session', sessionId)}}`,
  });
}
