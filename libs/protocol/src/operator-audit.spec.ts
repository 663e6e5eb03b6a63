import { describe, expect, it } from 'vitest';
import { AuditEntrySchema, AuditListResponseSchema, AuditQuerySchema, AuditRecordSchema } from './operator.js';

const record = {
  at: '2026-02-09T10:00:00.000Z',
  operator: { id: 'ops-1', role: 'approver' },
  action: 'request.decide',
  target: 'req_042871',
  outcome: 'applied',
  details: { approve: true },
};

describe('audit schemas', () => {
  it('accepts a record and an entry with its id', () => {
    expect(AuditRecordSchema.parse(record)).toEqual(record);
    expect(AuditEntrySchema.parse({ ...record, id: '1770631200000-0' })).toMatchObject({ id: '1770631200000-0' });
    expect(AuditListResponseSchema.parse({ entries: [{ ...record, id: '1-0' }], truncated: false }).entries).toHaveLength(1);
  });

  it('refuses unknown actions, outcomes, fields and roles', () => {
    expect(AuditRecordSchema.safeParse({ ...record, action: 'config.delete' }).success).toBe(false);
    expect(AuditRecordSchema.safeParse({ ...record, outcome: 'maybe' }).success).toBe(false);
    expect(AuditRecordSchema.safeParse({ ...record, extra: 1 }).success).toBe(false);
    expect(AuditRecordSchema.safeParse({ ...record, operator: { id: 'ops-1', role: 'root' } }).success).toBe(false);
    expect(AuditRecordSchema.safeParse({ ...record, details: JSON.parse('{"__proto__":{}}') }).success).toBe(false);
  });

  it('reads the query with a default limit and refuses unknown parameters', () => {
    expect(AuditQuerySchema.parse({})).toEqual({ limit: 100 });
    expect(AuditQuerySchema.parse({ since: '2026-02-09T10:00:00Z', operator: 'ops-1', action: 'config.publish', limit: '5' })).toEqual({
      since: '2026-02-09T10:00:00Z',
      operator: 'ops-1',
      action: 'config.publish',
      limit: 5,
    });
    expect(AuditQuerySchema.safeParse({ who: 'ops-1' }).success).toBe(false);
    expect(AuditQuerySchema.safeParse({ limit: '0' }).success).toBe(false);
    expect(AuditQuerySchema.safeParse({ since: 'yesterday' }).success).toBe(false);
  });
});
