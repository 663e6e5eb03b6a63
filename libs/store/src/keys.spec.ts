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

  it('accepts a test prefix with a trailing colon, and a BullMQ prefix of its own', () => {
    const keys = createKeys({ prefix: 'ahp:test:x:abc:', bullPrefix: '{ahp:bull}' });
    expect(keys.hook('h')).toBe('ahp:test:x:abc:hook:{h}');
    expect(keys.bullPrefix).toBe('{ahp:bull}');
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
