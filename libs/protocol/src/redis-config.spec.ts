import { describe, expect, it } from 'vitest';
import { RedisClusterNodesSchema, RedisClusterNodesTextSchema, RedisNodeAddressSchema } from './redis-config.js';

const issue = (text: string) => {
  const parsed = RedisClusterNodesSchema.safeParse(text);
  return parsed.success ? undefined : parsed.error.issues.map((entry) => entry.message).join('; ');
};

describe('RedisClusterNodesSchema', () => {
  it('reads host:port lists with names, IPv4 and bracketed IPv6, blanks ignored', () => {
    expect(RedisClusterNodesSchema.parse(' 10.0.0.1:7000, redis-2:7001 ,[::1]:7002,')).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: 'redis-2', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
  });

  it('names the entry that is not host:port, a duplicate, an empty list and too many nodes', () => {
    expect(issue('10.0.0.1')).toBe('"10.0.0.1" is not host:port');
    expect(issue('a:1,b:0')).toBe('"b:0" is not host:port');
    expect(issue('a:99999')).toBe('"a:99999" is not host:port');
    expect(issue('a:1, redis://b:2')).toBe('"redis://b:2" is not host:port');
    expect(issue('::1:7000')).toBe('"::1:7000" is not host:port');
    expect(issue('a:1,a:1')).toBe('a:1 is listed twice');
    expect(issue(' , ')).toBe('names no node (host:port,host:port,…)');
    expect(issue(Array.from({ length: 65 }, (_, index) => `n${index}:7000`).join(','))).toMatch(/more than 64 nodes/);
  });

  it('parses one address on its own', () => {
    expect(RedisNodeAddressSchema.parse(' redis-cluster-1:6379 ')).toEqual({ host: 'redis-cluster-1', port: 6379 });
    expect(RedisNodeAddressSchema.safeParse('host with space:1').success).toBe(false);
  });
});

describe('RedisClusterNodesTextSchema', () => {
  it('keeps a good list as text and refuses a bad one in the list schema\'s words', () => {
    expect(RedisClusterNodesTextSchema.parse('a:1, b:2')).toBe('a:1, b:2');
    const parsed = RedisClusterNodesTextSchema.safeParse('a:1,b');
    expect(parsed.success ? [] : parsed.error.issues.map((issue) => issue.message)).toEqual(['must be host:port,host:port,… (the Redis Cluster nodes): "b" is not host:port']);
  });
});
