import { describe, expect, it } from 'vitest';
import { LoopBreakers } from './breakers.js';

describe('LoopBreakers', () => {
  it('trips E_STUTTERING on the 51st identical call by default, whatever the key order', () => {
    const breakers = new LoopBreakers();
    for (let i = 1; i <= 50; i++) expect(breakers.checkToolCall('bash', i % 2 ? { a: 1, b: 2 } : { b: 2, a: 1 })).toEqual({ ok: true, count: i });
    const tripped = breakers.checkToolCall('bash', { a: 1, b: 2 });
    expect(tripped).toMatchObject({ ok: false, code: 'E_STUTTERING', count: 51 });
    expect(breakers.checkToolCall('bash', { a: 2 })).toEqual({ ok: true, count: 1 });
  });

  it('honours a configured threshold and keeps refusing a repeated call', () => {
    const breakers = new LoopBreakers({ maxIdenticalToolCalls: 2 });
    expect(breakers.checkToolCall('ls', {}).ok).toBe(true);
    expect(breakers.checkToolCall('ls', {}).ok).toBe(true);
    expect(breakers.checkToolCall('ls', {}).ok).toBe(false);
    expect(breakers.checkToolCall('ls', {})).toMatchObject({ ok: false, count: 4 });
  });

  it('exceeds the iteration limit on the 21st iteration by default', () => {
    const breakers = new LoopBreakers();
    for (let i = 1; i <= 20; i++) expect(breakers.nextIteration()).toEqual({ iteration: i, exceeded: false });
    expect(breakers.nextIteration()).toEqual({ iteration: 21, exceeded: true });
    expect(breakers.iteration).toBe(21);
  });

  it('rejects limits that are not positive integers', () => {
    expect(() => new LoopBreakers({ maxIterations: 0 })).toThrow(RangeError);
    expect(() => new LoopBreakers({ maxIdenticalToolCalls: 1.5 })).toThrow(RangeError);
  });
});
