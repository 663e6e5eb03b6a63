// Starts: a private Redis, a gateway process and an oracle-worker process (tools/adapter-harness),
// with rules that block `shell rm -rf /…`, rewrite `deploy` to production into staging, and hand
// `refund` to an operator. The OpenAI Agents SDK runs for real (Agent, Runner, tool(), RunState
// interruptions) with a scripted Model in place of a network model; the agent connects with the
// AHP SDK, and the operator decides through the gateway's operator API.
import { Agent, InputGuardrailTripwireTriggered, Runner, tool, Usage, type AgentInputItem, type Model, type ModelRequest, type ModelResponse, type StreamEvent } from '@openai/agents';
import { connect, type AhpClient } from '@ahp/sdk';
import { ADAPTER_TEST_HOOKS, startAdapterStack, type AdapterStack } from '@ahp/adapter-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type {} from '@ahp/embedded-redis/vitest-global-setup';
import { z } from 'zod';
import { ahpApprovalOf, ahpInputGuardrail, approveWhenDecided, withAhp } from '../src/index.js';

/** A model that plays tool calls, one per turn, then answers with text; records what it was sent. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  #turn = 0;
  constructor(private readonly calls: readonly { name: string; args: Record<string, unknown> }[]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const call = this.calls[this.#turn];
    this.#turn += 1;
    const output: ModelResponse['output'] =
      call === undefined
        ? [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }]
        : [{ type: 'function_call', callId: `call_${globalThis.crypto.randomUUID()}`, name: call.name, arguments: JSON.stringify(call.args), status: 'completed' }];
    return { usage: new Usage(), output };
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error('the scripted model does not stream');
  }
}

/** What the tool outputs the model got back, in order. */
function toolOutputs(model: ScriptedModel): string[] {
  const last = model.requests.at(-1);
  const items = (Array.isArray(last?.input) ? last.input : []) as AgentInputItem[];
  return items.flatMap((item) => {
    if (item.type !== 'function_call_result') return [];
    const output = item.output as unknown;
    if (typeof output === 'string') return [output];
    if (typeof output === 'object' && output !== null && 'text' in output) return [String((output as { text: unknown }).text)];
    return [JSON.stringify(output)];
  });
}

describe('@openai/agents tools wrapped with AHP', () => {
  let stack: AdapterStack;
  let client: AhpClient;
  const ran: { tool: string; input: unknown }[] = [];
  const runner = new Runner({ tracingDisabled: true });

  const tools = () =>
    withAhp(
      [
        tool({
          name: 'shell',
          description: 'Run a shell command',
          parameters: z.object({ command: z.string() }),
          execute: async (input) => {
            ran.push({ tool: 'shell', input });
            return `ran ${input.command}`;
          },
        }),
        tool({
          name: 'deploy',
          description: 'Deploy the service',
          parameters: z.object({ service: z.string(), env: z.string() }),
          execute: async (input) => {
            ran.push({ tool: 'deploy', input });
            return `deployed ${input.service} to ${input.env}`;
          },
        }),
        tool({
          name: 'refund',
          description: 'Refund an order',
          parameters: z.object({ order: z.string(), amount: z.number() }),
          execute: async (input) => {
            ran.push({ tool: 'refund', input });
            return `refunded ${String(input.amount)} on ${input.order}`;
          },
        }),
      ],
      { client, extra: { framework: 'openai-agents' } },
    );

  beforeAll(async () => {
    stack = await startAdapterStack({ name: 'openai-agents', redisUrl: inject('redisUrl'), hooksConfig: ADAPTER_TEST_HOOKS });
    client = await connect({ url: stack.agentUrl, token: stack.token() });
  });

  afterAll(async () => {
    await client?.close();
    await stack?.stop();
  });

  it('a blocked call never executes: the tool returns the reason to the model', async () => {
    ran.length = 0;
    const model = new ScriptedModel([{ name: 'shell', args: { command: 'rm -rf /var' } }]);
    const agent = new Agent({ name: 'ops', instructions: 'help', model, tools: tools() });
    const result = await runner.run(agent, 'clean up');
    expect(result.finalOutput).toBe('done');
    expect(ran).toEqual([]);
    const [output] = toolOutputs(model);
    expect(output).toContain('BLOCKED by adapter-rules: deleting from the root is never allowed');
    expect(output).toContain('delete inside the project folder instead');
  });

  it('a rewritten call executes with the new input', async () => {
    ran.length = 0;
    const model = new ScriptedModel([{ name: 'deploy', args: { service: 'api', env: 'production' } }]);
    const agent = new Agent({ name: 'ops', instructions: 'help', model, tools: tools() });
    await runner.run(agent, 'ship it');
    expect(ran).toEqual([{ tool: 'deploy', input: { service: 'api', env: 'staging' } }]);
    const [output] = toolOutputs(model);
    expect(output).toContain('deployed api to staging');
    expect(output).toContain('NOTE: input changed by the control plane: env → "staging" (deploys go to staging first)');
  });

  it('an allowed call runs unchanged', async () => {
    ran.length = 0;
    const model = new ScriptedModel([{ name: 'shell', args: { command: 'ls' } }]);
    await runner.run(new Agent({ name: 'ops', instructions: 'help', model, tools: tools() }), 'list');
    expect(ran).toEqual([{ tool: 'shell', input: { command: 'ls' } }]);
    expect(toolOutputs(model)).toEqual(['ran ls']);
  });

  it('an approval is an SDK interruption; the run resumes after the operator approves, with their changes', async () => {
    ran.length = 0;
    const model = new ScriptedModel([{ name: 'refund', args: { order: 'A-17', amount: 900 } }]);
    const agent = new Agent({ name: 'billing', instructions: 'help', model, tools: tools() });
    const first = await runner.run(agent, 'refund A-17');
    expect(first.interruptions).toHaveLength(1);
    expect(ran).toEqual([]);
    const approval = ahpApprovalOf(first.interruptions[0]!);
    expect(approval?.requestId).toMatch(/^req_tool_/);
    const pending = await stack.request(approval!.requestId);
    expect(pending).toMatchObject({ status: 'pending', type: 'tool_approval', payload: { tool: 'refund', input: { order: 'A-17', amount: 900 } } });

    const approved = approveWhenDecided(client, first.state);
    await stack.decide(approval!.requestId, { approve: true, feedback: 'half of it', modified_input: { order: 'A-17', amount: 450 } });
    expect(await approved).toHaveLength(1);
    const second = await runner.run(agent, first.state);
    expect(second.interruptions ?? []).toHaveLength(0);
    expect(second.finalOutput).toBe('done');
    expect(ran).toEqual([{ tool: 'refund', input: { order: 'A-17', amount: 450 } }]);
    expect((await stack.request(approval!.requestId)).status).toBe('approved');
  });

  it('a rejected approval never executes: the model gets the operator feedback', async () => {
    ran.length = 0;
    const model = new ScriptedModel([{ name: 'refund', args: { order: 'B-2', amount: 5000 } }]);
    const agent = new Agent({ name: 'billing', instructions: 'help', model, tools: tools() });
    const first = await runner.run(agent, 'refund B-2');
    const approval = ahpApprovalOf(first.interruptions[0]!);
    await stack.decide(approval!.requestId, { approve: false, feedback: 'not without a ticket' });
    await approveWhenDecided(client, first.state);
    await runner.run(agent, first.state);
    expect(ran).toEqual([]);
    expect(toolOutputs(model)[0]).toContain('not without a ticket');
  });

  it('the input guardrail trips on a prompt the rules block', async () => {
    const model = new ScriptedModel([]);
    const agent = new Agent({ name: 'ops', instructions: 'help', model, inputGuardrails: [ahpInputGuardrail(client)] });
    await expect(runner.run(agent, 'my password is hunter2')).rejects.toBeInstanceOf(InputGuardrailTripwireTriggered);
    const fine = await runner.run(agent, 'hello');
    expect(fine.finalOutput).toBe('done');
    // The guardrail runs before the model: the refused prompt never reached it.
    expect(model.requests).toHaveLength(1);
  });
});
