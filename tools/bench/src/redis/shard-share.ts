/**
 * How evenly a run's Redis work fell on the masters of a cluster: each master's commands per
 * decision (from its own `INFO commandstats` delta) and the busiest master's share of all commands
 * against an even share. A skew ratio of 1 is perfectly even; the sharded hook queue and the
 * hash-tagged keys aim at ≤ 1.3 with as many queue shards as masters.
 *
 * With each master's CPU seconds over the same window (`INFO cpu`), also the CPU each master spent
 * per decision: commands differ in cost (a script's follow-ups are cheap, a stream read is not), so
 * the CPU is what bounds a master, and the busiest master's CPU per decision is what a projection of
 * capacity per added master starts from. Redis runs commands on one thread, so a master is full at
 * one core.
 */
import { count } from '../report/format.js';
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
  /** Its CPU (user + system) per decision, µs, rounded to 0.1; absent when CPU was not read (results before it was). */
  cpuUsPerDecision?: number;
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
  /** All masters' CPU per decision, µs, rounded to 0.1 (absent when CPU was not read). */
  cpuUsPerDecision?: number;
  /** The share of all masters' CPU spent by the one that spent most, 0..1, rounded to 0.001. */
  busiestCpuShare?: number;
  /**
   * Decisions/s at which the master with the most CPU per decision would be busy a whole core:
   * 1 s ÷ its CPU per decision, rounded to a whole number. The Redis-side ceiling of this topology
   * from the measured cost; the CPU of a contended machine is inflated, so it is a lower bound of that ceiling.
   */
  cpuBoundPerSecond?: number;
}

/**
 * Redis's own CPU seconds so far, user + system over all its threads, from the text of `INFO cpu`
 * (`used_cpu_sys:1.234567`, `used_cpu_user:…`; the `_children` and `_main_thread` lines are other figures).
 * @throws Error when either line is missing: an answer that is not `INFO cpu`.
 */
export function parseRedisCpuSeconds(info: string): number {
  const read = (field: string) => {
    const match = new RegExp(`^${field}:([0-9.]+)\\s*$`, 'm').exec(info);
    if (!match) throw new Error(`INFO cpu has no ${field} line`);
    return Number(match[1]);
  };
  return read('used_cpu_sys') + read('used_cpu_user');
}

/**
 * The spread of `deltas` (node → its commandstats delta) over `decisions` decisions, and with
 * `cpuSeconds` (node → CPU seconds it spent in the same window) the spread of the CPU.
 * @throws RangeError for no nodes or no decisions: nothing to divide; for a node of `deltas`
 *   missing from `cpuSeconds`, or a negative CPU delta (a master restarted in the window).
 */
export function shardSpread(deltas: ReadonlyMap<string, CommandDelta>, decisions: number, cpuSeconds?: ReadonlyMap<string, number>): ShardSpread {
  if (deltas.size === 0) throw new RangeError('no Redis node to spread commands over');
  if (!(decisions > 0)) throw new RangeError(`decisions must be positive, got ${decisions}`);
  const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;
  const cpuOf = (node: string): number | undefined => {
    if (cpuSeconds === undefined) return undefined;
    const seconds = cpuSeconds.get(node);
    if (seconds === undefined) throw new RangeError(`no CPU reading for ${node}`);
    if (!(seconds >= 0)) throw new RangeError(`CPU of ${node} went backwards (${seconds} s): did it restart?`);
    return seconds;
  };
  const shards: ShardLoad[] = [...deltas].map(([node, delta]) => {
    const cpu = cpuOf(node);
    return { node, commands: delta.total, perDecision: round(delta.total / decisions, 2), ...(cpu === undefined ? {} : { cpuUsPerDecision: round((cpu * 1e6) / decisions, 1) }) };
  });
  const total = shards.reduce((sum, shard) => sum + shard.commands, 0);
  const busiest = Math.max(...shards.map((shard) => shard.commands));
  const share = total > 0 ? busiest / total : 0;
  const spread: ShardSpread = { shards, perDecision: round(total / decisions, 2), busiestShare: round(share, 3), skew: round(share * shards.length, 2) };
  if (cpuSeconds === undefined) return spread;
  const cpus = [...deltas.keys()].map((node) => cpuOf(node) ?? 0);
  const cpuTotal = cpus.reduce((sum, seconds) => sum + seconds, 0);
  const cpuBusiest = Math.max(...cpus);
  return {
    ...spread,
    cpuUsPerDecision: round((cpuTotal * 1e6) / decisions, 1),
    busiestCpuShare: round(cpuTotal > 0 ? cpuBusiest / cpuTotal : 0, 3),
    ...(cpuBusiest > 0 ? { cpuBoundPerSecond: Math.round(decisions / cpuBusiest) } : {}),
  };
}

/**
 * `12.3 µs Redis CPU/decision (4.1 / 4.0 / 4.2 per master, busiest 34 % of it; the busiest master full at ~240,000 decisions/s)`,
 * or `''` for a spread without CPU figures.
 */
export function cpuSpreadText(spread: ShardSpread): string {
  if (spread.cpuUsPerDecision === undefined) return '';
  const perShard = spread.shards.length > 1 ? `${spread.shards.map((shard) => shard.cpuUsPerDecision ?? '—').join(' / ')} per master, busiest ${Math.round((spread.busiestCpuShare ?? 0) * 100)} % of it; ` : '';
  const bound = spread.cpuBoundPerSecond === undefined ? 'no CPU measured' : `${spread.shards.length > 1 ? 'the busiest master' : 'Redis'} full at ~${count(spread.cpuBoundPerSecond)} decisions/s`;
  return `${spread.cpuUsPerDecision} µs Redis CPU/decision (${perShard}${bound})`;
}
