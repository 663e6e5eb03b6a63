/**
 * Small helpers the phases share.
 */
import type { TargetName } from '../loadgen/protocol.js';
import type { PhaseContext } from '../orchestrator/context.js';
import { ms } from '../report/format.js';
import type { Measured } from '../results.js';

/** Runs `count` operations that are not measured: JIT compilation, connection pools, caches. */
export async function warmUp(ctx: PhaseContext, target: TargetName, count: number): Promise<void> {
  if (count > 0) await ctx.loadgen.run(target, { kind: 'closed', concurrency: 1, count });
}

/** Warm-up length for a measurement of `count` operations: a tenth of it, between 5 and 500. */
export function warmUpCount(count: number): number {
  return Math.min(500, Math.max(5, Math.round(count / 10)));
}

/** `p50 1.23 ms, p99 4.56 ms` (and the error count, when there are errors). */
export function latencyLine(figure: Measured, withP999 = false): string {
  const { latency } = figure;
  const tail = withP999 ? `, p99.9 ${ms(latency.p999)}` : '';
  const errors = figure.errors > 0 ? `, ${figure.errors} errors (${Object.entries(figure.errorCodes).map(([code, n]) => `${code}×${n}`).join(' ')})` : '';
  return `p50 ${ms(latency.p50)}, p99 ${ms(latency.p99)}${tail}${errors}`;
}
