import type { AgentEvent, HookTrigger, InterventionPayload, JsonObject, Plan, ProtocolState, Signal } from '@ahp/protocol/wire';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AgentLoopClient, AgentLoopPhase } from './run-agent-loop.js';
import { runAgentLoop } from './run-agent-loop.js';
import type { AhpClient } from './client.js';
import type { HookResult } from './hook-result.js';
import type { RequestInterventionOptions } from './team-requests.js';
import { scriptedModel } from './scripted-model.js';
import type { RequestDecision } from './team.js';


const step = (id: string, dependencies: string[] = []) => ({ id, description: `do ${id}`, dependencies, status: 'pending' as const, tools_expected: [] });
const plan: Plan = { title: 'demo', steps: [step('a'), step('b', ['a'])] };

const signal = (intensity: Signal['header']['intensity'], payload: JsonObject): Signal =>
  ({ header: { id: `sig_${intensity}`, intensity }, payload }) as unknown as Signal;

/** A fake control plane: blocks `rm -rf /`, rewrites `--force`, warns on `curl`, records everything. */
function fakeClient(approved = true) {
  const hooks: { trigger: HookTrigger; context: JsonObject }[] = [];
  const events: AgentEvent[] = [];
  const responses: string[] = [];
  const allow = { allowed: true, modifications: [], warnings: [], signals: [] };
  const client: AgentLoopClient = {
    async hook(trigger, context = {}) {
      hooks.push({ trigger, context });
      const command = (context.tool as { input?: { command?: string } } | undefined)?.input?.command ?? '';
      if (trigger !== 'pre-tool-use') return allow as unknown as HookResult;
      if (command.includes('rm -rf /')) {
        // As the client builds it: the blocking signal is also among `signals`, with every other one.
        const blocking = signal('block', {});
        return { allowed: false, block: { reason: 'destructive', resolvable: true, resolutionPath: ['use a path'], source: 'permission-check', signal: blocking }, signals: [blocking, signal('block', {})], modifications: [], warnings: [] } as unknown as HookResult;
      }
      if (command.includes('--force')) {
        return { ...allow, signals: [signal('control', {})], modifications: [{ target: 'command', original: command, updated: command.replace('--force', '--force-with-lease'), reason: 'safer' }] } as unknown as HookResult;
      }
      if (command.includes('--hostile')) {
        return { ...allow, signals: [signal('control', {})], modifications: [{ target: '__proto__.polluted', original: null, updated: true, reason: 'hostile' }] } as unknown as HookResult;
      }
      if (command.startsWith('curl')) return { ...allow, signals: [signal('prompt', {})], warnings: ['network access'] } as unknown as HookResult;
      return allow as unknown as HookResult;
    },
    async respond(s, action) {
      responses.push(`${s.header.intensity}:${action}`);
    },
    async report(event) {
      events.push(event);
    },
    async submitPlan() {
      return { requestId: 'req_1', type: 'plan_approval', status: approved ? 'approved' : 'rejected', approved } as RequestDecision;
    },
  };
  return { client, hooks, events, responses };
}

const ran: string[] = [];
const tools = { bash: async (input: JsonObject) => (ran.push(String(input.command)), { ok: true as const, output: `ran ${String(input.command)}` }) };
const bash = (command: string) => ({ type: 'tool_call' as const, tool: 'bash', input: { command } });
const text = (t: string) => ({ type: 'text' as const, text: t });

describe('runAgentLoop', () => {
  it('takes the real client', () => {
    expectTypeOf<AhpClient>().toExtend<AgentLoopClient>();
  });

  it("puts an operator's pushed prompt and aid before the model and answers them (acknowledge, suggestion_deferred)", async () => {
    ran.length = 0;
    const { client, responses } = fakeClient();
    let handler: ((signal: Signal) => void | Promise<void>) | undefined;
    const pushedClient: AgentLoopClient = {
      ...client,
      onSignal(h) {
        handler = h;
        return () => (handler = undefined);
      },
    };
    const prompt = {
      header: { id: 'sig_op_prompt', type: 'operator-prompt', timestamp: '2026-02-09T10:00:00Z', source: 'operator:op-red', intensity: 'prompt' },
      context: {},
      payload: { level: 'prompting', decision: 'warn', severity: 'high', message: 'Stop migrating until the backup ends', suggestions: ['wait for backup-42'], continue_allowed: true },
    } as unknown as Signal;
    const aid = {
      header: { id: 'sig_op_aid', type: 'operator-aid', timestamp: '2026-02-09T10:00:01Z', source: 'operator:op-red', intensity: 'aid' },
      context: {},
      payload: { level: 'aiding', decision: 'suggest', context: 'The report failed', suggestions: [{ type: 'follow_up', description: 'rerun the tests' }] },
    } as unknown as Signal;
    const seen: string[][] = [];
    const model = scriptedModel({ plans: [{ title: 'one', steps: [step('a')] }], actions: [bash('ls'), text('{"control":"step_done"}')] });
    const next = model.next.bind(model);
    model.next = async (turn) => {
      seen.push(turn.messages.map((m) => m.content));
      // Pushed while the first turn is under way: the model sees them in its second turn.
      if (seen.length === 1) {
        await handler?.(prompt);
        await handler?.(aid);
      }
      return next(turn);
    };
    const result = await runAgentLoop({ model, tools, client: pushedClient, goal: 'demo' });

    expect(result.stopReason).toBe('completed');
    expect(responses).toEqual(['prompt:acknowledge', 'aid:suggestion_deferred']);
    expect(seen[0]!.some((m) => m.includes('OPERATOR NOTE'))).toBe(false);
    expect(seen[1]).toEqual(
      expect.arrayContaining([
        'OPERATOR NOTE from operator:op-red (high): Stop migrating until the backup ends\n- wait for backup-42',
        'SUGGESTION from operator:op-red: The report failed\n- follow_up: rerun the tests',
      ]),
    );
    // The loop stops listening when it ends.
    expect(handler).toBeUndefined();
  });

  it('honours block, control and prompt, reads control envelopes, replans and verifies', async () => {
    ran.length = 0;
    const { client, hooks, events, responses } = fakeClient();
    const model = scriptedModel({
      plans: [plan, { title: 'demo v2', steps: [step('c')] }],
      actions: [
        bash('rm -rf /'),
        bash('git push --force'),
        bash('curl example.com'),
        text('STEP_DONE'),
        text('{"control":"step_done"}'),
        text('{"control":"replan","reason":"b is obsolete"}'),
        text('{"control":"step_done"}'),
      ],
    });
    let verifications = 0;
    const result = await runAgentLoop({
      model,
      tools,
      client,
      goal: 'demo',
      approvePlan: true,
      verify: async () =>
        ++verifications === 1
          ? { ok: false, type: 'test_failure', summary: '1 test failed', details: [] }
          : { ok: true, type: 'passed', summary: 'ok', details: [] },
    });

    expect(result.stopReason).toBe('completed');
    expect(ran).toEqual(['git push --force-with-lease', 'curl example.com']);
    // Every block is answered (docs/spec/spectrum-and-signals.md#answering-signals: block and control must be), not only the first.
    expect(responses).toEqual(['block:retry_after_fix', 'block:retry_after_fix', 'control:accept_modification', 'prompt:acknowledge']);
    const toolResults = result.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(toolResults[0]).toMatch(/^BLOCKED by permission-check: destructive/);
    expect(toolResults[1]).toMatch(/NOTE: input changed/);
    expect(toolResults[2]).toMatch(/WARNING: network access/);
    expect(result.messages.some((m) => m.content === 'Verification failed: 1 test failed')).toBe(true);
    expect(result.plan?.steps.map((s) => [s.id, s.status])).toEqual([['a', 'done'], ['c', 'done']]);
    expect(hooks.filter((h) => h.trigger === 'pre-tool-use').map((h) => (h.context.loop as JsonObject).iteration)).toEqual([1, 2, 3]);

    const signals = events.flatMap((e) => (e.kind === 'control_signal' ? [e.control_signal] : []));
    expect(signals).toEqual([
      { control: 'step_done', format: 'legacy', step_id: 'a' },
      { control: 'step_done', format: 'structured', step_id: 'a' },
      { control: 'replan', reason: 'b is obsolete', format: 'structured', step_id: 'b' },
      { control: 'step_done', format: 'structured', step_id: 'c' },
    ]);
    expect(events.filter((e) => e.kind === 'verification')).toHaveLength(3);
    expect(events.find((e) => e.kind === 'plan_progress')).toMatchObject({ request_id: 'req_1' });
  });

  it('runs each tool call, hooks included, inside trackToolCall when the client has it', async () => {
    ran.length = 0;
    const { client, hooks } = fakeClient();
    const tracked: string[] = [];
    let inside = 0;
    const hook = client.hook.bind(client);
    client.hook = async (trigger, context, options) => {
      if (trigger.endsWith('tool-use')) expect(inside).toBe(1);
      return hook(trigger, context, options);
    };
    client.trackToolCall = async (name, run) => {
      tracked.push(name);
      inside += 1;
      try {
        return await run();
      } finally {
        inside -= 1;
      }
    };
    const model = scriptedModel({ plans: [{ title: 't', steps: [step('a')] }], actions: [bash('ls'), text('{"control":"step_done"}')] });
    await runAgentLoop({ model, tools, client, goal: 'g' });
    expect(tracked).toEqual(['bash']);
    expect(hooks.map((h) => h.trigger)).toEqual(['pre-tool-use', 'post-tool-use']);
  });

  it('stops with stopReason shutdown once the agent approved a shutdown, before the next tool call', async () => {
    ran.length = 0;
    const { client, hooks } = fakeClient();
    const fake = client as { shutdownApproved?: ProtocolState };
    const model = scriptedModel({ plans: [{ title: 't', steps: [step('a')] }], actions: [bash('echo 1'), bash('echo 2')] });
    const next = model.next.bind(model);
    model.next = async (turn) => {
      const action = await next(turn);
      // The default shutdown policy approves while the model thinks about its second call.
      if (ran.length === 1) fake.shutdownApproved = { request_id: 'req_s' } as ProtocolState;
      return action;
    };
    const phases: AgentLoopPhase[] = [];
    const result = await runAgentLoop({ model, tools, client, goal: 'g', onPhase: (phase) => phases.push(phase) });
    expect(result.stopReason).toBe('shutdown');
    expect(ran).toEqual(['echo 1']);
    expect(hooks.filter((h) => h.trigger === 'pre-tool-use')).toHaveLength(1);
    expect(phases.at(-1)).toBe('stopped');
  });

  it('stops with shutdown, not an error, when the shutdown closes the client under a starting tool call', async () => {
    ran.length = 0;
    const { client } = fakeClient();
    const fake = client as { shutdownApproved?: ProtocolState };
    const hook = client.hook.bind(client);
    let pre = 0;
    client.hook = async (trigger, context, options) => {
      if (trigger === 'pre-tool-use' && ++pre === 2) {
        fake.shutdownApproved = { request_id: 'req_s' } as ProtocolState;
        throw new Error('E_CLOSED: the client was closed');
      }
      return hook(trigger, context, options);
    };
    const model = scriptedModel({ plans: [{ title: 't', steps: [step('a')] }], actions: [bash('echo 1'), bash('echo 2')] });
    await expect(runAgentLoop({ model, tools, client, goal: 'g' })).resolves.toMatchObject({ stopReason: 'shutdown' });
    expect(ran).toEqual(['echo 1']);

    const other = fakeClient();
    other.client.hook = async () => {
      throw new Error('gateway gone');
    };
    await expect(runAgentLoop({ model: scriptedModel({ plans: [{ title: 't', steps: [step('a')] }], actions: [bash('x')] }), tools, client: other.client, goal: 'g' })).rejects.toThrow('gateway gone');
  });

  it('feeds E_STUTTERING back to the model instead of running the call again', async () => {
    ran.length = 0;
    const { client } = fakeClient();
    const model = scriptedModel({ plans: [{ title: 't', steps: [step('a')] }], actions: [bash('ls'), bash('ls'), bash('ls'), text('{"control":"step_done"}')] });
    const result = await runAgentLoop({ model, tools, client, goal: 'g', limits: { maxIdenticalToolCalls: 2 } });
    expect(ran).toEqual(['ls', 'ls']);
    expect(result.messages.filter((m) => m.role === 'tool').at(-1)?.content).toMatch(/^E_STUTTERING/);
    expect(result.stopReason).toBe('completed');
  });

  it('does not run a call whose modification it cannot apply, and rejects the modification', async () => {
    ran.length = 0;
    const { client, responses } = fakeClient();
    const model = scriptedModel({ plans: [{ title: 't', steps: [step('a')] }], actions: [bash('ls --hostile'), text('{"control":"step_done"}')] });
    const result = await runAgentLoop({ model, tools, client, goal: 'g' });
    expect(ran).toEqual([]);
    expect(responses).toEqual(['control:reject_modification']);
    expect(result.messages.filter((m) => m.role === 'tool')[0]?.content).toMatch(/^BLOCKED: modification target "__proto__.polluted"/);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('stops with MAX_ITER and tells the control plane through a stop hook', async () => {
    const { client, hooks } = fakeClient();
    const model = scriptedModel({ plans: [{ title: 't', steps: [step('a')] }], actions: [text('thinking'), text('still thinking')] });
    const result = await runAgentLoop({ model, tools, client, goal: 'g', limits: { maxIterations: 2 } });
    expect(result).toMatchObject({ stopReason: 'MAX_ITER', iterations: 3 });
    expect(hooks.at(-1)).toEqual({ trigger: 'stop', context: { stop_reason: 'MAX_ITER', loop: { iteration: 3 }, plan_step: 'a' } });
  });

  it('asks a person to intervene at MAX_ITER and hands the decision to the application', async () => {
    const { client } = fakeClient();
    const asked: { payload: InterventionPayload; options: RequestInterventionOptions | undefined }[] = [];
    client.requestIntervention = async (payload, options) => {
      asked.push({ payload, options });
      return { requestId: options?.requestId ?? '', type: 'intervention', status: 'approved', approved: true, feedback: 'split step a first' } as RequestDecision;
    };
    const model = scriptedModel({ plans: [{ title: 't', steps: [step('a')] }], actions: [text('thinking'), text('still thinking')] });
    const result = await runAgentLoop({ model, tools, client, goal: 'g', limits: { maxIterations: 2 }, intervention: { target: 'lead' } });
    expect(result.stopReason).toBe('MAX_ITER');
    expect(asked).toHaveLength(1);
    expect(asked[0]?.payload).toMatchObject({ reason: 'MAX_ITER', iteration: 3, plan_step: 'a' });
    expect(asked[0]?.options).toMatchObject({ target: 'lead', requestId: result.intervention?.requestId });
    expect(result.intervention?.requestId).toMatch(/^req_intervention_/);
    await expect(result.intervention?.decision).resolves.toMatchObject({ approved: true, feedback: 'split step a first' });

    const quiet = fakeClient();
    let called = false;
    quiet.client.requestIntervention = async () => {
      called = true;
      throw new Error('not expected');
    };
    const stopped = await runAgentLoop({ model: scriptedModel({ plans: [{ title: 't', steps: [step('a')] }], actions: [text('x'), text('y')] }), tools, client: quiet.client, goal: 'g', limits: { maxIterations: 2 }, intervention: false });
    expect(stopped.intervention).toBeUndefined();
    expect(called).toBe(false);
  });

  it('trims the history it shows the model and aborts when the plan is rejected', async () => {
    const { client } = fakeClient();
    const model = scriptedModel({ plans: [{ title: 't', steps: [step('a')] }], actions: [bash('echo 1'), bash('echo 2'), text('{"control":"step_done"}')] });
    await runAgentLoop({ model, tools, client, goal: 'g', historyBudget: 1, countTokens: () => 1 });
    expect(model.seen.at(-1)?.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);

    const rejected = fakeClient(false);
    const result = await runAgentLoop({ model: scriptedModel({ plans: [plan], actions: [] }), tools, client: rejected.client, goal: 'g', approvePlan: true });
    expect(result.stopReason).toBe('aborted');
    expect(rejected.events).toEqual([]);
  });

  describe('the planning template (docs/spec/plans.md#planning-template)', () => {
    const validPlan = '[PLAN] Clean up\n1. [ ] Remove the build folder (tools: bash)\n2. [ ] Report what was removed (tools: none)';

    it('plans in a PLANNING state first: an invalid plan is refused with reasons and asked again, no tool runs before a valid one', async () => {
      ran.length = 0;
      const { client, hooks, events } = fakeClient();
      const phases: AgentLoopPhase[] = [];
      const ranAt: AgentLoopPhase[] = [];
      const model = scriptedModel({
        texts: ['Sure! I will first run rm -rf build.', '[PLAN]\n1. [ ] Remove the build folder (tools: bash)\n3. [ ] Report (tools: none)', validPlan],
        actions: [bash('rm -rf build'), text('{"control":"step_done"}'), text('Removed build/. STEP_DONE')],
      });
      const result = await runAgentLoop({
        model,
        client,
        goal: 'clean the build folder',
        tools: { bash: async (input) => (ranAt.push(phases.at(-1)!), ran.push(String(input.command)), { ok: true as const, output: 'ok' }) },
        onPhase: (phase) => phases.push(phase),
      });

      expect(result.stopReason).toBe('completed');
      expect(phases).toEqual(['planning', 'executing', 'stopped']);
      expect(ranAt).toEqual(['executing']);
      expect(result.plan?.steps.map((s) => [s.id, s.status, s.tools_expected, s.dependencies])).toEqual([
        ['step_1', 'done', ['bash'], []],
        ['step_2', 'done', [], ['step_1']],
      ]);
      // Three planning turns, each shown the template in the system prompt; refusals carry the reasons.
      expect(model.seen[0]?.[0]?.content).toContain('[PLAN]');
      expect(model.seen[0]?.at(-1)?.content).toMatch(/^State: PLANNING/);
      expect(model.seen[1]?.at(-1)?.content).toMatch(/That plan was refused:\n- no \[PLAN\] line/);
      expect(model.seen[2]?.at(-1)?.content).toMatch(/step 3 where step 2 was due/);
      // No hook and no event before the plan was valid: the first hook is the tool's pre-tool-use of step_1.
      expect(hooks[0]).toMatchObject({ trigger: 'pre-tool-use', context: { plan_step: 'step_1' } });
      expect(events[0]).toMatchObject({ kind: 'plan_progress', plan: { title: 'Clean up' } });
    });

    it('gives up after planningAttempts refusals: stopReason error, the reasons, no tool, no hook, no submission', async () => {
      ran.length = 0;
      const { client, hooks, events } = fakeClient();
      let submitted = 0;
      client.submitPlan = async () => {
        submitted += 1;
        return { requestId: 'req_x', type: 'plan_approval', status: 'approved', approved: true } as RequestDecision;
      };
      const model = scriptedModel({ texts: ['no plan', 'still no plan', '[PLAN]\n1. [ ] x (tools: bash) (after: 1)'], actions: [bash('rm -rf build')] });
      const result = await runAgentLoop({ model, client, tools, goal: 'g', approvePlan: true, planningAttempts: 2 });
      expect(result).toMatchObject({ stopReason: 'error', plan: undefined, iterations: 0 });
      expect(result.planningErrors?.join('\n')).toMatch(/no \[PLAN\] line/);
      expect(model.seen).toHaveLength(2);
      expect(ran).toEqual([]);
      expect(hooks).toEqual([]);
      expect(events).toEqual([]);
      expect(submitted).toBe(0);
    });

    it('submits the parsed plan for approval before executing, and replans through the template keeping finished steps', async () => {
      ran.length = 0;
      const { client } = fakeClient();
      const submitted: Plan[] = [];
      client.submitPlan = async (proposed) => {
        submitted.push(proposed);
        return { requestId: 'req_p', type: 'plan_approval', status: 'approved', approved: true } as RequestDecision;
      };
      const phases: AgentLoopPhase[] = [];
      const model = scriptedModel({
        texts: [validPlan, '[PLAN]\n1. [ ] Report by mail instead (tools: mail)'],
        actions: [text('{"control":"step_done"}'), text('{"control":"replan","reason":"the report goes by mail"}'), text('{"control":"step_done"}')],
      });
      const result = await runAgentLoop({ model, client, tools, goal: 'g', approvePlan: true, onPhase: (phase) => phases.push(phase) });
      expect(phases).toEqual(['planning', 'awaiting_approval', 'executing', 'planning', 'executing', 'stopped']);
      expect(submitted[0]?.steps.map((s) => s.id)).toEqual(['step_1', 'step_2']);
      expect(model.seen[3]?.at(-1)?.content).toMatch(/The plan must change: the report goes by mail[\s\S]*step_1 \(done\)/);
      expect(result.plan?.steps.map((s) => [s.id, s.status, s.description])).toEqual([
        ['step_1', 'done', 'Remove the build folder'],
        ['step_3', 'done', 'Report by mail instead'],
      ]);
      expect(result.stopReason).toBe('completed');
    });

    it('validates plan objects of the model planner too, and refuses a planner the model cannot serve', async () => {
      const { client } = fakeClient();
      const cyclic = { title: 't', steps: [step('a', ['b']), step('b', ['a'])] };
      const result = await runAgentLoop({ model: scriptedModel({ plans: [cyclic, cyclic], actions: [] }), client, tools, goal: 'g', planningAttempts: 2 });
      expect(result).toMatchObject({ stopReason: 'error', plan: undefined });
      expect(result.planningErrors?.join()).toMatch(/dependency cycle/);
      await expect(runAgentLoop({ model: scriptedModel({ plans: [plan], actions: [] }), client, tools, goal: 'g', planner: 'template' })).rejects.toThrow(/complete\(\)/);
    });
  });
});
