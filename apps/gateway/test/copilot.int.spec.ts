/**
 * POST /v1/hooks/copilot on a real gateway (in-process, the run's private Redis): GitHub
 * Copilot's documented hook inputs — every event it evaluates, in both of Copilot's formats (the
 * camelCase payloads, and the VS Code compatible PascalCase events with snake_case fields), and
 * malformed ones — go in; answers with the documented fields of each event come out (Copilot
 * publishes no JSON Schema for them: COPILOT_OUTPUT_SCHEMAS is the reference's fields, strict).
 * The oracle worker is played by the test, which takes the job from the queue and stores a
 * decision as a worker would. The session is a `client: copilot` row of the fleet.
 */
import { randomUUID } from 'node:crypto';
import {
  COPILOT_EVENTS,
  COPILOT_OUTPUT_SCHEMAS,
  COPILOT_PASCAL_EVENTS,
  COPILOT_UNEVALUATED_EVENTS,
  FleetResponseSchema,
  OperatorErrorBodySchema,
  type CopilotEvent,
  type HookJobData,
  type Signal,
} from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COPILOT_TRIGGERS } from '../src/coding-agents/copilot-dialect.js';
import { agentSessionId } from '../src/coding-agents/hook-dialect.js';
import { workerDecision } from './support/decisions.js';
import { postHook, hookJobTaker } from './support/coding-agent-hooks.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestStore } from './support/test-gateway.js';

const AGENT: TestAgentEntry = { id: 'copilot-ci', name: 'Copilot', token: newToken(), team: 'red' };
const OPERATOR = { id: 'op', name: 'Op', role: 'viewer' as const, token: newToken() };
const SESSION = randomUUID();

let gw: TestGateway;
let store: TestStore;

beforeAll(async () => {
  // pre-tool-use waits at most 1.5 s here, so the fail-closed case stays short.
  gw = await startTestGateway({ name: 'copilot', agents: [AGENT], operators: [OPERATOR], env: { AHP_CLAUDE_CODE_DEADLINE_MS: '1500', AHP_MAX_FRAME_BYTES: '200000' } });
  store = await openTestStore(gw.keyPrefix, testLogger());
});

afterAll(async () => {
  await store?.close();
  await gw?.stop();
});

/** What `ahp hook copilot <event>` posts: the event it was named, first, then Copilot's camelCase payload. */
const camel = (event: CopilotEvent, fields: Record<string, unknown>) => ({ hook_event_name: event, sessionId: SESSION, timestamp: 1767225600000, cwd: '/workspace/repo', ...fields });
/** Copilot's VS Code compatible payload: the PascalCase event in the body, snake_case fields, an ISO timestamp. */
const pascal = (event: string, fields: Record<string, unknown>) => ({ hook_event_name: event, session_id: SESSION, timestamp: '2026-01-01T00:00:00.000Z', cwd: '/workspace/repo', ...fields });
const ARGS = JSON.stringify({ command: 'git push --force' });

/** A documented camelCase input of each Copilot event AHP evaluates. */
const INPUTS: Record<CopilotEvent, Record<string, unknown>> = {
  sessionStart: camel('sessionStart', { source: 'new', initialPrompt: 'fix the flaky test' }),
  sessionEnd: camel('sessionEnd', { reason: 'complete' }),
  userPromptSubmitted: camel('userPromptSubmitted', { prompt: 'ship it' }),
  preToolUse: camel('preToolUse', { toolName: 'bash', toolArgs: ARGS }),
  permissionRequest: camel('permissionRequest', { toolName: 'bash', toolArgs: ARGS }),
  postToolUse: camel('postToolUse', { toolName: 'bash', toolArgs: ARGS, toolResult: { resultType: 'success', textResultForLlm: 'ok' } }),
  postToolUseFailure: camel('postToolUseFailure', { toolName: 'bash', toolArgs: ARGS, error: 'exit 1' }),
  agentStop: camel('agentStop', { transcriptPath: '/tmp/t.jsonl', stopReason: 'end_turn' }),
  subagentStop: camel('subagentStop', { transcriptPath: '/tmp/t.jsonl', agentName: 'reviewer', stopReason: 'end_turn' }),
  preCompact: camel('preCompact', { transcriptPath: '/tmp/t.jsonl', trigger: 'auto', customInstructions: '' }),
};

/** The same inputs in the VS Code compatible format, keyed by the PascalCase event. */
const PASCAL_INPUTS: Record<string, Record<string, unknown>> = {
  SessionStart: pascal('SessionStart', { source: 'new', initial_prompt: 'fix the flaky test' }),
  SessionEnd: pascal('SessionEnd', { reason: 'complete' }),
  UserPromptSubmit: pascal('UserPromptSubmit', { prompt: 'ship it' }),
  PreToolUse: pascal('PreToolUse', { tool_name: 'bash', tool_input: { command: 'git push --force' } }),
  PermissionRequest: pascal('PermissionRequest', { tool_name: 'bash', tool_input: { command: 'git push --force' } }),
  PostToolUse: pascal('PostToolUse', { tool_name: 'bash', tool_input: { command: 'git push --force' }, tool_result: { result_type: 'success', text_result_for_llm: 'ok' } }),
  PostToolUseFailure: pascal('PostToolUseFailure', { tool_name: 'bash', tool_input: { command: 'git push --force' }, error: 'exit 1' }),
  Stop: pascal('Stop', { transcript_path: '/tmp/t.jsonl', stop_reason: 'end_turn' }),
  SubagentStop: pascal('SubagentStop', { transcript_path: '/tmp/t.jsonl', agent_name: 'reviewer', stop_reason: 'end_turn' }),
  PreCompact: pascal('PreCompact', { transcript_path: '/tmp/t.jsonl', trigger: 'auto', custom_instructions: '' }),
};

/** The PascalCase events AHP evaluates: those whose camelCase twin is not answered `{}` by the command itself. */
const PASCAL_EVALUATED = Object.keys(COPILOT_PASCAL_EVENTS).filter((name) => !(COPILOT_UNEVALUATED_EVENTS as readonly string[]).includes(COPILOT_PASCAL_EVENTS[name]!));

/** Posts a hook input; `authorization: null` sends no Authorization header. */
const post = (body: unknown, authorization: string | null = `Bearer ${AGENT.token}`): Promise<Response> => postHook(gw, 'copilot', body, authorization);

/** The next job the gateway enqueued, as a worker takes it. */
const nextJob = hookJobTaker(() => store);

/** Posts `body` (an input of `event`), decides its job with `signals`, and returns the job and Copilot's answer (checked against the event's documented fields). */
async function decided(event: CopilotEvent, body: Record<string, unknown>, signals: (hookId: string) => Signal[] = () => []): Promise<{ job: HookJobData; output: unknown }> {
  const response = post(body);
  const job = await nextJob();
  await store.stores.hooks.decide(job.hook_id, workerDecision(job.hook_id, job.trigger, signals(job.hook_id)), Date.now());
  const answer = await response;
  expect(answer.status).toBe(200);
  const output: unknown = await answer.json();
  expect(COPILOT_OUTPUT_SCHEMAS[event].safeParse(output).success, JSON.stringify(output)).toBe(true);
  return { job, output };
}

function block(hookId: string): Signal {
  return {
    header: { id: randomUUID(), type: 'policy', timestamp: new Date().toISOString(), source: 'int-spec-oracle', intensity: 'block', correlation_id: hookId },
    context: {},
    payload: { level: 'blocking', decision: 'deny', reason: 'force pushes are not allowed', resolvable: false, resolution_path: [] },
  };
}

function control(hookId: string, type = 'policy'): Signal {
  return {
    header: { id: randomUUID(), type, timestamp: new Date().toISOString(), source: 'int-spec-oracle', intensity: 'control', correlation_id: hookId },
    context: {},
    payload: { level: 'controlling', decision: 'allow_with_modification', modifications: [{ target: 'command', original: 'git push --force', updated: 'git push --force-with-lease', reason: 'safer' }], reversible: true },
  };
}

describe('every Copilot event, camelCase', () => {
  // sessionEnd last among these: it takes the session out of the fleet (later hooks bring it back).
  const events = [...COPILOT_EVENTS.filter((event) => event !== 'sessionEnd'), 'sessionEnd' as const];

  it.each(events)('%s becomes its trigger in the agent\'s Copilot session, with the session under client', async (event) => {
    const { job, output } = await decided(event, INPUTS[event]);
    expect(job.trigger).toBe(COPILOT_TRIGGERS[event]);
    expect(job.agent.id).toBe(AGENT.id);
    expect(job.session_id).toBe(agentSessionId('gh', AGENT.id, SESSION));
    expect(job.context['client']).toMatchObject({ kind: 'copilot', hook_event_name: event, session_id: SESSION });
    expect(output).toEqual({});
  });

  it('gives the rules the tool call with its JSON text arguments parsed, and marks the permission prompt', async () => {
    const pre = await decided('preToolUse', INPUTS.preToolUse);
    expect(pre.job.context['tool']).toEqual({ name: 'bash', input: { command: 'git push --force' } });
    expect(pre.job.context['client']).not.toHaveProperty('permission_prompt');
    const prompt = await decided('permissionRequest', INPUTS.permissionRequest);
    expect(prompt.job.context['client']).toMatchObject({ permission_prompt: true });
    const failed = await decided('postToolUseFailure', INPUTS.postToolUseFailure);
    expect(failed.job.context['tool']).toEqual({ name: 'bash', input: { command: 'git push --force' }, ok: false, output: 'exit 1' });
  });
});

describe('every Copilot event, PascalCase (the VS Code compatible format)', () => {
  it('maps exactly the PascalCase events whose camelCase twin AHP evaluates', () => {
    expect(PASCAL_EVALUATED.sort()).toEqual(Object.keys(PASCAL_INPUTS).sort());
  });

  it.each(Object.keys(PASCAL_INPUTS))('%s becomes the trigger of its camelCase twin, in the same session and client', async (name) => {
    const event = COPILOT_PASCAL_EVENTS[name] as CopilotEvent;
    const { job, output } = await decided(event, PASCAL_INPUTS[name]!);
    expect(job.trigger).toBe(COPILOT_TRIGGERS[event]);
    expect(job.session_id).toBe(agentSessionId('gh', AGENT.id, SESSION));
    expect(job.context['client']).toMatchObject({ kind: 'copilot', hook_event_name: event, session_id: SESSION });
    expect(output).toEqual({});
    if (event === 'postToolUse') expect(job.context['tool']).toEqual({ name: 'bash', input: { command: 'git push --force' }, ok: true, output: 'ok' });
    if (event === 'subagentStop') expect(job.context).toMatchObject({ subagent: true, stop_reason: 'end_turn', client: { agent_name: 'reviewer' } });
  });
});

describe('decisions', () => {
  it('denies a preToolUse and a permissionRequest an oracle blocks, and keeps an agentStop working, each in its event\'s form (either format)', async () => {
    const reason = 'Blocked by AHP: force pushes are not allowed';
    expect((await decided('preToolUse', INPUTS.preToolUse, (id) => [block(id)])).output).toEqual({ permissionDecision: 'deny', permissionDecisionReason: reason });
    expect((await decided('preToolUse', PASCAL_INPUTS['PreToolUse']!, (id) => [block(id)])).output).toEqual({ permissionDecision: 'deny', permissionDecisionReason: reason });
    expect((await decided('permissionRequest', INPUTS.permissionRequest, (id) => [block(id)])).output).toEqual({ behavior: 'deny', message: reason });
    expect((await decided('agentStop', INPUTS.agentStop, (id) => [block(id)])).output).toEqual({ decision: 'block', reason });
    // Copilot reads no answer at a prompt: the block is recorded, the answer stays {}.
    expect((await decided('userPromptSubmitted', INPUTS.userPromptSubmitted, (id) => [block(id)])).output).toEqual({});
  });

  it('denies a preToolUse a rule changes with the adjusted call to issue instead, and allows an operator\'s edit as modifiedArgs', async () => {
    expect((await decided('preToolUse', INPUTS.preToolUse, (id) => [control(id)])).output).toEqual({
      permissionDecision: 'deny',
      permissionDecisionReason: 'Blocked by AHP: a rule adjusts this call (command: safer); it does not run as sent. Issue it again as adjusted — the same tool with this input: {"command":"git push --force-with-lease"}',
    });
    expect((await decided('preToolUse', INPUTS.preToolUse, (id) => [control(id, 'approval-approved')])).output).toEqual({
      permissionDecision: 'allow',
      permissionDecisionReason: 'Adjusted by AHP: command: safer',
      modifiedArgs: { command: 'git push --force-with-lease' },
    });
  });

  it('denies a preToolUse when no decision arrives in time (pre-tool-use fails closed)', async () => {
    const response = post(INPUTS.preToolUse);
    await nextJob();
    const output: unknown = await (await response).json();
    expect(COPILOT_OUTPUT_SCHEMAS.preToolUse.safeParse(output).success).toBe(true);
    expect(output).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('Blocked by AHP (fail-closed)') as unknown });
  });
});

describe('refusals', () => {
  it('answers 401 without a valid token', async () => {
    for (const authorization of [null, 'Bearer not-a-token']) {
      const response = await post(INPUTS.preToolUse, authorization);
      expect(response.status).toBe(401);
      expect(OperatorErrorBodySchema.parse(await response.json()).error.code).toBe('E_UNAUTHORIZED');
    }
  });

  it.each([
    ['an event Copilot does not have', camel('preToolUsage' as CopilotEvent, { toolName: 'bash', toolArgs: ARGS })],
    ['an event AHP does not evaluate (the command answers it itself)', camel('errorOccurred' as CopilotEvent, { error: { message: 'x', name: 'E' } })],
    ['no event at all', { sessionId: SESSION, toolName: 'bash', toolArgs: ARGS }],
    ['no session', { hook_event_name: 'preToolUse', toolName: 'bash', toolArgs: ARGS }],
    ['a tool call without its tool', camel('preToolUse', { toolArgs: ARGS })],
    ['a prompt that is not a string', camel('userPromptSubmitted', { prompt: 1 })],
    ['a PascalCase tool call without its tool', pascal('PreToolUse', { tool_input: { command: 'ls' } })],
    ['an array', [INPUTS.preToolUse]],
    ['a tool call whose arguments are not JSON text', camel('preToolUse', { toolName: 'bash', toolArgs: '{"command": "rm -rf /"' })],
    ['a tool call whose arguments are a list', camel('preToolUse', { toolName: 'bash', toolArgs: ['rm', '-rf', '/'] })],
    ['a permission prompt whose arguments are a number', camel('permissionRequest', { toolName: 'bash', toolArgs: 42 })],
  ])('answers 400 E_INVALID_FRAME for %s', async (_what, body) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(OperatorErrorBodySchema.parse(await response.json()).error.code).toBe('E_INVALID_FRAME');
  });

  it('answers 400 E_BAD_FRAME for a body that is not JSON', async () => {
    const response = await post('{"hook_event_name": "preToolUse", not json');
    expect(response.status).toBe(400);
    expect(OperatorErrorBodySchema.parse(await response.json()).error.code).toBe('E_BAD_FRAME');
  });

  it('denies a preToolUse and a permissionRequest over the size limit in Copilot\'s form, unevaluated', async () => {
    // `ahp hook copilot` writes hook_event_name first, where the gateway's bounded scan finds it.
    const big = JSON.stringify({ command: 'x'.repeat(300_000) });
    const pre = await post(camel('preToolUse', { toolName: 'bash', toolArgs: big }));
    expect(pre.status).toBe(200);
    const preOutput: unknown = await pre.json();
    expect(COPILOT_OUTPUT_SCHEMAS.preToolUse.safeParse(preOutput).success).toBe(true);
    expect(preOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('E_FRAME_TOO_LARGE') as unknown });
    const prompt = await post(pascal('PermissionRequest', { tool_name: 'bash', tool_input: { command: 'x'.repeat(300_000) } }));
    expect(prompt.status).toBe(200);
    const promptOutput: unknown = await prompt.json();
    expect(COPILOT_OUTPUT_SCHEMAS.permissionRequest.safeParse(promptOutput).success).toBe(true);
    expect(promptOutput).toMatchObject({ behavior: 'deny', message: expect.stringContaining('E_FRAME_TOO_LARGE') as unknown });
  });
});

describe('in the fleet', () => {
  it('is a copilot row, working while it hooks', async () => {
    const row = await vi.waitFor(
      async () => {
        const response = await fetch(`${gw.httpUrl}/v1/operator/fleet`, { headers: { authorization: `Bearer ${OPERATOR.token}` } });
        const found = FleetResponseSchema.parse(await response.json()).agents.find((agent) => agent.agent.id === AGENT.id);
        expect(found).toMatchObject({ client: 'copilot', session_id: agentSessionId('gh', AGENT.id, SESSION), gateway_id: gw.config.gatewayId });
        return found;
      },
      { timeout: 5_000, interval: 100 },
    );
    expect(row?.last_hook?.trigger).toBeDefined();
  });
});
