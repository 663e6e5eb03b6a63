import { describe, expect, it } from 'vitest';
import {
  ListRequestsQuerySchema,
  OperatorTokensFileSchema,
  RequestDecisionBodySchema,
  RequestHistoryEntrySchema,
  OperatorScopeSchema,
  TimelineEntrySchema,
  isFleetWide,
  roleAllows,
  scopeCoversRequestType,
  scopeCoversTeam,
  EnforcementResetBodySchema,
} from './operator.js';

const DIGEST_A = 'a'.repeat(64);
const DIGEST_B = 'b'.repeat(64);

describe('roleAllows', () => {
  it('orders the roles viewer < approver < admin', () => {
    expect(roleAllows('viewer', 'viewer')).toBe(true);
    expect(roleAllows('viewer', 'approver')).toBe(false);
    expect(roleAllows('approver', 'approver')).toBe(true);
    expect(roleAllows('approver', 'admin')).toBe(false);
    expect(roleAllows('admin', 'viewer')).toBe(true);
    expect(roleAllows('admin', 'admin')).toBe(true);
  });
});

describe('operator scopes', () => {
  it('parses teams and request types, and refuses empty, unknown or missing parts', () => {
    expect(OperatorScopeSchema.parse({ teams: ['red'], request_types: ['plan_approval'] })).toEqual({ teams: ['red'], request_types: ['plan_approval'] });
    for (const bad of [{}, { teams: [] }, { request_types: [] }, { request_types: ['deploy'] }, { teams: ['a b'] }, { teams: ['red'], extra: 1 }]) {
      expect(OperatorScopeSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('keeps the scope of a token entry, and refuses a bad one in the tokens file', () => {
    const file = OperatorTokensFileSchema.parse({ operators: [{ id: 'op-r', name: 'R', role: 'approver', scope: { teams: ['red'] }, token_sha256: DIGEST_A }] });
    expect(file.operators[0]?.scope).toEqual({ teams: ['red'] });
    expect(OperatorTokensFileSchema.safeParse({ operators: [{ id: 'op-r', name: 'R', role: 'approver', scope: { teams: [] }, token_sha256: DIGEST_A }] }).success).toBe(false);
  });

  it('covers every team and type without a scope; only its teams with one; never an agent without a team', () => {
    const fleet = {};
    const red = { scope: { teams: ['red'] } };
    const plans = { scope: { request_types: ['plan_approval' as const] } };
    expect(isFleetWide(fleet)).toBe(true);
    expect(isFleetWide(red)).toBe(false);
    expect(isFleetWide(plans)).toBe(false);
    expect(scopeCoversTeam(fleet, undefined)).toBe(true);
    expect(scopeCoversTeam(red, 'red')).toBe(true);
    expect(scopeCoversTeam(red, 'blue')).toBe(false);
    expect(scopeCoversTeam(red, undefined)).toBe(false);
    expect(scopeCoversTeam(plans, 'blue')).toBe(true);
    expect(scopeCoversRequestType(red, 'tool_approval')).toBe(true);
    expect(scopeCoversRequestType(plans, 'plan_approval')).toBe(true);
    expect(scopeCoversRequestType(plans, 'tool_approval')).toBe(false);
  });
});

describe('OperatorTokensFileSchema', () => {
  it('accepts operators with roles and digests', () => {
    const file = OperatorTokensFileSchema.parse({
      operators: [
        { id: 'op-maria', name: 'Maria', role: 'approver', token_sha256: DIGEST_A },
        { id: 'op-viv', name: 'Viv', role: 'viewer', token_sha256: DIGEST_B, revoked: true },
      ],
    });
    expect(file.operators.map((entry) => entry.role)).toEqual(['approver', 'viewer']);
  });

  it('refuses duplicate ids, shared tokens, unknown roles and plain tokens', () => {
    const result = OperatorTokensFileSchema.safeParse({
      operators: [
        { id: 'op-1', name: 'One', role: 'admin', token_sha256: DIGEST_A },
        { id: 'op-1', name: 'Two', role: 'viewer', token_sha256: DIGEST_A },
        { id: 'op-3', name: 'Three', role: 'root', token_sha256: DIGEST_B },
        { id: 'op-4', name: 'Four', role: 'viewer', token: 'secret' },
      ],
    });
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((issue) => issue.path.join('.')) ?? [];
    expect(paths).toEqual(expect.arrayContaining(['operators.2.role', 'operators.3.token_sha256', 'operators.3']));
    const custom = OperatorTokensFileSchema.safeParse({
      operators: [
        { id: 'op-1', name: 'One', role: 'admin', token_sha256: DIGEST_A },
        { id: 'op-1', name: 'Two', role: 'viewer', token_sha256: DIGEST_A },
      ],
    });
    expect(custom.error?.issues.map((issue) => issue.message)).toEqual(['operator id "op-1" appears twice', 'two operators share one token']);
  });
});

describe('ListRequestsQuerySchema', () => {
  it('parses query strings, with a default limit', () => {
    expect(ListRequestsQuerySchema.parse({})).toEqual({ limit: 100 });
    expect(ListRequestsQuerySchema.parse({ status: 'pending', type: 'plan_approval', team: 'red', agent: 'alice', target: 'operators', limit: '5' })).toEqual({
      status: 'pending',
      type: 'plan_approval',
      team: 'red',
      agent: 'alice',
      target: 'operators',
      limit: 5,
    });
  });

  it('refuses unknown parameters, repeated ones and limits out of range', () => {
    expect(ListRequestsQuerySchema.safeParse({ stauts: 'pending' }).success).toBe(false);
    expect(ListRequestsQuerySchema.safeParse({ status: ['pending', 'approved'] }).success).toBe(false);
    expect(ListRequestsQuerySchema.safeParse({ status: 'waiting' }).success).toBe(false);
    expect(ListRequestsQuerySchema.safeParse({ limit: '0' }).success).toBe(false);
    expect(ListRequestsQuerySchema.safeParse({ limit: '501' }).success).toBe(false);
    expect(ListRequestsQuerySchema.safeParse({ limit: '1e2' }).success).toBe(false);
  });
});

describe('RequestDecisionBodySchema', () => {
  it('takes a yes or no with optional feedback', () => {
    expect(RequestDecisionBodySchema.parse({ approve: false, feedback: 'split step 2' })).toEqual({ approve: false, feedback: 'split step 2' });
  });

  it('refuses a rejection that modifies the input, missing approve and unknown keys', () => {
    expect(RequestDecisionBodySchema.safeParse({ approve: false, modified_input: { a: 1 } }).error?.issues[0]?.path).toEqual(['modified_input']);
    expect(RequestDecisionBodySchema.safeParse({ feedback: 'ok' }).success).toBe(false);
    expect(RequestDecisionBodySchema.safeParse({ approve: true, decided_by: 'someone-else' }).success).toBe(false);
  });
});

describe('response entries', () => {
  it('parse a history entry and a timeline entry', () => {
    expect(
      RequestHistoryEntrySchema.parse({ at: '2026-02-09T10:02:30Z', actor: { kind: 'operator', id: 'op-maria' }, event: 'approved', status: 'approved' }),
    ).toMatchObject({ actor: { kind: 'operator' } });
    expect(
      TimelineEntrySchema.parse({
        id: '1707472800000-0',
        agent_id: 'alice',
        recorded_at: '2026-02-09T10:00:00Z',
        event: { kind: 'control_signal', control_signal: { control: 'step_done', format: 'structured' } },
      }).event.kind,
    ).toBe('control_signal');
  });
});

describe('EnforcementResetBodySchema', () => {
  it('takes the parts to reset, each once, or none for all; nothing else', () => {
    expect(EnforcementResetBodySchema.parse({})).toEqual({});
    expect(EnforcementResetBodySchema.parse({ parts: ['hold', 'breakers'] })).toEqual({ parts: ['hold', 'breakers'] });
    for (const body of [{ parts: [] }, { parts: ['hold', 'hold'] }, { parts: ['everything'] }, { parts: 'hold' }, { all: true }]) {
      expect(EnforcementResetBodySchema.safeParse(body).success, JSON.stringify(body)).toBe(false);
    }
  });
});
