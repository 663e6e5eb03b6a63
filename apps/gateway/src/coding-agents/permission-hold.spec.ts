/**
 * PermissionHold with a request store and a live feed played by the test: when a held prompt asks
 * again, what it answers when nobody decides, and what it records on the request.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { aggregateSignals, type HookDecision, type OperatorLiveEvent, type PromptFallback, type ProtocolState, type Signal } from '@ahp/protocol';
import type { RequestStore } from '@ahp/store';
import { describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { LiveFeedService, LiveSubscriber } from '../fleet/live-feed.service.js';
import { DrainState } from '../lifecycle/drain-state.js';
import { JsonLogger } from '../logging/json-logger.js';
import { MAX_HELD_PER_AGENT, PermissionHold, RESEND_HEADER, WAIT_HEADER, holdOptionsOf } from './permission-hold.js';

const HOOK_ID = randomUUID();
const REQUEST = `req_tool_${HOOK_ID}`;
const NOW = '2026-01-01T00:00:00.000Z';

function waitingDecision(fallback?: PromptFallback): HookDecision {
  const signal: Signal = {
    header: { id: randomUUID(), type: 'approval-required', timestamp: NOW, source: 'deploys', intensity: 'block', correlation_id: HOOK_ID },
    context: { approval: { request_id: REQUEST, status: 'pending', deadline: NOW, on_expiry: 'reject', ...(fallback === undefined ? {} : { prompt_fallback: fallback }) } },
    payload: {
      level: 'blocking',
      decision: 'deny',
      reason: 'a deploy needs an operator',
      resolvable: true,
      resolution_path: [],
      resolution: { kind: 'await_approval', request_id: REQUEST, deadline: NOW },
    },
  };
  return aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: [signal], now: NOW });
}

const approvedDecision = aggregateSignals({ hookId: randomUUID(), trigger: 'pre-tool-use', signals: [], now: NOW });

function pendingState(status: ProtocolState['status'] = 'pending'): ProtocolState {
  const base = {
    request_id: REQUEST,
    sender: 'claude-dev',
    target: { kind: 'operators' as const },
    created_at: NOW,
    updated_at: NOW,
    type: 'tool_approval' as const,
    payload: { tool: 'Bash', input: { command: 'deploy' }, input_digest: 'a'.repeat(64) },
  };
  return status === 'pending' ? { ...base, status } : { ...base, status, decided_at: NOW, decided_by: 'op-1' };
}

/** The hold with its fakes: the request's status is `status.value`; `feed` sends live events. */
function setUp(options: { waitMs?: number } = {}) {
  const status = { value: 'pending' as ProtocolState['status'] };
  const notes: { requestId: string; feedback: string }[] = [];
  const subscribers: LiveSubscriber[] = [];
  let reads = 0;
  const requests = {
    get: async (requestId: string) => {
      reads++;
      return requestId === REQUEST ? { state: pendingState(status.value), history: [] } : null;
    },
    recordPromptFallback: async (requestId: string, feedback: string) => {
      notes.push({ requestId, feedback });
      return true;
    },
  } as unknown as RequestStore;
  const live = {
    subscribe: (subscriber: LiveSubscriber) => {
      subscribers.push(subscriber);
      return () => undefined;
    },
  } as unknown as LiveFeedService;
  const drain = new DrainState();
  const config = { permissionWaitMs: options.waitMs ?? 30_000, claudeCodeDeadlineMs: 8000 } as GatewayConfig;
  const hold = new PermissionHold(requests, live, drain, config, new JsonLogger({ level: 'error', write: () => undefined }));
  hold.onModuleInit();
  const feed = (events: OperatorLiveEvent[]) => subscribers.forEach((subscriber) => subscriber(events));
  return { hold, status, notes, feed, drain, reads: () => reads };
}

function prompt(until: number, asked: string[], signal?: AbortSignal) {
  return {
    label: 'Claude Code',
    agentId: 'claude-dev',
    until,
    signal,
    evaluateWith: async (requestId: string) => {
      asked.push(requestId);
      return approvedDecision;
    },
  };
}

describe('PermissionHold', () => {
  it('answers a decision that waits for nobody as it is, and holds nothing when AHP_PERMISSION_WAIT_MS is 0', async () => {
    const { hold } = setUp();
    const asked: string[] = [];
    expect(await hold.hold(prompt(Date.now() + 10_000, asked), approvedDecision)).toEqual({ kind: 'decided', decision: approvedDecision });
    const off = setUp({ waitMs: 0 }).hold;
    const waiting = waitingDecision();
    expect(await off.hold(prompt(Date.now() + 10_000, asked), waiting)).toEqual({ kind: 'decided', decision: waiting });
    expect(asked).toEqual([]);
  });

  it('wakes on the live feed when the request is decided (on any gateway) and asks again presenting it', async () => {
    const { hold, status, feed } = setUp();
    const asked: string[] = [];
    const held = hold.hold(prompt(Date.now() + 20_000, asked), waitingDecision());
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hold.heldCount).toBe(1);
    status.value = 'approved';
    feed([{ kind: 'request', request_id: REQUEST, type: 'tool_approval', event: 'approved', status: 'approved', actor: { kind: 'operator', id: 'op-1' }, at: NOW }]);
    expect(await held).toEqual({ kind: 'decided', decision: approvedDecision });
    expect(asked).toEqual([REQUEST]);
    expect(hold.heldCount).toBe(0);
  });

  it('finds the decision by reading the request when the feed says nothing', async () => {
    const { hold, status, reads } = setUp();
    const asked: string[] = [];
    const held = hold.hold(prompt(Date.now() + 20_000, asked), waitingDecision());
    status.value = 'rejected';
    expect((await held).kind).toBe('decided');
    expect(asked).toEqual([REQUEST]);
    expect(reads()).toBeGreaterThanOrEqual(2);
  });

  it('falls back as the rule says when nobody decides in time, and records it on the request', async () => {
    const { hold, notes } = setUp();
    const asked: string[] = [];
    const dialog = await hold.hold(prompt(Date.now() + 700, asked), waitingDecision());
    expect(dialog).toMatchObject({ kind: 'fallback', fallback: 'dialog', reason: expect.stringContaining('Claude Code asks you instead') as unknown });
    const deny = await hold.hold(prompt(Date.now() + 700, asked), waitingDecision('deny'));
    expect(deny).toMatchObject({ kind: 'fallback', fallback: 'deny', reason: expect.stringContaining('so the call is denied') as unknown });
    expect(asked).toEqual([]);
    expect(notes).toEqual([
      { requestId: REQUEST, feedback: expect.stringMatching(/^Claude Code's permission prompt stopped waiting \(no operator decided within .*\); the decision was left to Claude Code's own permission prompt\./) as unknown },
      { requestId: REQUEST, feedback: expect.stringContaining('the call was denied') as unknown },
    ]);
  });

  it('stops waiting when the agent goes away or the gateway drains, recording why', async () => {
    const { hold, notes, drain } = setUp();
    const gone = new AbortController();
    const held = hold.hold(prompt(Date.now() + 20_000, [], gone.signal), waitingDecision());
    gone.abort();
    expect(await held).toMatchObject({ kind: 'fallback', reason: expect.stringContaining('Claude Code stopped waiting') as unknown });
    drain.start();
    expect(await hold.hold(prompt(Date.now() + 20_000, []), waitingDecision())).toMatchObject({ kind: 'fallback', reason: expect.stringContaining('the gateway holding it shut down') as unknown });
    expect(notes).toHaveLength(2);
    // A hook that sends the prompt again elsewhere (ahp hook) is handed back, with nothing recorded.
    expect(await hold.hold({ ...prompt(Date.now() + 20_000, []), resends: true }, waitingDecision())).toEqual({ kind: 'resend' });
    expect(notes).toHaveLength(2);
  });

  it('holds at most MAX_HELD_PER_AGENT prompts of one agent; the next is answered at once with its wait', async () => {
    const { hold, status, feed } = setUp();
    const asked: string[] = [];
    const held = Array.from({ length: MAX_HELD_PER_AGENT }, () => hold.hold(prompt(Date.now() + 20_000, asked), waitingDecision()));
    const waiting = waitingDecision();
    expect(await hold.hold(prompt(Date.now() + 20_000, asked), waiting)).toEqual({ kind: 'decided', decision: waiting });
    status.value = 'approved';
    feed([{ kind: 'request', request_id: REQUEST, type: 'tool_approval', event: 'approved', status: 'approved', actor: { kind: 'operator', id: 'op-1' }, at: NOW }]);
    expect((await Promise.all(held)).every((result) => result.kind === 'decided')).toBe(true);
    expect(asked).toHaveLength(MAX_HELD_PER_AGENT);
  });

  it('holds at most AHP_PERMISSION_WAIT_MS from arrival, less when the hook asks for less', () => {
    const { hold } = setUp({ waitMs: 30_000 });
    expect(hold.deadlineOf(1000, undefined)).toBe(31_000);
    expect(hold.deadlineOf(1000, '5000')).toBe(6000);
    expect(hold.deadlineOf(1000, '90000')).toBe(31_000);
    expect(hold.deadlineOf(1000, 'soon')).toBe(31_000);
  });

  it('reads the wait a hook asks for from its header, and aborts when the client goes away before its answer', () => {
    const response = new EventEmitter() as EventEmitter & { writableEnded: boolean };
    response.writableEnded = false;
    const options = holdOptionsOf({ headers: { [WAIT_HEADER]: '5000', [RESEND_HEADER]: '1' } } as unknown as IncomingMessage, response as unknown as ServerResponse);
    expect(options.waitHeader).toBe('5000');
    expect(options.resends).toBe(true);
    expect(options.signal.aborted).toBe(false);
    response.emit('close');
    expect(options.signal.aborted).toBe(true);
  });
});
