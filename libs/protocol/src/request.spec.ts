import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SEED_PLAN, SEED_SHUTDOWN_STATE } from '../test/fixtures/domain-seeds.js';
import {
  PlanApprovalPayloadSchema,
  ProtocolResponseSchema,
  ProtocolStateSchema,
  RequestIdSchema,
  RequestStatusSchema,
  RequestTargetSchema,
  ShutdownRequestPayloadSchema,
  ToolApprovalPayloadSchema,
  applyResponse,
  cancelRequest,
  createRequest,
  expireRequest,
  isTerminalStatus,
  requestTypeFor,
  responseTypeFor,
  type ProtocolResponse,
  type ProtocolState,
} from './request.js';

function issues(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  expect(result.success).toBe(false);
  return result.error?.issues ?? [];
}

const T0 = '2026-02-09T10:00:00Z';
const T1 = '2026-02-09T10:01:00Z';
const T2 = '2026-02-09T10:02:00Z';
const DEADLINE = '2026-02-09T10:05:00Z';
const AFTER = '2026-02-09T10:06:00Z';
const DIGEST = 'a'.repeat(64);

const shutdown = (): ProtocolState => ProtocolStateSchema.parse(SEED_SHUTDOWN_STATE);

function toolRequest(deadline?: string): ProtocolState {
  return createRequest({
    requestId: 'req_tool1',
    type: 'tool_approval',
    sender: 'alice',
    target: { kind: 'operators' },
    payload: { tool: 'bash', input: { command: 'rm -rf build' }, input_digest: DIGEST },
    now: T0,
    ...(deadline === undefined ? {} : { deadline }),
  });
}

function respond(patch: Partial<ProtocolResponse> = {}): ProtocolResponse {
  return { request_id: 'req_042871', type: 'shutdown_response', approve: true, ...patch };
}

describe('ids, types, statuses, targets', () => {
  it('request ids are req_ + id characters', () => {
    expect(RequestIdSchema.parse('req_042871')).toBe('req_042871');
    expect(RequestIdSchema.parse('req_01J5ZK:x-1.2')).toBe('req_01J5ZK:x-1.2');
    for (const bad of ['042871', 'req_', 'REQ_1', 'req_ 1', 'req_1/2', `req_${'x'.repeat(125)}`]) {
      expect(RequestIdSchema.safeParse(bad).success, bad).toBe(false);
    }
    expect(RequestIdSchema.safeParse('42').error?.issues[0]?.message).toContain('req_');
  });

  it('each request type has exactly one response type, both ways', () => {
    expect(responseTypeFor('shutdown')).toBe('shutdown_response');
    expect(responseTypeFor('plan_approval')).toBe('plan_approval_response');
    expect(responseTypeFor('tool_approval')).toBe('tool_approval_response');
    for (const t of ['shutdown', 'plan_approval', 'tool_approval'] as const) expect(requestTypeFor(responseTypeFor(t))).toBe(t);
  });

  it('only pending is not terminal', () => {
    expect(RequestStatusSchema.options.filter((s) => !isTerminalStatus(s))).toEqual(['pending']);
  });

  it('targets are an agent or the operators', () => {
    expect(RequestTargetSchema.parse({ kind: 'agent', agent: 'alice' })).toEqual({ kind: 'agent', agent: 'alice' });
    expect(RequestTargetSchema.parse({ kind: 'operators' })).toEqual({ kind: 'operators' });
    expect(issues(RequestTargetSchema, { kind: 'operators', agent: 'alice' })[0]).toMatchObject({ code: 'unrecognized_keys' });
    expect(issues(RequestTargetSchema, { kind: 'team' })[0]).toMatchObject({ code: 'invalid_union', path: ['kind'] });
  });
});

describe('payloads', () => {
  it('shutdown: optional reason only', () => {
    expect(ShutdownRequestPayloadSchema.parse({})).toEqual({});
    expect(ShutdownRequestPayloadSchema.parse({ reason: '任务完成' })).toEqual({ reason: '任务完成' });
    expect(issues(ShutdownRequestPayloadSchema, { reason: 1 })[0]).toMatchObject({ path: ['reason'] });
  });

  it('plan approval: the design example plan (SEED_PLAN) parses, an invalid plan is reported inside the payload', () => {
    expect(PlanApprovalPayloadSchema.parse({ plan: SEED_PLAN })).toEqual({ plan: SEED_PLAN });
    const cyclic = { ...SEED_PLAN, steps: [{ ...SEED_PLAN.steps[0], dependencies: ['step_2'] }, SEED_PLAN.steps[1]] };
    expect(issues(PlanApprovalPayloadSchema, { plan: cyclic })[0]).toMatchObject({
      path: ['plan', 'steps', 0, 'dependencies'],
      message: 'dependency cycle: step_1 → step_2 → step_1',
    });
    expect(issues(PlanApprovalPayloadSchema, { plan: '1. read 2. patch' })[0]).toMatchObject({ code: 'invalid_type', path: ['plan'] });
  });

  it('tool approval: the digest must be 64 lowercase hex characters', () => {
    const payload = { tool: 'bash', input: { command: 'ls' }, input_digest: DIGEST };
    expect(ToolApprovalPayloadSchema.parse(payload)).toEqual(payload);
    for (const bad of ['A'.repeat(64), 'a'.repeat(63), `sha256:${'a'.repeat(64)}`]) {
      expect(issues(ToolApprovalPayloadSchema, { ...payload, input_digest: bad })[0]).toMatchObject({ path: ['input_digest'] });
    }
    const polluted = JSON.parse('{"command":"ls","__proto__":{"admin":true}}');
    expect(issues(ToolApprovalPayloadSchema, { ...payload, input: polluted })[0]).toMatchObject({ path: ['input', '__proto__'] });
  });
});

describe('ProtocolStateSchema', () => {
  it('parses the design example shutdown request for alice (docs/spec/teams.md#shutdown)', () => {
    expect(shutdown()).toEqual(SEED_SHUTDOWN_STATE);
  });

  it('ties the payload to the type', () => {
    const [issue] = issues(ProtocolStateSchema, { ...SEED_SHUTDOWN_STATE, payload: { plan: SEED_PLAN } });
    expect(issue).toMatchObject({ code: 'unrecognized_keys', path: ['payload'], keys: ['plan'] });
    expect(issues(ProtocolStateSchema, { ...SEED_SHUTDOWN_STATE, type: 'plan_approval' })[0]).toMatchObject({
      path: ['payload', 'plan'],
    });
    expect(issues(ProtocolStateSchema, { ...SEED_SHUTDOWN_STATE, type: 'deploy' })[0]).toMatchObject({ code: 'invalid_union', path: ['type'] });
  });

  it('rejects a status outside the machine', () => {
    expect(issues(ProtocolStateSchema, { ...SEED_SHUTDOWN_STATE, status: 'done' })[0]).toMatchObject({
      code: 'invalid_value',
      path: ['status'],
    });
  });

  it('a pending request carries no decision', () => {
    expect(issues(ProtocolStateSchema, { ...SEED_SHUTDOWN_STATE, decided_by: 'lead' })[0]).toMatchObject({
      path: ['decided_by'],
      message: 'a pending request has no decided_by',
    });
  });

  it('a decided request records who and when; an expired one records no decider', () => {
    const found = issues(ProtocolStateSchema, { ...SEED_SHUTDOWN_STATE, status: 'approved' });
    expect(found.map((i) => i.path)).toEqual([['decided_at'], ['decided_by']]);
    expect(
      issues(ProtocolStateSchema, { ...SEED_SHUTDOWN_STATE, status: 'expired', decided_at: T1, decided_by: 'lead' })[0],
    ).toMatchObject({ path: ['decided_by'] });
    expect(ProtocolStateSchema.safeParse({ ...SEED_SHUTDOWN_STATE, status: 'expired', decided_at: T1 }).success).toBe(true);
  });

  it('only an approved tool approval carries modified_input', () => {
    const decided = { ...SEED_SHUTDOWN_STATE, status: 'approved', decided_by: 'alice', decided_at: T1, modified_input: { a: 1 } };
    expect(issues(ProtocolStateSchema, decided)[0]).toMatchObject({ path: ['modified_input'] });
  });

  it('rejects unknown keys and bad timestamps', () => {
    expect(issues(ProtocolStateSchema, { ...SEED_SHUTDOWN_STATE, priority: 1 })[0]).toMatchObject({ code: 'unrecognized_keys' });
    expect(issues(ProtocolStateSchema, { ...SEED_SHUTDOWN_STATE, created_at: 1739095200 })[0]).toMatchObject({ path: ['created_at'] });
  });
});

describe('ProtocolResponseSchema', () => {
  it('parses the design example shutdown response (docs/spec/teams.md#shutdown)', () => {
    const r = { request_id: 'req_042871', type: 'shutdown_response', approve: true };
    expect(ProtocolResponseSchema.parse(r)).toEqual(r);
  });

  it('allows modified_input only when approving a tool approval', () => {
    const edit = { request_id: 'req_t', type: 'tool_approval_response', approve: true, modified_input: { command: 'ls' } };
    expect(ProtocolResponseSchema.parse(edit)).toEqual(edit);
    expect(issues(ProtocolResponseSchema, { ...edit, approve: false })[0]).toMatchObject({
      path: ['modified_input'],
      message: 'a rejection cannot modify the input',
    });
    expect(issues(ProtocolResponseSchema, { ...edit, type: 'shutdown_response' })[0]).toMatchObject({ path: ['modified_input'] });
  });

  it('needs approve as a boolean', () => {
    expect(issues(ProtocolResponseSchema, { request_id: 'req_1', type: 'shutdown_response' })[0]).toMatchObject({
      code: 'invalid_type',
      path: ['approve'],
    });
  });
});

describe('createRequest', () => {
  it('creates a pending, valid state', () => {
    const state = toolRequest(DEADLINE);
    expect(state).toMatchObject({ request_id: 'req_tool1', status: 'pending', created_at: T0, updated_at: T0, deadline: DEADLINE });
    expect(ProtocolStateSchema.parse(state)).toEqual(state);
    expect(toolRequest()).not.toHaveProperty('deadline');
  });
});

describe('applyResponse', () => {
  it('docs/spec/teams.md#matching-responses: a shutdown_response approves the shutdown request', () => {
    const result = applyResponse(shutdown(), respond(), { decidedBy: 'alice', now: T1 });
    expect(result.outcome).toBe('applied');
    const state = result.outcome === 'applied' ? result.state : undefined;
    expect(state).toMatchObject({ status: 'approved', decided_by: 'alice', decided_at: T1, updated_at: T1, created_at: T0 });
    expect(ProtocolStateSchema.parse(state)).toEqual(state);
  });

  it('records a rejection with feedback', () => {
    const result = applyResponse(shutdown(), respond({ approve: false, feedback: '还在写测试' }), { decidedBy: 'alice', now: T1 });
    expect(result).toMatchObject({ outcome: 'applied', state: { status: 'rejected', feedback: '还在写测试' } });
  });

  it('docs/spec/teams.md#matching-responses: a shutdown request only accepts shutdown_response', () => {
    const result = applyResponse(shutdown(), respond({ type: 'plan_approval_response' }), { decidedBy: 'alice', now: T1 });
    expect(result).toEqual({ outcome: 'type_mismatch', expected: 'shutdown_response', received: 'plan_approval_response' });
  });

  it('refuses a response for another request', () => {
    const result = applyResponse(shutdown(), respond({ request_id: 'req_999999' }), { decidedBy: 'alice', now: T1 });
    expect(result).toEqual({ outcome: 'request_mismatch', expected: 'req_042871', received: 'req_999999' });
  });

  it('docs/spec/teams.md#matching-responses: the same decision again is idempotent', () => {
    const first = applyResponse(shutdown(), respond(), { decidedBy: 'alice', now: T1 });
    if (first.outcome !== 'applied') throw new Error('expected applied');
    const again = applyResponse(first.state, respond({ feedback: 'again' }), { decidedBy: 'bob', now: T2 });
    expect(again).toEqual({ outcome: 'already_decided', state: first.state });
  });

  it('a contrary decision after the fact is a conflict that shows who decided', () => {
    const first = applyResponse(shutdown(), respond(), { decidedBy: 'alice', now: T1 });
    if (first.outcome !== 'applied') throw new Error('expected applied');
    const late = applyResponse(first.state, respond({ approve: false }), { decidedBy: 'operator:bob', now: T2 });
    expect(late).toMatchObject({ outcome: 'conflict', state: { status: 'approved', decided_by: 'alice' } });
  });

  it('an expired or cancelled request is not pending', () => {
    const expired = { ...shutdown(), status: 'expired', decided_at: T1 } as ProtocolState;
    expect(applyResponse(expired, respond(), { decidedBy: 'alice', now: T2 })).toEqual({ outcome: 'not_pending', state: expired });
    const cancelled = { ...shutdown(), status: 'cancelled', decided_by: 'lead', decided_at: T1 } as ProtocolState;
    expect(applyResponse(cancelled, respond(), { decidedBy: 'alice', now: T2 }).outcome).toBe('not_pending');
  });

  it('a response after the deadline expires the request instead of deciding it', () => {
    const state = toolRequest(DEADLINE);
    const response: ProtocolResponse = { request_id: 'req_tool1', type: 'tool_approval_response', approve: true };
    const late = applyResponse(state, response, { decidedBy: 'operator:bob', now: AFTER });
    expect(late).toMatchObject({ outcome: 'expired', state: { status: 'expired', decided_at: AFTER } });
    expect(late.outcome === 'expired' && late.state).not.toHaveProperty('decided_by');
    expect(applyResponse(state, response, { decidedBy: 'operator:bob', now: T1 }).outcome).toBe('applied');
  });

  it('keeps modified_input of an approved tool approval, ignores it elsewhere', () => {
    const edit: ProtocolResponse = {
      request_id: 'req_tool1',
      type: 'tool_approval_response',
      approve: true,
      modified_input: { command: 'rm -rf build/tmp' },
    };
    const applied = applyResponse(toolRequest(), edit, { decidedBy: 'operator:bob', now: T1 });
    expect(applied).toMatchObject({ outcome: 'applied', state: { status: 'approved', modified_input: { command: 'rm -rf build/tmp' } } });
    expect(applied.outcome === 'applied' && ProtocolStateSchema.safeParse(applied.state).success).toBe(true);
    const rejected = applyResponse(toolRequest(), { ...edit, approve: false }, { decidedBy: 'operator:bob', now: T1 });
    expect(rejected.outcome === 'applied' && rejected.state).not.toHaveProperty('modified_input');
  });

  it('does not mutate its input', () => {
    const state = shutdown();
    const snapshot = structuredClone(state);
    applyResponse(state, respond(), { decidedBy: 'alice', now: T1 });
    expect(state).toEqual(snapshot);
  });
});

describe('expireRequest', () => {
  it('expires a pending request at or after its deadline, not before', () => {
    const state = toolRequest(DEADLINE);
    expect(expireRequest(state, T1)).toEqual({ outcome: 'not_due', state });
    expect(expireRequest(state, DEADLINE)).toMatchObject({ outcome: 'expired', state: { status: 'expired', decided_at: DEADLINE } });
    const expired = expireRequest(state, AFTER);
    expect(expired.outcome === 'expired' && ProtocolStateSchema.parse(expired.state).status).toBe('expired');
  });

  it('compares instants, not strings (time zone offsets)', () => {
    const state = toolRequest(DEADLINE);
    expect(expireRequest(state, '2026-02-09T18:04:00+08:00').outcome).toBe('not_due');
    expect(expireRequest(state, '2026-02-09T18:05:00+08:00').outcome).toBe('expired');
  });

  it('never expires a request without a deadline, nor a settled one', () => {
    expect(expireRequest(toolRequest(), AFTER).outcome).toBe('not_due');
    const approved = applyResponse(shutdown(), respond(), { decidedBy: 'alice', now: T1 });
    if (approved.outcome !== 'applied') throw new Error('expected applied');
    expect(expireRequest({ ...approved.state, deadline: T1 }, AFTER).outcome).toBe('not_pending');
  });
});

describe('cancelRequest', () => {
  it('lets the sender withdraw a pending request', () => {
    const result = cancelRequest(shutdown(), 'lead', T1);
    expect(result).toMatchObject({ outcome: 'cancelled', state: { status: 'cancelled', decided_by: 'lead', decided_at: T1 } });
    expect(result.outcome === 'cancelled' && ProtocolStateSchema.safeParse(result.state).success).toBe(true);
  });

  it('forbids anyone else, and refuses once settled', () => {
    expect(cancelRequest(shutdown(), 'alice', T1).outcome).toBe('forbidden');
    const cancelled = cancelRequest(shutdown(), 'lead', T1);
    if (cancelled.outcome !== 'cancelled') throw new Error('expected cancelled');
    expect(cancelRequest(cancelled.state, 'lead', T2)).toEqual({ outcome: 'not_pending', state: cancelled.state });
  });
});

describe('intervention requests', () => {
  const at = '2026-11-22T10:00:00.000Z';
  const open = () =>
    createRequest({
      requestId: 'req_help_1',
      type: 'intervention',
      sender: 'alice',
      target: { kind: 'operators' },
      now: at,
      payload: { reason: 'MAX_ITER', summary: 'stopped after 21 iterations on step s2', iteration: 21, plan_step: 's2' },
    });

  it('is answered only by an intervention_response', () => {
    expect(ProtocolStateSchema.parse(open()).type).toBe('intervention');
    expect(responseTypeFor('intervention')).toBe('intervention_response');
    expect(requestTypeFor('intervention_response')).toBe('intervention');
  });

  it('needs a reason and a summary, and refuses unknown payload fields', () => {
    const state = open();
    expect(ProtocolStateSchema.safeParse({ ...state, payload: { reason: 'MAX_ITER' } }).success).toBe(false);
    expect(ProtocolStateSchema.safeParse({ ...state, payload: { ...state.payload, extra: 1 } }).success).toBe(false);
  });
});
