import type { ProtocolState } from '@ahp/protocol/wire';
import { describe, expect, it } from 'vitest';
import { IDLE_SHUTDOWN_FEEDBACK, ToolCallTracker, defaultShutdownAnswer } from './shutdown-policy.js';
import type { IncomingRequest } from './team.js';

const request = { request_id: 'req_s', type: 'shutdown', sender: 'lead', target: { kind: 'agent', agent: 'alice' }, status: 'pending', payload: {}, created_at: 'x', updated_at: 'x' } as ProtocolState as IncomingRequest<'shutdown'>;

describe('the default shutdown policy', () => {
  it('approves when idle and refuses, naming the calls, while tools run', () => {
    expect(defaultShutdownAnswer(request, [])).toEqual({ approve: true, feedback: IDLE_SHUTDOWN_FEEDBACK });
    expect(defaultShutdownAnswer(request, ['bash', 'bash', 'grep'])).toEqual({ approve: false, feedback: 'busy: 3 tool calls running (bash, grep); ask again once they have finished' });
  });

  it('tracks a call until it settles, also when it throws', async () => {
    const tracker = new ToolCallTracker();
    let release!: () => void;
    const slow = tracker.track('bash', () => new Promise<void>((resolve) => (release = resolve)));
    const failing = tracker.track('grep', async () => {
      throw new Error('boom');
    });
    expect(tracker.running).toEqual(['bash', 'grep']);
    await expect(failing).rejects.toThrow('boom');
    expect(tracker.running).toEqual(['bash']);
    release();
    await slow;
    expect(tracker.running).toEqual([]);
  });
});
