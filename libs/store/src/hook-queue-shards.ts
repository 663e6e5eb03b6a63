/**
 * The hook queue split into K BullMQ queues ("shards"), each under its own hash tag.
 *
 * BullMQ's scripts touch every key of a queue at once, so one queue lives in one Redis Cluster
 * slot, on one master; K queues spread the queue's work over K slots. Which hook goes where:
 * a stable hash of the **hook id**, not of the agent. The hook id is what BullMQ dedups on (the
 * job id), so a re-sent hook must land on the same shard — any function of the hook id does that —
 * and hashing it spreads even one busy agent's hooks over every shard, where hashing by agent
 * would pin a noisy agent (the case the fair queue exists for) to one master. Hooks need no order
 * between them: each is decided on its own, first decision wins.
 *
 * Tags are chosen so that with a cluster whose masters own even slot ranges (as `redis-cli
 * --cluster create` and tools/embedded-redis make them), shard i of K lands in the i-th range:
 * K = number of masters puts one queue on each master. The names depend on K only, so every
 * gateway and worker computes the same ones.
 */
import type { StoreKeys } from './keys.js';

/** One shard of the hook queue: BullMQ's `prefix` and queue name. */
export interface HookQueueShard {
  readonly index: number;
  readonly prefix: string;
  readonly name: string;
}

const SLOTS = 16384;

/** CRC16-XMODEM, the checksum Redis Cluster computes key slots with. */
function crc16(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The Redis Cluster slot of a key (its hash tag when it has a non-empty one). */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(key.slice(open + 1, close)) % SLOTS;
  }
  return crc16(key) % SLOTS;
}

/** The largest shard count accepted (more queues than this only adds polling per worker). */
export const MAX_HOOK_QUEUE_SHARDS = 64;

/**
 * The K shards of the hook queue. K = 1 without `tagged` is the single queue of one Redis as it
 * always was (`<prefix>:bull`, queue `hooks`), so a single-Redis deployment keeps its queue.
 *
 * @param tagged - under a cluster even one shard needs a hash tag.
 * @throws RangeError for K outside 1…{@link MAX_HOOK_QUEUE_SHARDS}.
 */
export function hookQueueShards(keys: StoreKeys, count: number, tagged: boolean): HookQueueShard[] {
  if (!Number.isInteger(count) || count < 1 || count > MAX_HOOK_QUEUE_SHARDS) {
    throw new RangeError(`hook queue shards must be a whole number from 1 to ${MAX_HOOK_QUEUE_SHARDS}, not ${count}`);
  }
  if (count === 1 && !tagged) return [{ index: 0, prefix: keys.bullPrefix, name: keys.queueName }];
  const shards: HookQueueShard[] = [];
  for (let index = 0; index < count; index++) {
    const from = Math.floor((index * SLOTS) / count);
    const to = Math.floor(((index + 1) * SLOTS) / count) - 1;
    // The first tag `hooks-<i>-<n>` whose slot falls in the i-th even range (a few dozen tries at most).
    let tag = `hooks-${index}`;
    for (let n = 0; n < 100_000; n++) {
      const candidate = `hooks-${index}-${n}`;
      const slot = crc16(candidate) % SLOTS;
      if (slot >= from && slot <= to) {
        tag = candidate;
        break;
      }
    }
    shards.push({ index, prefix: `${keys.bullPrefix}:{${tag}}`, name: keys.queueName });
  }
  return shards;
}

/** FNV-1a (32 bit) of a string: cheap, stable across processes and versions. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The shard a hook goes to: a stable hash of its id modulo K (see the module notes for why the hook id). */
export function shardIndexOf(hookId: string, count: number): number {
  return count <= 1 ? 0 : fnv1a(hookId) % count;
}

/** Whether `slots[i]` lies in the i-th of `count` even slot ranges, for every i (how shards meet masters made with even ranges). */
export function slotRangesCheck(slots: readonly number[], count: number): boolean {
  return slots.every((slot, index) => slot >= Math.floor((index * SLOTS) / count) && slot <= Math.floor(((index + 1) * SLOTS) / count) - 1);
}
