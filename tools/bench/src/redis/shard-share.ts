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
  /** Its CPU (user + system) in the window per decision, µs, rounded to 0.1; absent when CPU was not read (results before it was). */
  cpuUsPerDecision?: number;
  /** Its CPU with the agents connected and no decisions, % of one core, rounded to 0.1 (absent when not read). */
  idleCpuPercent?: number;
  /** Its CPU per decision above that idle rate, µs, rounded to 0.1: what one more decision costs it (absent when idle was not read). */
  loadCpuUsPerDecision?: number;
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
  /** All masters' CPU per decision above their idle rates, µs, rounded to 0.1 (absent when idle was not read). */
  loadCpuUsPerDecision?: number;
  /** The share of all masters' CPU in the window spent by the one that spent most, 0..1, rounded to 0.001. */
  busiestCpuShare?: number;
  /**
   * Decisions/s at which the first master would be busy a whole core, rounded to a whole number:
   * per master, what its idle rate leaves of a core ÷ its CPU per decision above idle (without an
   * idle reading: 1 s ÷ its CPU per decision). The Redis-side ceiling of this topology from the
   * measured cost; CPU on a contended machine, at a low rate, costs more per decision, so this is a
   * lower bound of that ceiling.
   */
  cpuBoundPerSecond?: number;
}

/** The CPU side of a run, per master, for {@link shardSpread}. */
export interface CpuReadings {
  /** Node → CPU seconds it spent in the measured window. */
  seconds: ReadonlyMap<string, number>;
  /** Wall time of the window, s (to take the idle rate out of it). */
  windowSeconds: number;
  /** Node → its CPU seconds per second while the agents were connected and no decision ran (read just before the window). */
  idleRate?: ReadonlyMap<string, number>;
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
 * `cpu` the spread of each master's CPU in the same window, in all and above its idle rate.
 * @throws RangeError for no nodes or no decisions: nothing to divide; for a node of `deltas`
 *   missing from `cpu`, or a negative CPU delta (a master restarted in the window).
 */
export function shardSpread(deltas: ReadonlyMap<string, CommandDelta>, decisions: number, cpu?: CpuReadings): ShardSpread {
  if (deltas.size === 0) throw new RangeError('no Redis node to spread commands over');
  if (!(decisions > 0)) throw new RangeError(`decisions must be positive, got ${decisions}`);
  const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;
  const nodes = [...deltas.keys()];
  const cpuShards = cpu === undefined ? undefined : nodes.map((node) => masterCpu(node, cpu));
  const shards: ShardLoad[] = [...deltas].map(([node, delta], index) => {
    const own = cpuShards?.[index];
    return {
      node,
      commands: delta.total,
      perDecision: round(delta.total / decisions, 2),
      ...(own === undefined ? {} : { cpuUsPerDecision: round((own.seconds * 1e6) / decisions, 1) }),
      ...(own?.idleRate === undefined ? {} : { idleCpuPercent: round(own.idleRate * 100, 1), loadCpuUsPerDecision: round((own.aboveIdle * 1e6) / decisions, 1) }),
    };
  });
  const total = shards.reduce((sum, shard) => sum + shard.commands, 0);
  const busiest = Math.max(...shards.map((shard) => shard.commands));
  const share = total > 0 ? busiest / total : 0;
  const spread: ShardSpread = { shards, perDecision: round(total / decisions, 2), busiestShare: round(share, 3), skew: round(share * shards.length, 2) };
  if (cpuShards === undefined) return spread;
  const cpuTotal = cpuShards.reduce((sum, own) => sum + own.seconds, 0);
  const withIdle = cpuShards.every((own) => own.idleRate !== undefined);
  // Per master, the decisions/s that fill its core: what idle leaves of it over what a decision costs above idle.
  const bounds = cpuShards
    .map((own) => (withIdle ? { free: 1 - (own.idleRate ?? 0), perDecision: own.aboveIdle / decisions } : { free: 1, perDecision: own.seconds / decisions }))
    .filter((bound) => bound.perDecision > 0)
    .map((bound) => Math.max(0, bound.free) / bound.perDecision);
  return {
    ...spread,
    cpuUsPerDecision: round((cpuTotal * 1e6) / decisions, 1),
    ...(withIdle ? { loadCpuUsPerDecision: round((cpuShards.reduce((sum, own) => sum + own.aboveIdle, 0) * 1e6) / decisions, 1) } : {}),
    busiestCpuShare: round(cpuTotal > 0 ? Math.max(...cpuShards.map((own) => own.seconds)) / cpuTotal : 0, 3),
    ...(bounds.length > 0 ? { cpuBoundPerSecond: Math.round(Math.min(...bounds)) } : {}),
  };
}

/** One master's CPU in the window, its idle rate when read, and the CPU above that rate (never below 0). */
function masterCpu(node: string, cpu: CpuReadings): { seconds: number; idleRate: number | undefined; aboveIdle: number } {
  const seconds = cpu.seconds.get(node);
  if (seconds === undefined) throw new RangeError(`no CPU reading for ${node}`);
  if (!(seconds >= 0)) throw new RangeError(`CPU of ${node} went backwards (${seconds} s): did it restart?`);
  if (cpu.idleRate === undefined) return { seconds, idleRate: undefined, aboveIdle: seconds };
  const idleRate = cpu.idleRate.get(node);
  if (idleRate === undefined) throw new RangeError(`no idle CPU reading for ${node}`);
  if (!(idleRate >= 0)) throw new RangeError(`idle CPU of ${node} went backwards (${idleRate} s/s): did it restart?`);
  return { seconds, idleRate, aboveIdle: Math.max(0, seconds - idleRate * cpu.windowSeconds) };
}

/**
 * `100 µs Redis CPU/decision (20 / 50 / 30 per master, busiest 50 % of it); above idle 70 µs
 * (10 / 40 / 20; idle 1 / 1 / 1 % of a core); the busiest master full at ~24,750 decisions/s`,
 * or `''` for a spread without CPU figures.
 */
export function cpuSpreadText(spread: ShardSpread): string {
  if (spread.cpuUsPerDecision === undefined) return '';
  const many = spread.shards.length > 1;
  const each = (pick: (shard: ShardLoad) => number | undefined) => spread.shards.map((shard) => pick(shard) ?? '—').join(' / ');
  const gross = `${spread.cpuUsPerDecision} µs Redis CPU/decision${many ? ` (${each((shard) => shard.cpuUsPerDecision)} per master, busiest ${Math.round((spread.busiestCpuShare ?? 0) * 100)} % of it)` : ''}`;
  const above =
    spread.loadCpuUsPerDecision === undefined
      ? ''
      : `; above idle ${spread.loadCpuUsPerDecision} µs (${many ? `${each((shard) => shard.loadCpuUsPerDecision)}; ` : ''}idle ${each((shard) => shard.idleCpuPercent)} % of a core)`;
  const bound = spread.cpuBoundPerSecond === undefined ? '' : `; ${many ? 'the busiest master' : 'Redis'} full at ~${count(spread.cpuBoundPerSecond)} decisions/s`;
  return `${gross}${above}${bound}`;
}
