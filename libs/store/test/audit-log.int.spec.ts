/**
 * The operators' audit stream against the run's Redis: append, filters, newest first, limits,
 * trimming and refusal of invalid records.
 */
import type { AuditRecord } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreInputError, createAuditLog, type AuditLog, type RedisClient, type StoreKeys } from '../src/index.js';
import { openClient, testKeys } from './support.js';

/** Records carry the gateway's time of the action, which is about when they are appended. */
const T0 = Date.now();

let redis: RedisClient;
let keys: StoreKeys;
let audit: AuditLog;

beforeAll(async () => {
  redis = await openClient('store-test:audit');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  audit = createAuditLog({ redis, keys });
});

/** A record `second` seconds after T0. */
function record(second: number, overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    at: new Date(T0 + second * 1000).toISOString(),
    operator: { id: 'ops-1', role: 'approver' },
    action: 'request.decide',
    target: `req_${second}`,
    outcome: 'applied',
    details: { approve: true },
    ...overrides,
  };
}

describe('AuditLog', () => {
  it('returns what was appended, newest first, with entry ids', async () => {
    const ids = [];
    for (const minute of [0, 1, 2]) ids.push(await audit.append(record(minute)));
    const { entries, truncated } = await audit.read({ limit: 10 });
    expect(truncated).toBe(false);
    expect(entries.map((entry) => entry.target)).toEqual(['req_2', 'req_1', 'req_0']);
    expect(entries.map((entry) => entry.id)).toEqual([...ids].reverse());
    expect(entries[0]).toEqual({ ...record(2), id: ids[2] });
  });

  it('filters by time range, operator and action, and says when the limit cut the list', async () => {
    await audit.append(record(0));
    await audit.append(record(1, { operator: { id: 'ops-2', role: 'admin' }, action: 'config.publish', target: 'hooks', outcome: 'refused', details: { error_code: 'E_INVALID_FRAME', issue_count: 2 } }));
    await audit.append(record(2));
    await audit.append(record(3, { operator: { id: 'ops-2', role: 'admin' }, action: 'config.publish', target: 'hooks', details: { version: 4 } }));

    const targets = async (filter: Parameters<AuditLog['read']>[0]) =>
      (await audit.read(filter)).entries.map((e) => `${e.target}@${(Date.parse(e.at) - T0) / 1000}`);
    expect(await targets({ limit: 10, operator: 'ops-2' })).toEqual(['hooks@3', 'hooks@1']);
    expect(await targets({ limit: 10, action: 'request.decide' })).toEqual(['req_2@2', 'req_0@0']);
    expect(await targets({ limit: 10, since: T0 + 1000, until: T0 + 3000 })).toEqual(['req_2@2', 'hooks@1']);
    expect(await audit.read({ limit: 2 })).toMatchObject({ truncated: true, entries: [{ target: 'hooks' }, { target: 'req_2' }] });
    expect(await audit.read({ limit: 1, operator: 'nobody' })).toEqual({ entries: [], truncated: false });
  });

  it('pages through more entries than one read returns', async () => {
    for (let i = 0; i < 1200; i++) await audit.append(record(i % 5, { target: `req_${i}`, operator: { id: i === 3 ? 'rare' : 'ops-1', role: 'approver' } }));
    expect((await audit.read({ limit: 5, operator: 'rare' })).entries.map((e) => e.target)).toEqual(['req_3']);
    const all = await audit.read({ limit: 500 });
    expect(all.entries).toHaveLength(500);
    expect(all.truncated).toBe(true);
  });

  it('trims to about maxLen entries', async () => {
    const small = createAuditLog({ redis, keys, maxLen: 10 });
    for (let i = 0; i < 300; i++) await small.append(record(0, { target: `req_${i}` }));
    expect(await redis.xLen(keys.audit)).toBeLessThan(300);
  });

  it('refuses invalid records and writes nothing', async () => {
    await expect(audit.append({ ...record(0), action: 'everything' } as unknown as AuditRecord)).rejects.toBeInstanceOf(StoreInputError);
    await expect(audit.append({ ...record(0), details: JSON.parse('{"__proto__":{"x":1}}') as AuditRecord['details'] })).rejects.toBeInstanceOf(StoreInputError);
    await expect(audit.read({ limit: 0 })).rejects.toBeInstanceOf(StoreInputError);
    expect(await redis.exists(keys.audit)).toBe(0);
  });
});
