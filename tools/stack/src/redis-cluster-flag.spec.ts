import { describe, expect, it } from 'vitest';
import { takeRedisClusterFlag } from './redis-cluster-flag.js';

describe('takeRedisClusterFlag', () => {
  it('reads --redis-cluster with a number, with =, and without one (3 masters)', () => {
    expect(takeRedisClusterFlag(['--workers', '1', '--redis-cluster', '5', '--no-demo'])).toEqual({ rest: ['--workers', '1', '--no-demo'], masters: 5 });
    expect(takeRedisClusterFlag(['--redis-cluster=4'])).toEqual({ rest: [], masters: 4 });
    expect(takeRedisClusterFlag(['--redis-cluster', '--no-demo'])).toEqual({ rest: ['--no-demo'], masters: 3 });
    expect(takeRedisClusterFlag(['--redis-cluster'])).toEqual({ rest: [], masters: 3 });
  });

  it('leaves the arguments alone without the flag', () => {
    expect(takeRedisClusterFlag(['--gateways', '2'])).toEqual({ rest: ['--gateways', '2'], masters: undefined });
  });

  it('refuses a number outside 1-16, a non-number after =, and the flag twice', () => {
    expect(() => takeRedisClusterFlag(['--redis-cluster', '0'])).toThrow(/from 1 to 16, not "0"/);
    expect(() => takeRedisClusterFlag(['--redis-cluster=17'])).toThrow(RangeError);
    expect(() => takeRedisClusterFlag(['--redis-cluster=three'])).toThrow(/not "three"/);
    expect(() => takeRedisClusterFlag(['--redis-cluster', '--redis-cluster=2'])).toThrow(/twice/);
  });
});
