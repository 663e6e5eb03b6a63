/**
 * POST /v1/hooks/codex on a real gateway (in-process, the run's private Redis): Codex's
 * documented hook inputs (every event, and malformed ones) go in, answers its per-event output
 * schemas accept come out. The oracle worker is played by the test, which takes the job from the
 * queue and stores a decision as a worker would. The session is a `client: codex` row of the fleet.
 */
import { randomUUID } from 'node:crypto';
import {
  CODEX_EVENTS,
  CODEX_OUTPUT_SCHEMAS,
  FleetResponseSchema,
  OperatorErrorBodySchema,
  type CodexEvent,
  type HookJobData,
  type Signal,
} from '@ahp/protocol';
import { exportSignalLog } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CODEX_TRIGGERS } from '../src/coding-agents/codex-dialect.js';
import { agentSessionId } from '../src/coding-agents/hook-dialect.js';
import { publishedCodexVerdict } from './support/codex-published-schemas.js';
import { workerDecision } from './support/decisions.js';
import { postHook, hookJobTaker } from './support/coding-agent-hooks.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestStore } from './support/test-gateway.js';

const AGENT: TestAgentEntry = { id: 'codex-dev', name: 'Codex', token: newToken(), team: 'red' };
const OPERATOR = { id: 'op', name: 'Op', role: 'viewer' as const, token: newToken() };
const SESSION = randomUUID();

let gw: TestGateway;
let store: TestStore;

beforeAll(async () => {
  // pre-tool-use waits at most 1.5 s here, so the fail-closed case stays short.
  gw = await startTestGateway({ name: 'codex', agents: [AGENT], operators: [OPERATOR], env: { AHP_CLAUDE_CODE_DEADLINE_MS: '1500', AHP_MAX_FRAME_BYTES: '200000' } });
  store = await openTestStore(gw.keyPrefix, testLogger());
});

afterAll(async () => {
  await store?.close();
  await gw?.stop();
});

const COMMON = { session_id: SESSION, transcript_path: null, cwd: '/home/dev/repo', model: 'gpt-5-codex', permission_mode: 'default', turn_id: 'turn-1' };
const BASH = { tool_name: 'Bash', tool_input: { command: 'git push --force' }, tool_use_id: 'call_1' };

/** A documented input of each Codex event. */
const INPUTS: Record<CodexEvent, Record<string, unknown>> = {
  SessionStart: { ...COMMON, hook_event_name: 'SessionStart', source: 'startup' },
  PreToolUse: { ...COMMON, ...BASH, hook_event_name: 'PreToolUse' },
  PermissionRequest: { ...COMMON, tool_name: 'Bash', tool_input: { command: 'git push --force', description: 'publish' }, hook_event_name: 'PermissionRequest' },
  PostToolUse: { ...COMMON, ...BASH, hook_event_name: 'PostToolUse', tool_response: 'rejected' },
  UserPromptSubmit: { ...COMMON, hook_event_name: 'UserPromptSubmit', prompt: 'ship it' },
  Stop: { ...COMMON, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'done' },
  PreCompact: { ...COMMON, hook_event_name: 'PreCompact', trigger: 'auto' },
  PostCompact: { ...COMMON, hook_event_name: 'PostCompact', trigger: 'auto' },
  SubagentStart: { ...COMMON, hook_event_name: 'SubagentStart', agent_id: 'agent-1', agent_type: 'explorer' },
  SubagentStop: { ...COMMON, hook_event_name: 'SubagentStop', agent_id: 'agent-1', agent_type: 'explorer', agent_transcript_path: null, stop_hook_active: false, last_assistant_message: 'found it' },
  StopFailure: { ...COMMON, hook_event_name: 'StopFailure', error: 'server_error', error_details: '500', last_assistant_message: null },
};

/** Posts a hook input; `authorization: null` sends no Authorization header. */
const post = (body: unknown, authorization: string | null = `Bearer ${AGENT.token}`): Promise<Response> => postHook(gw, 'codex', body, authorization);

/** The next job the gateway enqueued, as a worker takes it. */
const nextJob = hookJobTaker(() => store);

/** Posts `event`'s input, decides its job with `signals`, and returns the job and Codex's answer (checked against the event's schema). */
async function decided(event: CodexEvent, signals: (hookId: string) => Signal[] = () => []): Promise<{ job: HookJobData; output: unknown }> {
  const response = post(INPUTS[event]);
  const job = await nextJob();
  await store.stores.hooks.decide(job.hook_id, workerDecision(job.hook_id, job.trigger, signals(job.hook_id)), Date.now());
  const answer = await response;
  expect(answer.status).toBe(200);
  const output: unknown = await answer.json();
  expect(CODEX_OUTPUT_SCHEMAS[event].safeParse(output).success, JSON.stringify(output)).toBe(true);
  // And OpenAI's own schema of the event (test/fixtures/codex-schemas/).
  const published = publishedCodexVerdict(event, output);
  expect(published.ok, `${JSON.stringify(output)}: ${published.errors}`).toBe(true);
  return { job, output };
}

function block(hookId: string): Signal {
  return {
    header: { id: randomUUID(), type: 'policy', timestamp: new Date().toISOString(), source: 'int-spec-oracle', intensity: 'block', correlation_id: hookId },
    context: {},
    payload: { level: 'blocking', decision: 'deny', reason: 'force pushes are not allowed', resolvable: false, resolution_path: [] },
  };
}

describe('every Codex event', () => {
  it.each(CODEX_EVENTS)('%s becomes its trigger in the agent\'s Codex session, with the session under client', async (event) => {
    const { job, output } = await decided(event);
    expect(job.trigger).toBe(CODEX_TRIGGERS[event]);
    expect(job.agent.id).toBe(AGENT.id);
    expect(job.session_id).toBe(agentSessionId('cx', AGENT.id, SESSION));
    expect(job.context['client']).toMatchObject({ kind: 'codex', hook_event_name: event, session_id: SESSION, model: 'gpt-5-codex' });
    expect(output).toEqual({});
  });
});

describe('decisions', () => {
  it('denies a PreToolUse and a PermissionRequest an oracle blocks, in each event\'s form', async () => {
    expect((await decided('PreToolUse', (id) => [block(id)])).output).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'Blocked by AHP: force pushes are not allowed' },
    });
    expect((await decided('PermissionRequest', (id) => [block(id)])).output).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'Blocked by AHP: force pushes are not allowed' } },
    });
  });

  it('denies a PreToolUse when no decision arrives in time (pre-tool-use fails closed)', async () => {
    const response = post(INPUTS.PreToolUse);
    await nextJob();
    const output: unknown = await (await response).json();
    expect(output).toMatchObject({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('Blocked by AHP (fail-closed)') as unknown } });
  });
});

describe('answers inferred from the next hook', () => {
  it('reads retry_after_fix from a changed call after a deny, abort from a Stop after one, and accept_modification from the PostToolUse of a changed call', async () => {
    // The suite's session: presence shows an agent's last session, and the fleet test reads it.
    const common = COMMON;
    const pre = (command: string, id: string) => ({ ...common, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: id });
    /** Posts `body`, decides it with `signals` as a worker would, and returns the signal ids. */
    const hook = async (body: Record<string, unknown>, signals: (hookId: string) => Signal[] = () => []): Promise<string[]> => {
      const response = post(body);
      const job = await nextJob();
      const decided = signals(job.hook_id);
      await store.stores.hooks.decide(job.hook_id, workerDecision(job.hook_id, job.trigger, decided), Date.now());
      expect((await response).status).toBe(200);
      return decided.map((signal) => signal.header.id);
    };
    // An operator's approval with an edit: the one control Codex runs (a rule's rewrite alone is denied with the adjusted call).
    const control = (hookId: string): Signal => ({
      header: { id: randomUUID(), type: 'approval-approved', timestamp: new Date().toISOString(), source: 'int-spec-oracle', intensity: 'control', correlation_id: hookId },
      context: {},
      payload: { level: 'controlling', decision: 'allow_with_modification', modifications: [{ target: 'command', original: 'git push --force', updated: 'git push --force-with-lease', reason: 'safer' }], reversible: true },
    });
    const retried = await hook(pre('git push --force', 'call_a'), (hookId) => [block(hookId)]);
    await hook(pre('git push origin main', 'call_b'));
    const abandoned = await hook(pre('git push --force', 'call_c'), (hookId) => [block(hookId)]);
    await hook({ ...common, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'giving up' });
    const changed = await hook(pre('git push --force', 'call_d'), (hookId) => [control(hookId)]);
    await hook({ ...common, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'git push --force-with-lease' }, tool_use_id: 'call_d', tool_response: 'ok' });

    const { lines } = await exportSignalLog(store.redis, store.keys, { filter: { agent_id: AGENT.id } });
    const answerOf = (id: string | undefined) => {
      const line = lines.find((candidate) => candidate.signal_id === id);
      return [line?.action ?? null, line?.answer ?? null];
    };
    expect([answerOf(retried[0]), answerOf(abandoned[0]), answerOf(changed[0])]).toEqual([
      ['retry_after_fix', 'inferred'],
      ['abort', 'inferred'],
      ['accept_modification', 'inferred'],
    ]);
  });
});

describe('refusals', () => {
  it('answers 401 without a valid token', async () => {
    const response = await post(INPUTS.PreToolUse, null);
    expect(response.status).toBe(401);
    expect(OperatorErrorBodySchema.parse(await response.json()).error.code).toBe('E_UNAUTHORIZED');
  });

  it('answers 400 E_INVALID_FRAME for an event AHP does not map and for malformed inputs, and E_BAD_FRAME for non-JSON', async () => {
    for (const body of [
      // Events Codex has that AHP does not map (docs/coding-agents.md, "What is not reported").
      { ...COMMON, hook_event_name: 'SessionEnd' },
      { ...COMMON, hook_event_name: 'Interrupt' },
      // Mapped events, malformed: a SubagentStart without its subagent, a tool input that is a string, no session.
      { ...COMMON, hook_event_name: 'SubagentStart' },
      { ...COMMON, ...BASH, hook_event_name: 'PreToolUse', tool_input: 'ls' },
      { ...BASH, hook_event_name: 'PreToolUse', cwd: '/home/dev/repo', model: 'gpt-5-codex', permission_mode: 'default', turn_id: 'turn-1' },
      { hook_event_name: 'Stop' },
    ]) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(OperatorErrorBodySchema.parse(await response.json()).error.code).toBe('E_INVALID_FRAME');
    }
    const text = await post('{not json');
    expect(text.status).toBe(400);
    expect(OperatorErrorBodySchema.parse(await text.json()).error.code).toBe('E_BAD_FRAME');
  });

  it('denies a PreToolUse over the size limit in Codex\'s form, unevaluated', async () => {
    // Codex writes its common fields, hook_event_name among them, before the tool input.
    const response = await post({ ...COMMON, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'x'.repeat(300_000) } });
    expect(response.status).toBe(200);
    const output: unknown = await response.json();
    expect(CODEX_OUTPUT_SCHEMAS.PreToolUse.safeParse(output).success).toBe(true);
    expect(publishedCodexVerdict('PreToolUse', output).ok).toBe(true);
    expect(output).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('E_FRAME_TOO_LARGE') as unknown } });
  });
});

describe('in the fleet', () => {
  it('is a codex row, working while it hooks', async () => {
    await vi.waitFor(
      async () => {
        const response = await fetch(`${gw.httpUrl}/v1/operator/fleet`, { headers: { authorization: `Bearer ${OPERATOR.token}` } });
        const row = FleetResponseSchema.parse(await response.json()).agents.find((agent) => agent.agent.id === AGENT.id);
        expect(row).toMatchObject({ client: 'codex', session_id: agentSessionId('cx', AGENT.id, SESSION), gateway_id: gw.config.gatewayId });
      },
      { timeout: 5_000, interval: 100 },
    );
  });
});
