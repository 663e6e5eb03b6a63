import { describe, expect, it } from 'vitest';
import { StoreInputError } from './errors.js';
import { createKeys } from './keys.js';

describe('createKeys', () => {
  it('builds every key from the prefix, with a hash tag on each entity id', () => {
    const keys = createKeys();
    expect(keys.prefix).toBe('ahp');
    expect(keys.bullPrefix).toBe('ahp:bull');
    expect(keys.queueName).toBe('hooks');
    expect(keys.hook('0b7c6a4e-1d2f-4a3b-9c8d-7e6f5a4b3c2d')).toBe('ahp:hook:{0b7c6a4e-1d2f-4a3b-9c8d-7e6f5a4b3c2d}');
    expect(keys.signal('s-1')).toBe('ahp:signal:{s-1}');
    expect(keys.gatewayDecisions('gw-1')).toBe('ahp:gw:{gw-1}:decisions');
    expect(keys.presenceAgent('a.1')).toBe('ahp:presence:agent:{a.1}');
    expect(keys.presenceGateway('gw-1')).toBe('ahp:presence:gw:{gw-1}');
    expect(keys.session('s:1')).toBe('ahp:session:{s:1}');
    expect([keys.signalLog, keys.presenceAgents, keys.presenceGateways]).toEqual(['ahp:signal-log', 'ahp:presence:agents', 'ahp:presence:gateways']);
  });

  it('builds the configuration, rule-counter and breaker keys, in one hash tag each', () => {
    const keys = createKeys();
    expect([keys.configMeta, keys.configVersions, keys.configChannel]).toEqual([
      'ahp:config:{hooks}:meta',
      'ahp:config:{hooks}:versions',
      'ahp:config:{hooks}:published',
    ]);
    expect(keys.ruleCounter('agent-1', 'pre-issue-submit.checklist-validator.incomplete')).toBe('ahp:rule:{agent-1}:pre-issue-submit.checklist-validator.incomplete');
    expect(keys.ruleCounter('agent-1', 'a rule/with {braces}')).toMatch(/^ahp:rule:\{agent-1\}:sha256-[0-9a-f]{64}$/);
    expect(keys.breakerCalls('a-1')).toBe('ahp:breaker:{a-1}:calls');
    expect(keys.breakerIterations('a-1')).toBe('ahp:breaker:{a-1}:iterations');
    expect(() => keys.ruleCounter('a}1', 'r')).toThrow(StoreInputError);
  });

  it('accepts a test prefix with a trailing colon, and a BullMQ prefix of its own', () => {
    const keys = createKeys({ prefix: 'ahp:test:x:abc:', bullPrefix: '{ahp:bull}' });
    expect(keys.hook('h')).toBe('ahp:test:x:abc:hook:{h}');
    expect(keys.bullPrefix).toBe('{ahp:bull}');
  });

  it('tags per-request keys by request id and per-agent keys by agent id', () => {
    const keys = createKeys();
    expect([keys.request('req_1'), keys.requestHistory('req_1')]).toEqual(['ahp:request:{req_1}', 'ahp:request:{req_1}:history']);
    expect([keys.inbox('a.1'), keys.inboxIds('a.1'), keys.planGate('a.1')]).toEqual(['ahp:inbox:{a.1}', 'ahp:inbox:{a.1}:ids', 'ahp:plan-gate:{a.1}']);
    expect([keys.requestsAll, keys.requestsByStatus('pending'), keys.requestsByAgent('a.1'), keys.requestsByTeam('red')]).toEqual([
      'ahp:requests:all',
      'ahp:requests:status:pending',
      'ahp:requests:agent:{a.1}',
      'ahp:requests:team:{red}',
    ]);
    expect([keys.requestsByTarget({ kind: 'operators' }), keys.requestsByTarget({ kind: 'agent', agent: 'operators' })]).toEqual([
      'ahp:requests:target:operators',
      'ahp:requests:target:agent:{operators}',
    ]);
    expect([keys.requestDeadlines, keys.requestRetention, keys.requestEvents]).toEqual(['ahp:requests:deadlines', 'ahp:requests:retention', 'ahp:requests:events']);
  });

  it('refuses ids and prefixes that would break out of their hash tag', () => {
    const keys = createKeys();
    for (const bad of ['', 'a}b', '{a}', 'has space', 'x'.repeat(129)]) {
      expect(() => keys.hook(bad)).toThrow(StoreInputError);
    }
    expect(() => createKeys({ prefix: 'a{b}' })).toThrow(StoreInputError);
    expect(() => createKeys({ prefix: ':' })).toThrow(StoreInputError);
  });
});
