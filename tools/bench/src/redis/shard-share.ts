/**
 * How evenly a run's Redis work fell on the masters of a cluster: each master's commands per
 * decision (from its own `INFO commandstats` delta) and the busiest master's share of all commands
 * against an even share. A skew ratio of 1 is perfectly even; the sharded hook queue and the
 * hash-tagged keys aim at ≤ 1.3 with as many queue shards as masters.
 */
import type { CommandDelta } from './commandstats.js';

/** The busiest master may carry at most this many times an even share of the commands. */
export const SHARD_SKEW_GOAL = 1.3;

/** One master's part of a run. */
export interface ShardLoad {
  /** `host:port` of the master. */
  node: string;
  /** Commands it ran in the window (the measurement's own INFO left out). */
  commands: number;
  /** Its commands per decision completed in the window, rounded to 0.01. */
  perDecision: number;
}

/** The spread of one run's commands over the masters. */
export interface ShardSpread {
  shards: ShardLoad[];
  /** All masters' commands per decision, rounded to 0.01. */
  perDecision: number;
  /** The busiest master's share of all commands, 0..1, rounded to 0.001. */
  busiestShare: number;
  /** busiestShare ÷ (1 / masters), rounded to 0.01: 1 is perfectly even, `masters` is all on one. */
  skew: number;
}

/**
 * The spread of `deltas` (node → its commandstats delta) over `decisions` decisions.
 * @throws RangeError for no nodes or no decisions: nothing to divide.
 */
export function shardSpread(deltas: ReadonlyMap<string, CommandDelta>, decisions: number): ShardSpread {
  if (deltas.size === 0) throw new RangeError('no Redis node to spread commands over');
  if (!(decisions > 0)) throw new RangeError(`decisions must be positive, got ${decisions}`);
  const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;
  const shards = [...deltas].map(([node, delta]) => ({ node, commands: delta.total, perDecision: round(delta.total / decisions, 2) }));
  const total = shards.reduce((sum, shard) => sum + shard.commands, 0);
  const busiest = Math.max(...shards.map((shard) => shard.commands));
  const share = total > 0 ? busiest / total : 0;
  return { shards, perDecision: round(total / decisions, 2), busiestShare: round(share, 3), skew: round(share * shards.length, 2) };
}
