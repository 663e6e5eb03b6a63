import { describe, expect, it } from 'vitest';
import type { Signal } from './signal.js';
import { mustAnswer } from './signal-answer.js';

const header = (intensity: Signal['header']['intensity']) => ({ id: '5d0b6f1e-6f43-4d4c-9d55-3f0f2b6b1a11', type: 'permission-check', timestamp: '2026-01-01T00:00:00Z', source: 'o', intensity });

describe('mustAnswer', () => {
  it('is true for block and control (docs/spec/spectrum-and-signals.md#answering-signals), false for prompt and aid', () => {
    expect(mustAnswer({ header: header('block'), context: {}, payload: { level: 'blocking', decision: 'deny', reason: 'no', resolvable: true, resolution_path: [] } })).toBe(true);
    expect(
      mustAnswer({ header: header('control'), context: {}, payload: { level: 'controlling', decision: 'allow_with_modification', modifications: [{ target: 'a', original: 1, updated: 2, reason: 'r' }], reversible: true } }),
    ).toBe(true);
    expect(mustAnswer({ header: header('prompt'), context: {}, payload: { level: 'prompting', decision: 'warn', severity: 'low', message: 'm', suggestions: [], continue_allowed: true } })).toBe(false);
    expect(mustAnswer({ header: header('aid'), context: {}, payload: { level: 'aiding', decision: 'suggest', context: 'c', suggestions: [] } })).toBe(false);
  });

  it('is false for a block that waits for a person: the approval answers it', () => {
    const waiting: Signal = {
      header: header('block'),
      context: {},
      payload: { level: 'blocking', decision: 'deny', reason: 'waits', resolvable: true, resolution_path: [], resolution: { kind: 'await_approval', request_id: 'req_1', deadline: '2026-01-01T00:15:00Z' } },
    };
    expect(mustAnswer(waiting)).toBe(false);
  });
});
