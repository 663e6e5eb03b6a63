// The SDK's reference agent loop against the real system: a private Redis, one gateway (with an
// operator tokens file, for the timeline) and one oracle-worker serving the repository's
// .ahp/hooks.yaml plus an aid rule on post-tool-use. A scripted model walks through a block
// (`rm -rf /`), a control rewrite (`git push --force`), an aid after a failed tool, a tool timeout
// (a real child process, killed), a legacy and a structured control signal, a replan, a failed
// and a passed verification, a stutter and the iteration limit (both with low thresholds), and
// the operator API's timeline shows the reported events.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { RequestListResponseSchema, type AgentEvent, type JsonObject, type Plan, type TimelineResponse } from '@ahp/protocol';
import { connect, type AhpClient } from '@ahp/sdk';
import { runAgentLoop, scriptedModel, type ModelAction } from '@ahp/sdk/agent-loop';
import { runTool } from '@ahp/sdk/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allWorkersServe, publishThroughStore } from './config-support.js';
import { eventually, startSystem, type System } from './harness.js';
import { operatorApi, operatorCall, writeOperatorTokens, type OperatorTokens } from './team-support.js';

const EXAMPLE_CONFIG = fileURLToPath(new URL('../../.ahp/hooks.yaml', import.meta.url));

/** Appended to the example configuration's `hooks:` map: advice after a failed tool call. */
const AID_AFTER_FAILURE = `
  post-tool-use:
    oracles:
      - name: result-analysis
        rules:
          - id: tool-failed
            condition: "tool.ok == false"
            intensity: aid
            message: "The last tool call failed."
            suggestions:
              - type: follow_up
                description: "Read the error before trying again."
`;

const step = (id: string, dependencies: string[] = []) => ({ id, description: `do ${id}`, dependencies, status: 'pending' as const, tools_expected: ['bash'] });
const bash = (command: string): ModelAction => ({ type: 'tool_call', tool: 'bash', input: { command } });
const text = (t: string): ModelAction => ({ type: 'text', text: t });

/** A shell tool that records commands instead of running them; only `sleep` runs a real (slow) process. */
function tools(ran: string[]) {
  return {
    bash: async (input: JsonObject) => {
      ran.push(String(input.command));
      return { ok: true as const, output: `ok: ${String(input.command)}` };
    },
    sleep: async () => {
      const result = await runTool({ command: process.execPath, args: ['-e', 'setInterval(() => undefined, 1000)'], timeoutS: 0.3 });
      return result.ok ? { ok: true as const, output: result.stdout } : { ok: false as const, code: result.code, error: result.message };
    },
  };
}

describe('SDK reference agent loop', () => {
  let system: System;
  let operators: OperatorTokens;
  let client: AhpClient;

  beforeAll(async () => {
    operators = await writeOperatorTokens([
      { id: 'op-vera', name: 'Vera', role: 'viewer' },
      { id: 'op-ian', name: 'Ian', role: 'approver' },
    ]);
    system = await startSystem({
      name: 'agent-loop',
      agents: [{ id: 'ada', name: 'ada', team: 'lab', role: 'teammate' }],
      gatewayEnv: { AHP_OPERATOR_TOKENS_FILE: operators.file },
    });
    const source = `${(await readFile(EXAMPLE_CONFIG, 'utf8')).trimEnd()}\n${AID_AFTER_FAILURE}`;
    await allWorkersServe(system, await publishThroughStore(system, source));
    client = await connect({ url: system.stack.gatewayUrls(), token: system.token('ada') });
  });

  afterAll(async () => {
    await client?.close();
    await system?.stop();
    await operators?.remove();
  });

  it('runs a plan through every intensity, a replan, verification and the breakers; the timeline shows it', async () => {
    const ran: string[] = [];
    const plan: Plan = { title: 'ship the fix', steps: [step('edit'), step('push', ['edit'])] };
    const model = scriptedModel({
      plans: [plan, { title: 'ship the fix, v2', steps: [step('edit'), step('release', ['edit'])] }],
      actions: [
        bash('rm -rf /'),
        { type: 'tool_call', tool: 'sleep', input: {} },
        bash('ls'),
        bash('ls'),
        bash('ls'),
        text('STEP_DONE'),
        text('{"control":"step_done"}'),
        text('{"control":"replan","reason":"push is replaced by a release"}'),
        bash('git push --force origin main'),
        text('{"control":"step_done"}'),
      ],
    });
    let checks = 0;
    const result = await runAgentLoop({
      model,
      tools: tools(ran),
      client,
      goal: 'ship the fix',
      limits: { maxIdenticalToolCalls: 2 },
      verify: async () =>
        ++checks === 1
          ? { ok: false, type: 'test_failure', summary: '1 test failed', details: [{ file: 'test/a.spec.ts', line: 3, error: 'expected 1' }] }
          : { ok: true, type: 'passed', summary: 'all tests pass', details: [] },
    });

    expect(result.stopReason).toBe('completed');
    expect(result.plan?.steps.map((s) => [s.id, s.status])).toEqual([['edit', 'done'], ['release', 'done']]);
    expect(ran).toEqual(['ls', 'ls', 'git push --force-with-lease origin main']);
    const toolResults = result.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(toolResults[0]).toMatch(/^BLOCKED by permission-check: Recursive deletion/);
    expect(toolResults[1]).toMatch(/^E_TIMEOUT: .* was killed/);
    expect(toolResults[1]).toMatch(/SUGGESTION: .*Read the error before trying again/);
    expect(toolResults[4]).toMatch(/^E_STUTTERING/);
    expect(toolResults[5]).toMatch(/NOTE: input changed by the control plane: \/command → "git push --force-with-lease origin main"/);

    const timeline = await operatorCall(operatorApi(system.stack.gateways[0]!), operators.token('op-vera'), 'GET', '/agents/ada/timeline?limit=500');
    expect(timeline.status).toBe(200);
    const events: AgentEvent[] = (timeline.json as TimelineResponse).events.map((entry) => entry.event).reverse();
    expect(events.flatMap((e) => (e.kind === 'control_signal' ? [e.control_signal] : []))).toEqual([
      { control: 'step_done', format: 'legacy', step_id: 'edit' },
      { control: 'step_done', format: 'structured', step_id: 'edit' },
      { control: 'replan', reason: 'push is replaced by a release', format: 'structured', step_id: 'push' },
      { control: 'step_done', format: 'structured', step_id: 'release' },
    ]);
    expect(events.flatMap((e) => (e.kind === 'verification' ? [e.result.ok] : []))).toEqual([false, true, true]);
    const progress = events.flatMap((e) => (e.kind === 'plan_progress' ? [e.plan] : []));
    expect(progress[0]?.title).toBe('ship the fix');
    expect(progress.at(-1)).toMatchObject({ title: 'ship the fix, v2', steps: [{ id: 'edit', status: 'done' }, { id: 'release', status: 'done' }] });
  });

  it('stops with MAX_ITER at a low iteration limit and asks the operators to intervene', async () => {
    const model = scriptedModel({ plans: [{ title: 'think', steps: [step('ponder')] }], actions: [text('hmm'), text('hmm again')] });
    const result = await runAgentLoop({ model, tools: tools([]), client, goal: 'think', limits: { maxIterations: 2 } });
    expect(result).toMatchObject({ stopReason: 'MAX_ITER', iterations: 3 });
    expect(result.plan?.steps[0]?.status).toBe('in_progress');

    // The request waits in the operators' queue (the console's approvals page) …
    const requestId = result.intervention?.requestId ?? '';
    const api = operatorApi(system.stack.gateways[0]!);
    const queue = await eventually(async () => {
      const { json } = await operatorCall(api, operators.token('op-vera'), 'GET', '/requests?status=pending&target=operators&type=intervention');
      const list = RequestListResponseSchema.parse(json).requests;
      return list.some((r) => r.request_id === requestId) ? list : undefined;
    }, 'the intervention request in the operators queue');
    expect(queue.find((r) => r.request_id === requestId)).toMatchObject({
      type: 'intervention',
      sender: 'ada',
      payload: { reason: 'MAX_ITER', iteration: 3, plan_step: 'ponder' },
    });

    // … and a person's answer reaches the stopped agent.
    const decided = await operatorCall(api, operators.token('op-ian'), 'POST', `/requests/${requestId}/decision`, { approve: true, feedback: 'Write down what you know, then continue.' });
    expect(decided.status).toBe(200);
    await expect(result.intervention?.decision).resolves.toMatchObject({ approved: true, status: 'approved', feedback: 'Write down what you know, then continue.' });
  });
});
