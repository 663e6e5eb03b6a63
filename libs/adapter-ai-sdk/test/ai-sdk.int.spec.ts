// Starts: a private Redis, a gateway process and an oracle-worker process (tools/adapter-harness),
// with rules that block `shell rm -rf /…`, rewrite `deploy` to production into staging, and hand
// `refund` to an operator. The AI SDK's generateText runs for real (tool(), multi-step tool calls,
// toolApproval and tool-approval-response) with ai/test's MockLanguageModelV4 in place of a network
// model; the agent connects with the AHP SDK, and the operator decides through the operator API.
import { generateText, isStepCount, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { connect, type AhpClient } from '@ahp/sdk';
import { ADAPTER_TEST_HOOKS, eventually, startAdapterStack, type AdapterStack } from '@ahp/adapter-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type {} from '@ahp/embedded-redis/vitest-global-setup';
import { z } from 'zod';
import { ahpApprovalOf, ahpToolApproval, ahpTools, approveWhenDecided } from '../src/index.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model that makes the given tool calls, one per step, then answers "done". */
function scriptedModel(calls: readonly { name: string; args: Record<string, unknown> }[]) {
  return new MockLanguageModelV4({
    doGenerate: [
      ...calls.map((call) => ({
        content: [{ type: 'tool-call' as const, toolCallId: `call_${globalThis.crypto.randomUUID()}`, toolName: call.name, input: JSON.stringify(call.args) }],
        finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
        usage,
        warnings: [],
      })),
      { content: [{ type: 'text' as const, text: 'done' }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] },
    ],
  });
}

/** The tool results the model was shown in its last call. */
function toolResults(model: MockLanguageModelV4): string[] {
  const prompt = model.doGenerateCalls.at(-1)?.prompt ?? [];
  return prompt.flatMap((message) =>
    message.role !== 'tool'
      ? []
      : message.content.flatMap((part) => {
          if (part.type !== 'tool-result') return [];
          const output = part.output as { type: string; value?: unknown };
          return [typeof output.value === 'string' ? output.value : JSON.stringify(output.value)];
        }),
  );
}

describe('AI SDK tools wrapped with AHP', () => {
  let stack: AdapterStack;
  let client: AhpClient;
  const ran: { tool: string; input: unknown }[] = [];

  const bind = () =>
    ahpTools(
      {
        shell: tool({
          description: 'Run a shell command',
          inputSchema: z.object({ command: z.string() }),
          execute: async (input) => {
            ran.push({ tool: 'shell', input });
            return `ran ${input.command}`;
          },
        }),
        deploy: tool({
          description: 'Deploy the service',
          inputSchema: z.object({ service: z.string(), env: z.string() }),
          execute: async (input) => {
            ran.push({ tool: 'deploy', input });
            return `deployed ${input.service} to ${input.env}`;
          },
        }),
        refund: tool({
          description: 'Refund an order',
          inputSchema: z.object({ order: z.string(), amount: z.number() }),
          execute: async (input) => {
            ran.push({ tool: 'refund', input });
            return `refunded ${String(input.amount)} on ${input.order}`;
          },
        }),
      },
      { client, extra: { framework: 'ai-sdk' } },
    );

  beforeAll(async () => {
    stack = await startAdapterStack({ name: 'ai-sdk', redisUrl: inject('redisUrl'), hooksConfig: ADAPTER_TEST_HOOKS });
    client = await connect({ url: stack.agentUrl, token: stack.token() });
  });

  afterAll(async () => {
    await client?.close();
    await stack?.stop();
  });

  it('a blocked call never executes: the tool returns the reason to the model', async () => {
    ran.length = 0;
    const model = scriptedModel([{ name: 'shell', args: { command: 'rm -rf /var' } }]);
    const result = await generateText({ model, tools: bind().tools, prompt: 'clean up', stopWhen: isStepCount(3) });
    expect(result.text).toBe('done');
    expect(ran).toEqual([]);
    const [output] = toolResults(model);
    expect(output).toContain('BLOCKED by adapter-rules: deleting from the root is never allowed');
  });

  it('a rewritten call executes with the new input', async () => {
    ran.length = 0;
    const model = scriptedModel([{ name: 'deploy', args: { service: 'api', env: 'production' } }]);
    await generateText({ model, tools: bind().tools, prompt: 'ship it', stopWhen: isStepCount(3) });
    expect(ran).toEqual([{ tool: 'deploy', input: { service: 'api', env: 'staging' } }]);
    expect(toolResults(model)[0]).toContain('deployed api to staging');
  });

  it('an approval is the SDK tool-approval-request; the call runs after the operator approves, with their changes', async () => {
    ran.length = 0;
    const model = scriptedModel([{ name: 'refund', args: { order: 'A-17', amount: 900 } }]);
    const binding = bind();
    const messages: ModelMessage[] = [{ role: 'user', content: 'refund A-17' }];
    const first = await generateText({ model, tools: binding.tools, toolApproval: ahpToolApproval(binding), messages, stopWhen: isStepCount(3) });
    const requests = first.content.filter((part) => part.type === 'tool-approval-request');
    expect(requests).toHaveLength(1);
    expect(ran).toEqual([]);
    const approval = ahpApprovalOf(binding, requests[0]!);
    expect((await stack.request(approval!.requestId)).payload).toMatchObject({ tool: 'refund', input: { order: 'A-17', amount: 900 } });

    const answer = approveWhenDecided(client, binding, first.content);
    await stack.decide(approval!.requestId, { approve: true, modified_input: { order: 'A-17', amount: 450 } });
    const response = await answer;
    expect(response).toBeDefined();
    messages.push(...first.response.messages, response!);
    const second = await generateText({ model, tools: binding.tools, toolApproval: ahpToolApproval(binding), messages, stopWhen: isStepCount(3) });
    expect(second.text).toBe('done');
    expect(ran).toEqual([{ tool: 'refund', input: { order: 'A-17', amount: 450 } }]);
  });

  it('without toolApproval, execute waits for the operator: a rejection never executes and the model gets the feedback', async () => {
    ran.length = 0;
    const model = scriptedModel([{ name: 'refund', args: { order: 'B-2', amount: 5000 } }]);
    const running = generateText({ model, tools: bind().tools, prompt: 'refund B-2', stopWhen: isStepCount(3) });
    const [pending] = await eventually(async () => {
      const found = await stack.requests({ status: 'pending', type: 'tool_approval' });
      return found.length > 0 ? found : undefined;
    }, 'the approval request');
    expect(pending!.payload).toMatchObject({ tool: 'refund', input: { order: 'B-2', amount: 5000 } });
    await stack.decide(pending!.request_id, { approve: false, feedback: 'not without a ticket' });
    const result = await running;
    expect(result.text).toBe('done');
    expect(ran).toEqual([]);
    expect(toolResults(model)[0]).toContain('not without a ticket');
  });
});
