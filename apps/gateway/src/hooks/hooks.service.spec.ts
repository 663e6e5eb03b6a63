import { type HookDecision } from '@ahp/protocol';
import { StoreInputError, type HookQueue, type HookStore } from '@ahp/store';
import { JsonLogger } from '@ahp/telemetry';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../config/gateway-config.js';
import { GatewayEvents } from '../events/gateway-events.js';
import { DrainState } from '../lifecycle/drain-state.js';
import type { RateLimitsService } from '../rate-limit/rate-limits.service.js';
import type { SessionOpener } from '../sessions/session-opener.js';
import type { HookTracing } from './hook-tracing.js';
import { HooksService } from './hooks.service.js';
import type { PlanGateService } from './plan-gate.js';

/**
 * A hook whose job cannot be queued, on the HTTP path (Claude Code's), with stores played in
 * memory: the trigger's failure policy answers when the queue is the trouble, but a job the queue
 * refuses (a context it does not carry) is decided closed, even where the policy is fail_open.
 */
const started: HooksService[] = [];
afterEach(() => {
  for (const service of started.splice(0)) service.stop();
});

function serviceWith(enqueueError: Error): HooksService {
  const stored = new Map<string, HookDecision>();
  const hooks = {
    open: async ({ deadlineAt }: { deadlineAt: number }) => ({ kind: 'created', leased: 0, correlation: { deadline_at: deadlineAt } }),
    decide: async (hookId: string, decision: HookDecision) => {
      const first = stored.get(hookId) ?? decision;
      stored.set(hookId, first);
      return { decision: first, first: first === decision };
    },
  } as unknown as HookStore;
  const queue = {
    enqueue: async () => {
      throw enqueueError;
    },
  } as unknown as HookQueue;
  const config = { gatewayId: 'gw-spec', hookDeadlineMs: 60_000, hookDeadlines: {}, failurePolicies: {} } as unknown as GatewayConfig;
  const planGate = { gateFor: () => undefined } as unknown as PlanGateService;
  const tracing = { enqueue: (_hook: unknown, _at: number, run: () => Promise<void>) => run(), delivered: () => undefined } as unknown as HookTracing;
  const service = new HooksService(
    hooks,
    queue,
    {} as SessionOpener,
    config,
    new JsonLogger({ level: 'error', write: () => undefined }),
    new DrainState(),
    new GatewayEvents(),
    {} as RateLimitsService,
    planGate,
    tracing,
  );
  started.push(service);
  return service;
}

const POST = { agent: { id: 'a1', name: 'A1' }, sessionId: 's1', trigger: 'post-tool-use' as const, context: { tool: { name: 'Bash', input: { command: 'ls' }, output: 'x' } }, deadlineMs: 60_000 };

describe('HooksService: a hook whose job cannot be queued', () => {
  it('a queue that is down: the failure policy answers (post-tool-use fails open)', async () => {
    const decision = await serviceWith(new Error('connection lost')).evaluate(POST);
    expect(decision).toMatchObject({ allowed: true, decided_by: 'failure_policy', error: { code: 'E_UNAVAILABLE' } });
  });

  it('a job the queue refuses: decided closed whatever the policy, never let by unseen', async () => {
    const decision = await serviceWith(new StoreInputError('invalid hook job: context.tool.output: string longer than 262144 characters')).evaluate(POST);
    expect(decision).toMatchObject({ allowed: false, intensity: 'block', decided_by: 'failure_policy', error: { code: 'E_INVALID_CONTEXT' } });
    expect(decision.error?.message).toContain('could not be queued for evaluation');
  });
});
