import { describe, expect, it } from 'vitest';
import { GatewayEvents } from './gateway-events.js';

const error = { agentId: 'alice', code: 'E_BAD_FRAME' };

describe('GatewayEvents', () => {
  it('calls listeners in subscription order and stops after unsubscribe', () => {
    const events = new GatewayEvents();
    const seen: string[] = [];
    const off = events.on('errorSent', (payload) => seen.push(`a:${payload.code}`));
    events.on('errorSent', (payload) => seen.push(`b:${payload.code}`));
    events.emit('errorSent', error);
    off();
    events.emit('errorSent', error);
    expect(seen).toEqual(['a:E_BAD_FRAME', 'b:E_BAD_FRAME', 'b:E_BAD_FRAME']);
  });

  it('isolates a throwing listener: the others run, the failure is counted and reported', () => {
    const events = new GatewayEvents();
    const reported: string[] = [];
    events.reportListenerErrorsTo((failure, event) => reported.push(`${event}:${(failure as Error).message}`));
    let after = 0;
    events.on('errorSent', () => {
      throw new Error('listener bug');
    });
    events.on('errorSent', () => (after += 1));
    expect(() => events.emit('errorSent', error)).not.toThrow();
    expect(after).toBe(1);
    expect(events.listenerFailures).toBe(1);
    expect(reported).toEqual(['errorSent:listener bug']);
  });

  it('does nothing for an event without listeners', () => {
    const events = new GatewayEvents();
    expect(() => events.emit('timelineRecorded', { entry: {} as never })).not.toThrow();
  });
});
