import { describe, expect, it } from 'vitest';
import { describeTrackCapabilities, detectTrackCapabilities } from './capabilities.js';

describe('detectTrackCapabilities', () => {
  const fn = () => undefined;

  it('reports each missing piece and says "not available in this build" rather than passing', () => {
    const capabilities = detectTrackCapabilities({ hook: fn });
    expect(capabilities.approvals).toEqual({ available: false, missing: ['AhpClient.submitPlan', 'AhpClient.onRequest'] });
    expect(capabilities.inbox).toEqual({ available: false, missing: ['AhpClient.send', 'AhpClient.idle'] });
    expect(describeTrackCapabilities(capabilities)).toBe(
      'approvals/inbox: not available in this build (missing: AhpClient.submitPlan, AhpClient.onRequest, AhpClient.send, AhpClient.idle)',
    );
  });

  it('sees a track once all of its pieces are there', () => {
    const capabilities = detectTrackCapabilities({ send: fn, idle: fn, submitPlan: fn });
    expect(capabilities.inbox).toEqual({ available: true, missing: [] });
    expect(describeTrackCapabilities(capabilities)).toBe('approvals: not available in this build (missing: AhpClient.onRequest); inbox: tracked');
  });

  it('finds both tracks in the SDK this build ships', () => {
    const capabilities = detectTrackCapabilities();
    expect(capabilities.approvals.available && capabilities.inbox.available).toBe(true);
  });
});
