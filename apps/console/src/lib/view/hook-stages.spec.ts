import { describe, expect, it } from 'vitest';
import { formatOracleMs, stageRows } from './hook-stages';

describe('stageRows', () => {
  it('lists the four stages in order with their share of the measured total', () => {
    const { rows, totalMs } = stageRows({ gateway_ms: 1, queue_ms: 2, worker_ms: 5, delivery_ms: 2 });
    expect(totalMs).toBe(10);
    expect(rows.map((row) => [row.key, row.ms, row.share])).toEqual([
      ['gateway', 1, 0.1],
      ['queue', 2, 0.2],
      ['worker', 5, 0.5],
      ['delivery', 2, 0.2],
    ]);
  });

  it('leaves an unmeasured delivery out of the total and all-zero stages at share 0', () => {
    expect(stageRows({ gateway_ms: 0, queue_ms: 0, worker_ms: 0 }).rows.map((row) => row.share)).toEqual([0, 0, 0, 0]);
    const { rows, totalMs } = stageRows({ gateway_ms: 1, queue_ms: 1, worker_ms: 2 });
    expect(totalMs).toBe(4);
    expect(rows[3]).toMatchObject({ key: 'delivery', ms: undefined, share: 0 });
  });
});

describe('formatOracleMs', () => {
  it('keeps a decimal below 10 ms', () => {
    expect(formatOracleMs(0.42)).toBe('0.4 ms');
    expect(formatOracleMs(37.6)).toBe('38 ms');
  });
});
