// Starts: a private Redis, a gateway process and an oracle-worker process (tools/adapter-harness),
// with rules that block `shell rm -rf /…`, rewrite `deploy` to production into staging, and hand
// `refund` to an operator. LangGraph runs for real (StateGraph over MessagesAnnotation, the prebuilt
// ToolNode, a MemorySaver checkpointer, interrupt() and Command({ resume })); the model is a plain
// node that plays scripted tool calls. The agent connects with the AHP SDK; the operator decides
// through the gateway's operator API.
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph, type Interrupt } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { connect, type AhpClient } from '@ahp/sdk';
import { ADAPTER_TEST_HOOKS, startAdapterStack, type AdapterStack } from '@ahp/adapter-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type {} from '@ahp/embedded-redis/vitest-global-setup';
import { z } from 'zod';
import { ahpApprovalsOf, ahpTools, resumeWhenDecided } from '../src/index.js';

describe('LangGraph tools wrapped with AHP', () => {
  let stack: AdapterStack;
  let client: AhpClient;
  const ran: { tool: string; input: unknown }[] = [];

  /** A graph whose model node plays `calls` (one tool call per turn), then says "done". */
  function graph(calls: readonly { name: string; args: Record<string, unknown> }[]) {
    const script = [...calls];
    const tools = ahpTools(
      [
        tool(
          async (input: { command: string }) => {
            ran.push({ tool: 'shell', input });
            return `ran ${input.command}`;
          },
          { name: 'shell', description: 'Run a shell command', schema: z.object({ command: z.string() }) },
        ),
        tool(
          async (input: { service: string; env: string }) => {
            ran.push({ tool: 'deploy', input });
            return `deployed ${input.service} to ${input.env}`;
          },
          { name: 'deploy', description: 'Deploy the service', schema: z.object({ service: z.string(), env: z.string() }) },
        ),
        tool(
          async (input: { order: string; amount: number }) => {
            ran.push({ tool: 'refund', input });
            return `refunded ${String(input.amount)} on ${input.order}`;
          },
          { name: 'refund', description: 'Refund an order', schema: z.object({ order: z.string(), amount: z.number() }) },
        ),
      ],
      { client, extra: { framework: 'langgraph' } },
    );
    const model = () => {
      const next = script.shift();
      return {
        messages: [
          next === undefined
            ? new AIMessage('done')
            : new AIMessage({ content: '', tool_calls: [{ id: `call_${globalThis.crypto.randomUUID()}`, name: next.name, args: next.args, type: 'tool_call' }] }),
        ],
      };
    };
    return new StateGraph(MessagesAnnotation)
      .addNode('model', model)
      .addNode('tools', new ToolNode(tools))
      .addEdge(START, 'model')
      .addConditionalEdges('model', (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : END))
      .addEdge('tools', 'model')
      .compile({ checkpointer: new MemorySaver() });
  }

  const toolOutputs = (messages: BaseMessage[]) => messages.filter((m) => m instanceof ToolMessage).map((m) => String(m.content));
  const thread = () => ({ configurable: { thread_id: globalThis.crypto.randomUUID() } });

  beforeAll(async () => {
    stack = await startAdapterStack({ name: 'langgraph', redisUrl: inject('redisUrl'), hooksConfig: ADAPTER_TEST_HOOKS });
    client = await connect({ url: stack.agentUrl, token: stack.token() });
  });

  afterAll(async () => {
    await client?.close();
    await stack?.stop();
  });

  it('a blocked call never executes: the tool returns the reason to the model', async () => {
    ran.length = 0;
    const result = await graph([{ name: 'shell', args: { command: 'rm -rf /var' } }]).invoke({ messages: [{ role: 'user', content: 'clean up' }] }, thread());
    expect(ran).toEqual([]);
    expect(toolOutputs(result.messages)[0]).toContain('BLOCKED by adapter-rules: deleting from the root is never allowed');
    expect(String(result.messages.at(-1)?.content)).toBe('done');
  });

  it('a rewritten call executes with the new input', async () => {
    ran.length = 0;
    const result = await graph([{ name: 'deploy', args: { service: 'api', env: 'production' } }]).invoke({ messages: [{ role: 'user', content: 'ship it' }] }, thread());
    expect(ran).toEqual([{ tool: 'deploy', input: { service: 'api', env: 'staging' } }]);
    expect(toolOutputs(result.messages)[0]).toContain('deployed api to staging');
  });

  it('an approval interrupts the graph; Command({ resume }) continues it after the operator approves, with their changes', async () => {
    ran.length = 0;
    const app = graph([{ name: 'refund', args: { order: 'A-17', amount: 900 } }]);
    const config = thread();
    const paused = await app.invoke({ messages: [{ role: 'user', content: 'refund A-17' }] }, config);
    const interrupts = (paused as { __interrupt__?: Interrupt[] }).__interrupt__;
    const [approval] = ahpApprovalsOf(interrupts);
    expect(approval).toMatchObject({ kind: 'ahp_approval', tool: 'refund', input: { order: 'A-17', amount: 900 } });
    expect(approval!.requestId).toMatch(/^req_tool_/);
    expect(ran).toEqual([]);
    const snapshot = await app.getState(config);
    expect(snapshot.next).toEqual(['tools']);

    const resume = resumeWhenDecided(client, interrupts);
    await stack.decide(approval!.requestId, { approve: true, modified_input: { order: 'A-17', amount: 450 } });
    const result = await app.invoke(await resume, config);
    expect(ran).toEqual([{ tool: 'refund', input: { order: 'A-17', amount: 450 } }]);
    expect(toolOutputs(result.messages)[0]).toContain('refunded 450 on A-17');
    expect(String(result.messages.at(-1)?.content)).toBe('done');
    // The node ran again on resume, and its first round got the same request back: one request only.
    const requests = await stack.requests({ type: 'tool_approval' });
    expect(requests.filter((r) => (r.payload as { input?: { order?: string } }).input?.order === 'A-17')).toHaveLength(1);
  });

  it('a rejected approval never executes: the model gets the operator feedback', async () => {
    ran.length = 0;
    const app = graph([{ name: 'refund', args: { order: 'B-2', amount: 5000 } }]);
    const config = thread();
    const paused = await app.invoke({ messages: [{ role: 'user', content: 'refund B-2' }] }, config);
    const interrupts = (paused as { __interrupt__?: Interrupt[] }).__interrupt__;
    const [approval] = ahpApprovalsOf(interrupts);
    await stack.decide(approval!.requestId, { approve: false, feedback: 'not without a ticket' });
    const result = await app.invoke(await resumeWhenDecided(client, interrupts), config);
    expect(ran).toEqual([]);
    expect(toolOutputs(result.messages)[0]).toContain('not without a ticket');
  });
});
