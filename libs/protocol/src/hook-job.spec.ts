import { describe, expect, it } from 'vitest';
import { HookCorrelationSchema, HookJobDataSchema, PresenceEntrySchema } from './hook-job.js';

const job = {
  hook_id: '0b7d5a3c-8e1f-4c2a-9d6b-1f2e3d4c5b6a',
  trigger: 'pre-tool-use',
  agent: { id: 'alice', name: 'Alice' },
  session_id: 'sess-1',
  context: { tool: { name: 'bash', input: { command: 'ls' } } },
  enqueued_at: 1_700_000_000_000,
  deadline_at: 1_700_000_005_000,
};

describe('HookJobDataSchema', () => {
  it('round-trips a job through JSON', () => {
    expect(HookJobDataSchema.parse(JSON.parse(JSON.stringify(job)))).toEqual(job);
  });

  it('refuses a job that smuggles a token or a prototype key', () => {
    const withToken = HookJobDataSchema.safeParse({ ...job, token: 'x' });
    expect(withToken.error!.issues[0]!.code).toBe('unrecognized_keys');
    const proto = HookJobDataSchema.safeParse(JSON.parse(JSON.stringify(job).replace('"tool":', '"__proto__":')));
    expect(proto.error!.issues[0]!.path).toEqual(['context', '__proto__']);
  });

  it('refuses an unknown trigger and a fractional deadline', () => {
    const result = HookJobDataSchema.safeParse({ ...job, trigger: 'pre-everything', deadline_at: 1.5 });
    expect(result.error!.issues.map((i) => i.path[0])).toEqual(['trigger', 'deadline_at']);
  });
});

describe('HookCorrelationSchema', () => {
  it('accepts a pending and a decided correlation', () => {
    const base = {
      hook_id: job.hook_id,
      agent_id: 'alice',
      session_id: 'sess-1',
      gateway_id: 'gw-a',
      trigger: 'pre-tool-use',
      created_at: 1,
      deadline_at: 2,
    };
    expect(HookCorrelationSchema.parse({ ...base, status: 'pending' }).status).toBe('pending');
    expect(HookCorrelationSchema.parse({ ...base, status: 'decided', decided_at: 2 }).decided_at).toBe(2);
    expect(HookCorrelationSchema.safeParse({ ...base, status: 'lost' }).success).toBe(false);
  });
});

describe('PresenceEntrySchema', () => {
  it('requires ISO timestamps', () => {
    const entry = {
      agent: { id: 'alice', name: 'Alice' },
      session_id: 's',
      gateway_id: 'gw',
      connected_at: '2026-11-22T10:00:00Z',
      last_activity_at: 'yesterday',
    };
    expect(PresenceEntrySchema.safeParse(entry).error!.issues[0]!.path).toEqual(['last_activity_at']);
  });
});
