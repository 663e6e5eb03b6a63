import { describe, expect, it } from 'vitest';
import { ServiceLogCounter } from './service-log.js';

describe('ServiceLogCounter', () => {
  it('counts the hook outcomes the workers and gateways log, and error lines', () => {
    const counter = new ServiceLogCounter();
    const line = (msg: string, level = 'info') => JSON.stringify({ time: 't', level, msg });
    counter.line('worker-1', line('hook decided'));
    counter.line('worker-1', line('hook decided'));
    counter.line('worker-2', line('hook already decided: this evaluation was a duplicate and is not delivered'));
    counter.line('worker-2', line('hook job skipped: its deadline passed and the gateway answered by failure policy'));
    counter.line('worker-2', line('hook job attempt failed', 'warn'));
    counter.line('gateway-1', line('hook deadline reached; applying the failure policy'));
    counter.line('gateway-1', line('hook decided by someone else entirely')); // a different message
    counter.line('gateway-1', line('storing the failure-policy decision failed', 'error'));
    counter.line('gateway-1', 'plain text output');
    counter.line('gateway-1', '{ not json');
    expect(counter.counts()).toEqual({
      decidedFirst: 2,
      decidedDuplicate: 1,
      skippedPastDeadline: 1,
      failedAttempts: 1,
      deadlinesReached: 1,
      errorLines: 1,
    });
    expect(counter.firstErrors()).toEqual(['gateway-1: storing the failure-policy decision failed']);
  });
});
