/**
 * Claude Code sessions in the fleet and their answers, on a real gateway (in-process, the run's
 * private Redis; the test plays the oracle worker as claude-code.int.spec.ts does): hooks posted to
 * /v1/hooks/claude-code make the session a `client: claude-code` row of GET /v1/operator/fleet
 * whose status follows them, SessionEnd takes it offline, and the signal log reads its signals as
 * answered by inference (`answer: inferred`) or `not_reported`, never as unanswered.
 */
import { randomUUID } from 'node:crypto';
import { FleetResponseSchema, type Signal } from '@ahp/protocol';
import { exportSignalLog } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { claudeCodeSessionId } from '../src/claude-code/claude-code.service.js';
import { workerDecision } from './support/decisions.js';
import { postHook, hookJobTaker } from './support/coding-agent-hooks.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestStore } from './support/test-gateway.js';

const AGENT: TestAgentEntry = { id: 'claude', name: 'Claude', token: newToken(), team: 'red' };
const OPERATOR = { id: 'op', name: 'Op', role: 'viewer' as const, token: newToken() };

let gw: TestGateway;
let store: TestStore;

beforeAll(async () => {
  gw = await startTestGateway({ name: 'claude-code-fleet', agents: [AGENT], operators: [OPERATOR], env: { AHP_CLAUDE_CODE_DEADLINE_MS: '5000' } });
  store = await openTestStore(gw.keyPrefix, testLogger());
});

afterAll(async () => {
  await store?.close();
  await gw?.stop();
});

const post = (body: unknown): Promise<Response> => postHook(gw, 'claude-code', body, `Bearer ${AGENT.token}`);

/** The next job the gateway enqueued, as a worker takes it. */
const nextJob = hookJobTaker(() => store);

/** Posts a hook input and decides its job with `signals` (none: allowed). */
async function hook(body: Record<string, unknown>, signals: (hookId: string) => Signal[] = () => []): Promise<unknown> {
  const response = post(body);
  const job = await nextJob();
  await store.stores.hooks.decide(job.hook_id, workerDecision(job.hook_id, job.trigger, signals(job.hook_id)), Date.now());
  const answer = await response;
  expect(answer.status).toBe(200);
  return answer.json();
}

function signal(hookId: string, intensity: 'block' | 'control', payload: Signal['payload']): Signal {
  return { header: { id: randomUUID(), type: 'policy', timestamp: new Date().toISOString(), source: 'int-spec-oracle', intensity, correlation_id: hookId }, context: {}, payload };
}

async function fleet() {
  const response = await fetch(`${gw.httpUrl}/v1/operator/fleet`, { headers: { authorization: `Bearer ${OPERATOR.token}` } });
  return FleetResponseSchema.parse(await response.json());
}

describe('a Claude Code session', () => {
  const session = randomUUID();
  const ahpSession = claudeCodeSessionId(AGENT.id, session);
  const common = { session_id: session, cwd: '/home/dev/app', transcript_path: '/home/dev/.claude/t.jsonl' };

  it('is a claude-code row of the fleet from its first hook, working while it hooks and idle after Stop', async () => {
    await hook({ ...common, hook_event_name: 'SessionStart', source: 'startup' });
    await vi.waitFor(async () => {
      const row = (await fleet()).agents.find((agent) => agent.agent.id === AGENT.id);
      expect(row).toMatchObject({ client: 'claude-code', session_id: ahpSession, gateway_id: gw.config.gatewayId, status: 'working', last_hook: { trigger: 'session-start' } });
    }, { timeout: 5_000, interval: 100 });

    await hook({ ...common, hook_event_name: 'Stop', stop_hook_active: false });
    await vi.waitFor(async () => {
      const row = (await fleet()).agents.find((agent) => agent.agent.id === AGENT.id);
      expect(row).toMatchObject({ client: 'claude-code', status: 'idle', last_hook: { trigger: 'stop' } });
    }, { timeout: 5_000, interval: 100 });
  });

  it('answers a control from the PostToolUse that follows and a block from the changed retry, and leaves the rest not_reported', async () => {
    const control = await hook({ ...common, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'git push --force' }, tool_use_id: 'toolu_1' }, (hookId) => [
      signal(hookId, 'control', { level: 'controlling', decision: 'allow_with_modification', modifications: [{ target: 'command', original: 'git push --force', updated: 'git push --force-with-lease', reason: 'safer' }], reversible: true }),
    ]);
    expect(control).toMatchObject({ hookSpecificOutput: { permissionDecision: 'ask', updatedInput: { command: 'git push --force-with-lease' } } });
    await hook({ ...common, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'git push --force-with-lease' }, tool_use_id: 'toolu_1', tool_response: {} });

    const blocked = (hookId: string) => [signal(hookId, 'block', { level: 'blocking', decision: 'deny', reason: 'no recursive delete of ~', resolvable: true, resolution_path: ['name the folder'] })];
    await hook({ ...common, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf ~' } }, blocked);
    await hook({ ...common, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf ./build' } });

    // A block followed by another tool tells nothing: not_reported.
    await hook({ ...common, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf /' } }, blocked);
    await hook({ ...common, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/etc/hosts' } });

    const { lines } = await exportSignalLog(store.redis, store.keys, { filter: { agent_id: AGENT.id } });
    expect(lines.map((line) => [line.intensity, line.consumed, line.action ?? null, line.answer ?? null])).toEqual([
      ['control', true, 'accept_modification', 'inferred'],
      ['block', true, 'retry_after_fix', 'inferred'],
      ['block', false, null, 'not_reported'],
    ]);
  });

  it('goes offline on SessionEnd', async () => {
    await hook({ ...common, hook_event_name: 'SessionEnd', reason: 'logout' });
    await vi.waitFor(async () => {
      const row = (await fleet()).agents.find((agent) => agent.agent.id === AGENT.id);
      expect(row).toMatchObject({ client: 'claude-code', status: 'offline' });
    }, { timeout: 5_000, interval: 100 });
  });
});
