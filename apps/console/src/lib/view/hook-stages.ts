/** The drill-down's stage latencies as rows of a bar: what each stage took and its share of the whole. */
import type { HookStageLatencies } from '@ahp/protocol';

export interface StageRow {
  readonly key: 'gateway' | 'queue' | 'worker' | 'delivery';
  readonly label: string;
  /** What the stage spans, for a tooltip. */
  readonly spans: string;
  /** Absent for a stage not measured (no delivery recorded). */
  readonly ms: number | undefined;
  /** Share of the measured total, 0–1 (0 when the total is 0). */
  readonly share: number;
}

const STAGES = [
  { key: 'gateway', label: 'Gateway', spans: 'received → enqueued', field: 'gateway_ms' },
  { key: 'queue', label: 'Queue wait', spans: 'enqueued → picked up by a worker', field: 'queue_ms' },
  { key: 'worker', label: 'Worker', spans: 'picked up → decision stored (every oracle)', field: 'worker_ms' },
  { key: 'delivery', label: 'Delivery', spans: 'decision stored → sent to the agent', field: 'delivery_ms' },
] as const;

/** The four stages in order, with their share of the measured total. */
export function stageRows(stages: HookStageLatencies): { rows: StageRow[]; totalMs: number } {
  const totalMs = STAGES.reduce((sum, stage) => sum + (stages[stage.field] ?? 0), 0);
  const rows = STAGES.map(({ key, label, spans, field }) => {
    const ms = stages[field];
    return { key, label, spans, ms, share: ms === undefined || totalMs === 0 ? 0 : ms / totalMs };
  });
  return { rows, totalMs };
}

/** An oracle's time: fractions below 10 ms matter (`0.4 ms`), beyond that whole milliseconds. */
export function formatOracleMs(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}
