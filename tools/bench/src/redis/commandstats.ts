/**
 * Redis's own count of the commands it ran (`INFO commandstats`), and the difference between two
 * readings. Redis counts every command it executes, including those a Lua script or a MULTI block
 * runs, so the delta is the work Redis did, not the number of network round trips.
 */

/** Calls of one command (subcommands are separate: `client|setname`). */
export interface CommandCount {
  command: string;
  calls: number;
}

/** One `INFO commandstats` reading: command → calls. */
export type CommandStats = ReadonlyMap<string, number>;

/** Commands the benchmark itself issues to take the readings; never counted against the system. */
export const MEASUREMENT_COMMANDS: readonly string[] = ['info'];

/** Script invocations: each runs further commands that Redis counts on their own. */
export const SCRIPT_COMMANDS: readonly string[] = ['evalsha', 'eval', 'evalsha_ro', 'eval_ro', 'fcall', 'fcall_ro'];

/**
 * Parses the text of `INFO commandstats` (`cmdstat_<name>:calls=N,usec=…`). Lines that are not
 * command statistics (the `# Commandstats` header, blank lines) are ignored.
 */
export function parseCommandStats(info: string): CommandStats {
  const stats = new Map<string, number>();
  for (const raw of info.split(/\r?\n/)) {
    const match = /^cmdstat_([^:]+):(.*)$/.exec(raw.trim());
    if (!match) continue;
    const calls = /(?:^|,)calls=(\d+)/.exec(match[2] as string);
    if (calls) stats.set((match[1] as string).toLowerCase(), Number(calls[1]));
  }
  return stats;
}

/** What changed between two readings. */
export interface CommandDelta {
  /** Calls of every command but the measurement's own. */
  total: number;
  /** Script invocations among them (EVALSHA and friends). */
  scripts: number;
  /** Per command, most calls first (ties by name). Commands with no new calls are left out. */
  byCommand: CommandCount[];
}

/**
 * The calls made between `before` and `after`. A command missing from `before` counts from zero
 * (Redis lists a command only once it was called). A counter that went down means the stats were
 * reset in between, which would make the delta meaningless, so it throws.
 */
export function diffCommandStats(before: CommandStats, after: CommandStats, exclude: readonly string[] = MEASUREMENT_COMMANDS): CommandDelta {
  const byCommand: CommandCount[] = [];
  for (const [command, calls] of after) {
    if (exclude.includes(command)) continue;
    const delta = calls - (before.get(command) ?? 0);
    if (delta < 0) throw new Error(`command stats went backwards for ${command} (${before.get(command)} → ${calls}); were they reset?`);
    if (delta > 0) byCommand.push({ command, calls: delta });
  }
  byCommand.sort((a, b) => b.calls - a.calls || a.command.localeCompare(b.command));
  const total = byCommand.reduce((sum, entry) => sum + entry.calls, 0);
  const scripts = byCommand.filter((entry) => SCRIPT_COMMANDS.includes(entry.command)).reduce((sum, entry) => sum + entry.calls, 0);
  return { total, scripts, byCommand };
}

/** Commands per operation (decision, job), overall and per command, rounded to 0.01. */
export interface CommandsPerOperation {
  operations: number;
  perOperation: number;
  scriptsPerOperation: number;
  byCommand: { command: string; perOperation: number }[];
}

/** Divides a delta by the operations it served. */
export function perOperation(delta: CommandDelta, operations: number): CommandsPerOperation {
  if (!(operations > 0)) throw new RangeError(`operations must be positive, got ${operations}`);
  const per = (calls: number) => Math.round((calls / operations) * 100) / 100;
  return {
    operations,
    perOperation: per(delta.total),
    scriptsPerOperation: per(delta.scripts),
    byCommand: delta.byCommand.map((entry) => ({ command: entry.command, perOperation: per(entry.calls) })),
  };
}
