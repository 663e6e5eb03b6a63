import { EventFrameSchema } from '@ahp/protocol/wire';
import { describe, expect, it } from 'vitest';
import { isAhpClientError } from './errors.js';
import { checkOutgoing } from './outgoing-frame.js';

describe('checkOutgoing', () => {
  it('returns the parsed frame when it fits its schema', () => {
    const frame = { type: 'event', id: 'e-1', event: { kind: 'verification', result: { ok: true, type: 'passed', summary: 'all green' } } };
    expect(checkOutgoing(EventFrameSchema, frame, 'event')).toMatchObject({ type: 'event', id: 'e-1' });
  });

  it('throws E_INVALID_FRAME naming what was sent and listing the issues with dotted paths', () => {
    let thrown: unknown;
    try {
      checkOutgoing(EventFrameSchema, { type: 'event', id: 'e-1', event: { kind: 'verification', result: { ok: 'yes', type: 'passed', summary: '' } } }, 'event');
    } catch (error) {
      thrown = error;
    }
    expect(isAhpClientError(thrown) && thrown.code).toBe('E_INVALID_FRAME');
    expect(isAhpClientError(thrown) && thrown.message).toMatch(/^invalid event: /);
    const issues = isAhpClientError(thrown) ? (thrown.details?.['issues'] as { path: string }[]) : [];
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.map((issue) => issue.path)).toContain('event.result.ok');
  });
});
