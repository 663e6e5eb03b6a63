/**
 * A gateway (in-process) over a private Redis that the test stops and starts again: while Redis
 * is down, operator API calls answer a retryable 503 `E_UNAVAILABLE` with `Retry-After` (and
 * change nothing: the refused decision is not applied when Redis returns), new live feed streams
 * are refused the same way, /readyz says 503, and the Claude Code route answers by the failure policy — an explicit
 * deny for PreToolUse, never an HTTP error Claude Code would read as "go ahead"; once Redis is
 * back, the same operator calls succeed.
 */
import { provideRedis, type RedisHandle } from '@ahp/embedded-redis';
import { randomUUID } from 'node:crypto';
import { OperatorErrorBodySchema, RequestDetailResponseSchema, type Plan } from '@ahp/protocol';
import { connectReady } from './support/agent-client.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken, startTestGateway, type TestAgentEntry, type TestGateway, type TestOperatorEntry } from './support/test-gateway.js';

const AGENTS: TestAgentEntry[] = [{ id: 'alice', name: 'Alice', token: newToken(), team: 'red', role: 'lead' }];
const OPERATORS: TestOperatorEntry[] = [{ id: 'op-root', name: 'Root', role: 'admin', token: newToken() }];

let redis: RedisHandle;
let gw: TestGateway;

beforeAll(async () => {
  redis = await provideRedis({ mode: 'ephemeral' });
  gw = await startTestGateway({ name: 'redis-outage', agents: AGENTS, operators: OPERATORS, env: { REDIS_URL: redis.url } });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await redis?.stop();
});

const PLAN: Plan = { title: 'Index orders', steps: [{ id: 's1', description: 'add the index', dependencies: [], status: 'pending', tools_expected: ['db.migrate'] }] };
const REQUEST_ID = `req_${randomUUID()}`;

const OPERATOR_CALLS: readonly { method: 'GET' | 'POST'; path: string; body?: unknown }[] = [
  { method: 'GET', path: '/v1/operator/requests' },
  { method: 'GET', path: `/v1/operator/requests/${REQUEST_ID}` },
  { method: 'GET', path: '/v1/operator/agents' },
  { method: 'GET', path: '/v1/operator/agents/alice/timeline' },
  { method: 'GET', path: '/v1/operator/fleet' },
  { method: 'GET', path: '/v1/operator/signals' },
  { method: 'GET', path: '/v1/operator/signals/stats' },
];

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(`${gw.httpUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${OPERATORS[0]!.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

function claudeCode(fields: Record<string, unknown>): Promise<Response> {
  return fetch(`${gw.httpUrl}/v1/hooks/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENTS[0]!.token}` },
    body: JSON.stringify({ session_id: 'cc-outage', transcript_path: '/tmp/t.jsonl', cwd: '/tmp', permission_mode: 'default', ...fields }),
    signal: AbortSignal.timeout(30_000),
  });
}

describe('Redis down, then back', () => {
  it('answers operator calls 503 E_UNAVAILABLE with Retry-After while Redis is down, and normally once it is back', async () => {
    // An agent's plan waiting for the operators: the decision refused during the outage must not be stored.
    const { client: agent } = await connectReady(gw.wsUrl, AGENTS[0]!.token);
    const opened = await agent.request({ type: 'request', id: 'open-1', request: { request_id: REQUEST_ID, type: 'plan_approval', target: { kind: 'operators' }, payload: { plan: PLAN } } });
    expect(opened.type).toBe('ack');
    const before = await Promise.all(OPERATOR_CALLS.map((c) => call(c.method, c.path, c.body)));
    for (const [i, r] of before.entries()) expect(r.status, OPERATOR_CALLS[i]!.path).toBe(200);

    await redis.stop({ keepData: true });
    try {
      for (const c of OPERATOR_CALLS) {
        const r = await call(c.method, c.path, c.body);
        expect(r.status, `${c.method} ${c.path}: ${r.text}`).toBe(503);
        expect(OperatorErrorBodySchema.parse(JSON.parse(r.text)).error, c.path).toMatchObject({ code: 'E_UNAVAILABLE', retryable: true });
        expect(Number(r.headers.get('retry-after')), c.path).toBeGreaterThanOrEqual(1);
      }
      const decide = await call('POST', `/v1/operator/requests/${REQUEST_ID}/decision`, { approve: true });
      expect(decide.status, decide.text).toBe(503);
      expect(OperatorErrorBodySchema.parse(JSON.parse(decide.text)).error).toMatchObject({ code: 'E_UNAVAILABLE', retryable: true, retry_after_ms: 1000 });
      expect(decide.headers.get('retry-after')).toBe('1');

      const live = await call('GET', '/v1/operator/live');
      expect(live.status, live.text).toBe(503);
      expect(live.headers.get('retry-after')).toBe('1');
      // A bad token is still a 401, not a 503.
      expect((await fetch(`${gw.httpUrl}/v1/operator/requests`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);

      const pre = await claudeCode({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf build' }, tool_use_id: 'toolu_1' });
      expect(pre.status).toBe(200);
      expect(await pre.json()).toMatchObject({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('E_UNAVAILABLE') } });
      const post = await claudeCode({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: { stdout: '' }, tool_use_id: 'toolu_2' });
      expect(post.status).toBe(200);
      expect(JSON.stringify(await post.json())).not.toContain('deny');
      const ready = await fetch(`${gw.httpUrl}/readyz`);
      expect(ready.status).toBe(503);
    } finally {
      await redis.restart();
    }

    await expect
      .poll(async () => (await Promise.all(OPERATOR_CALLS.map((c) => call(c.method, c.path, c.body)))).map((r) => r.status < 500), { timeout: 20_000, interval: 250 })
      .toEqual(OPERATOR_CALLS.map(() => true));
    expect((await fetch(`${gw.httpUrl}/readyz`)).status).toBe(200);
    // The refused decision changed nothing: the plan is still pending, and deciding it now works.
    expect(RequestDetailResponseSchema.parse(JSON.parse((await call('GET', `/v1/operator/requests/${REQUEST_ID}`)).text)).request.status).toBe('pending');
    const decided = await call('POST', `/v1/operator/requests/${REQUEST_ID}/decision`, { approve: true });
    expect(decided.status, decided.text).toBe(200);
    await agent.close();
  }, 90_000);
});
