import { describe, expect, it } from 'vitest';
import { BlockingDecisionSchema } from './decision.js';
import { aggregateSignals } from './hook-decision.js';
import { HooksConfigSchema } from './hooks-config.js';
import { RequestDecisionBodySchema } from './operator.js';
import { ToolApprovalPayloadSchema } from './request.js';
import type { Signal } from './signal.js';
import {
  ToolGrantSchema,
  approvalRequirementOf,
  awaitingApproval,
  grantCovers,
  presentedApproval,
  toolApprovalRequestId,
  type ToolGrant,
} from './tool-approval.js';

const HOOK_ID = '0b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b';
const DIGEST = 'a'.repeat(64);
const NOW = '2025-01-02T03:04:05.000Z';

function config(trigger: string, rule: Record<string, unknown>): unknown {
  return { hooks: { [trigger]: { oracles: [{ name: 'approvals', rules: [rule] }] } } };
}

function problems(input: unknown): { path: string; message: string }[] {
  const result = HooksConfigSchema.safeParse(input);
  if (result.success) return [];
  return result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

const AT = 'hooks.pre-tool-use.oracles.0.rules.0';

describe('require_approval in HooksConfigSchema', () => {
  it('accepts an approval rule at pre-tool-use with defaults or with every option', () => {
    expect(problems(config('pre-tool-use', { condition: 'true', require_approval: {} }))).toEqual([]);
    const full = {
      id: 'destructive-shell',
      condition: 'tool.name == "bash"',
      type: 'destructive-command',
      params: { pattern: 'rm -rf' },
      require_approval: { deadline: '15m', on_expiry: 'approve', message: 'approve {{ tool.input.command }}' },
      overrides: [{ when: 'env == "production"', condition: 'true', params: { pattern: '.' } }],
    };
    expect(problems(config('pre-tool-use', full))).toEqual([]);
  });

  it('refuses require_approval outside pre-tool-use', () => {
    expect(problems(config('pre-issue-submit', { condition: 'true', require_approval: {} }))).toEqual([
      { path: 'hooks.pre-issue-submit.oracles.0.rules.0.require_approval', message: expect.stringContaining('only for pre-tool-use rules') },
    ]);
  });

  it('refuses an intensity, an escalation and signal fields on an approval rule, each at its field', () => {
    const found = problems(
      config('pre-tool-use', {
        condition: 'true',
        require_approval: {},
        intensity: 'block',
        message: 'why',
        resolution_path: ['x'],
      }),
    );
    expect(found).toEqual([
      { path: `${AT}.intensity`, message: expect.stringContaining('no intensity of its own') },
      { path: `${AT}.message`, message: 'the text of an approval rule is require_approval.message' },
      { path: `${AT}.resolution_path`, message: '"resolution_path" does not apply to a rule with require_approval' },
    ]);
    expect(problems(config('pre-tool-use', { condition: 'true', require_approval: {}, escalation: ['control', 'block'] }))).toEqual([
      { path: `${AT}.escalation`, message: expect.stringContaining('no intensity of its own') },
    ]);
  });

  it('lets overrides of an approval rule change only condition and params', () => {
    const found = problems(config('pre-tool-use', { condition: 'true', require_approval: {}, overrides: [{ when: 'true', intensity: 'block' }] }));
    expect(found).toEqual([{ path: `${AT}.overrides.0.intensity`, message: 'an override of a rule with require_approval may change only "condition" and "params"' }]);
  });

  it('checks the options themselves', () => {
    expect(problems(config('pre-tool-use', { condition: 'true', require_approval: { on_expiry: 'maybe' } }))[0]?.path).toBe(`${AT}.require_approval.on_expiry`);
    expect(problems(config('pre-tool-use', { condition: 'true', require_approval: { deadline: 'soon' } }))[0]?.path).toBe(`${AT}.require_approval.deadline`);
    expect(problems(config('pre-tool-use', { condition: 'true', require_approval: { ask: 'me' } }))[0]?.path).toBe(`${AT}.require_approval`);
  });
});

function signal(payload: Signal['payload'], context: Signal['context'] = {}): Signal {
  return {
    header: { id: '00000000-0000-4000-8000-000000000001', type: 'approval-required', timestamp: NOW, source: 'approvals', intensity: 'block' },
    context,
    payload,
  };
}

describe('the approval resolution of a block', () => {
  const awaiting = {
    level: 'blocking' as const,
    decision: 'deny' as const,
    reason: 'waiting for approval',
    resolvable: true,
    resolution_path: ['wait'],
    resolution: { kind: 'await_approval' as const, request_id: toolApprovalRequestId(HOOK_ID), deadline: NOW },
  };

  it('is part of the blocking decision, and only known kinds parse', () => {
    expect(BlockingDecisionSchema.safeParse(awaiting).success).toBe(true);
    expect(BlockingDecisionSchema.safeParse({ ...awaiting, resolution: { kind: 'retry_later' } }).success).toBe(false);
    expect(BlockingDecisionSchema.safeParse({ ...awaiting, resolution: { ...awaiting.resolution, request_id: 'nope' } }).success).toBe(false);
  });

  it('is found by awaitingApproval in a decision, and nothing is found in a plain block', () => {
    const waiting = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: [signal(awaiting)], now: NOW });
    expect(awaitingApproval(waiting)).toMatchObject({ request_id: `req_tool_${HOOK_ID}`, deadline: NOW });
    const { resolution: _r, ...plain } = awaiting;
    expect(awaitingApproval(aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: [signal(plain)], now: NOW }))).toBeUndefined();
  });

  it('reads the requirement a rule put in a signal context, and only from a block', () => {
    const { resolution: _r, ...plain } = awaiting;
    expect(approvalRequirementOf(signal(plain, { approval: { deadline_ms: 1000, on_expiry: 'reject' } }))).toEqual({ deadline_ms: 1000, on_expiry: 'reject' });
    expect(approvalRequirementOf(signal(plain, { approval: { deadline_ms: -1, on_expiry: 'reject' } }))).toBeUndefined();
    expect(approvalRequirementOf(signal(plain))).toBeUndefined();
  });
});

describe('presented approvals and request ids', () => {
  it('derives the request id from the hook id, as a valid request id', () => {
    expect(toolApprovalRequestId(HOOK_ID)).toBe(`req_tool_${HOOK_ID}`);
    expect(ToolApprovalPayloadSchema.safeParse({ tool: 'bash', input: {}, input_digest: DIGEST, session_id: 's1', on_expiry: 'reject', reason: 'r', rule: 'x' }).success).toBe(
      true,
    );
  });

  it('reads context.approval.request_id, ignoring anything malformed', () => {
    expect(presentedApproval({ approval: { request_id: 'req_1' } })).toBe('req_1');
    expect(presentedApproval({ approval: { request_id: 'x' } })).toBeUndefined();
    expect(presentedApproval({ approval: 'req_1' })).toBeUndefined();
    expect(presentedApproval({})).toBeUndefined();
  });
});

describe('decision scope and grants', () => {
  it('accepts a session scope only on an approval', () => {
    expect(RequestDecisionBodySchema.safeParse({ approve: true, scope: 'session' }).success).toBe(true);
    expect(RequestDecisionBodySchema.safeParse({ approve: true, scope: 'session_tool' }).success).toBe(true);
    expect(RequestDecisionBodySchema.safeParse({ approve: false, scope: 'once' }).success).toBe(true);
    const refused = RequestDecisionBodySchema.safeParse({ approve: false, scope: 'session' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.path).toEqual(['scope']);
  });

  const grant: ToolGrant = {
    grant_id: `grant_${'b'.repeat(32)}`,
    agent: 'a1',
    session_id: 's1',
    tool: 'bash',
    scope: 'session',
    input_digest: DIGEST,
    request_id: 'req_1',
    rules: ['pre-tool-use/guard/a', 'pre-tool-use/guard/b'],
    granted_by: 'op-1',
    granted_at: NOW,
    expires_at: '2025-01-02T04:04:05.000Z',
  };
  const call = { agent: 'a1', session_id: 's1', tool: 'bash', input_digest: DIGEST, rules: ['pre-tool-use/guard/a'] };

  it('checks the input pattern against the scope, and both revocation fields together', () => {
    expect(ToolGrantSchema.safeParse(grant).success).toBe(true);
    expect(ToolGrantSchema.safeParse({ ...grant, input_digest: undefined }).success).toBe(false);
    expect(ToolGrantSchema.safeParse({ ...grant, scope: 'session_tool' }).success).toBe(false);
    expect(ToolGrantSchema.safeParse({ ...grant, revoked_by: 'op-2' }).success).toBe(false);
  });

  it('covers exactly its agent, session, tool and input until it expires or is revoked', () => {
    expect(grantCovers(grant, call, NOW)).toBe(true);
    expect(grantCovers(grant, { ...call, input_digest: 'c'.repeat(64) }, NOW)).toBe(false);
    expect(grantCovers(grant, { ...call, agent: 'a2' }, NOW)).toBe(false);
    expect(grantCovers(grant, { ...call, session_id: 's2' }, NOW)).toBe(false);
    expect(grantCovers(grant, { ...call, tool: 'edit' }, NOW)).toBe(false);
    expect(grantCovers(grant, call, grant.expires_at)).toBe(false);
    expect(grantCovers({ ...grant, revoked_by: 'op-2', revoked_at: NOW }, call, NOW)).toBe(false);
    const anyInput: ToolGrant = { ...grant, scope: 'session_tool', input_digest: undefined };
    expect(grantCovers(anyInput, { ...call, input_digest: 'c'.repeat(64) }, NOW)).toBe(true);
  });

  it('covers only calls the rules it was given for ask about', () => {
    expect(grantCovers(grant, { ...call, rules: ['pre-tool-use/guard/b', 'pre-tool-use/guard/a'] }, NOW)).toBe(true);
    expect(grantCovers(grant, { ...call, rules: ['pre-tool-use/guard/a', 'pre-tool-use/guard/strict'] }, NOW)).toBe(false);
    expect(grantCovers(grant, { ...call, rules: ['pre-tool-use/guard/strict'] }, NOW)).toBe(false);
    const { rules: _rules, ...unnamed } = grant;
    expect(grantCovers(unnamed, call, NOW)).toBe(false);
  });
});
