// Starts: a private Redis, one gateway process and one oracle-worker process, with rules that read
// the end of a tool's text. Tool inputs and outputs between 64 KiB and 256 KiB characters (a Write
// of a 100 KiB file, a 200 KiB command output) reach the rules whole, over WebSocket (the SDK and a
// raw client) and over Claude Code's hook route; past 256 KiB a post-tool-use result is evaluated
// on what fits and marked partial (post-tool-use fails open by default). Before, each of these was
// refused at the door (E_INVALID_FRAME, a fail-closed deny or block) and no rule ever saw it.
import { randomUUID } from 'node:crypto';
import { LIMITS, type ErrorFrame } from '@ahp/protocol';
import { connect, type AhpClient } from '@ahp/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allWorkersServe, publishThroughStore } from './config-support.js';
import { RawAgent, startSystem, type System } from './harness.js';

/** A key at the very end of a file, and a marker at the very end of an output: only rules that read the whole text see them. */
const CONFIG = `version: 1
hooks:
  pre-tool-use:
    oracles:
      - name: write-guard
        use: rules
        rules:
          - id: no-private-key
            condition: 'default(tool.input.content, "") matches /BEGIN PRIVATE KEY/'
            intensity: block
            message: "no private keys in files"
  post-tool-use:
    oracles:
      - name: result-analysis
        use: rules
        rules:
          - id: saw-the-end
            condition: 'default(tool.output, "") matches /END-OF-OUTPUT/ or default(tool.response.stdout, "") matches /END-OF-OUTPUT/'
            intensity: aid
            message: "the rules read the end of the output"
            suggestions:
              - type: follow_up
                description: "summarise the output"
`;

const KIB = 1024;
/** `chars` characters of filler ending in `tail`. */
const text = (chars: number, tail: string): string => `${'x'.repeat(chars - tail.length - 1)}\n${tail}`;
const KEY = '-----BEGIN PRIVATE KEY-----';
const MARK = 'END-OF-OUTPUT';

describe('large tool text reaches the rules (gateway + worker processes)', () => {
  let system: System;
  let agent: AhpClient;
  let raw: RawAgent;
  let hooksUrl: string;

  beforeAll(async () => {
    system = await startSystem({ name: 'large-tool-text', gateways: 1, workers: 1, agents: [{ id: 'writer', name: 'Writer' }] });
    await allWorkersServe(system, await publishThroughStore(system, CONFIG));
    const url = system.stack.gatewayUrls()[0]!;
    [agent, raw] = await Promise.all([connect({ url, token: system.token('writer') }), RawAgent.connect(url, system.token('writer'))]);
    hooksUrl = `http://127.0.0.1:${String(system.stack.gateways[0]!.ready['port'])}/v1/hooks/claude-code`;
  });

  afterAll(async () => {
    agent?.close();
    raw?.close();
    await system?.stop();
  });

  async function claudeCode(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await fetch(hooksUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${system.token('writer')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 'cc-large', transcript_path: '/tmp/t.jsonl', cwd: '/w', permission_mode: 'default', ...body }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }

  it('SDK: a Write of a 100 KiB file is evaluated whole, and the key at its end blocks it', async () => {
    const result = await agent.hook('pre-tool-use', { tool: { name: 'Write', input: { file_path: 'id.pem', content: text(100 * KIB, KEY) } } });
    expect(result.allowed).toBe(false);
    if (!result.allowed) expect(result.block).toMatchObject({ source: 'write-guard', reason: expect.stringContaining('no private keys') as unknown });
  });

  it('raw WebSocket: the same hook gets the rule’s decision, not a refused frame', async () => {
    const id = randomUUID();
    raw.send({ type: 'hook', id, trigger: 'pre-tool-use', context: { tool: { name: 'Write', input: { file_path: 'id.pem', content: text(100 * KIB, KEY) } } } });
    const answer = await raw.next((frame) => (frame.type === 'decision' || frame.type === 'error') && frame.id === id);
    expect((answer as ErrorFrame).error).toBeUndefined();
    expect(answer).toMatchObject({ type: 'decision', decision: { allowed: false, decided_by: 'oracles' } });
  });

  it('SDK: a 200 KiB post-tool-use output is evaluated whole: the rule reading its end answers', async () => {
    const result = await agent.hook('post-tool-use', { tool: { name: 'bash', input: { command: 'cat big.log' }, ok: true, output: text(200 * KIB, MARK) } });
    expect(result).toMatchObject({ allowed: true, decidedBy: 'oracles' });
    expect(JSON.stringify(result.signals)).toContain('the rules read the end of the output');
  });

  it('Claude Code: a PreToolUse Write of a 100 KiB file is denied by the rule, not by a size refusal', async () => {
    const output = await claudeCode({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: 'id.pem', content: text(100 * KIB, KEY) }, tool_use_id: 't1' });
    expect(output).toMatchObject({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('no private keys') as unknown } });
  });

  it('Claude Code: a PostToolUse with 200 KiB of stdout is evaluated whole', async () => {
    const output = await claudeCode({
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'cat big.log' },
      tool_response: { stdout: text(200 * KIB, MARK), stderr: '', interrupted: false },
      tool_use_id: 't2',
    });
    expect(output['decision']).toBeUndefined();
    expect(JSON.stringify(output)).toContain('the rules read the end of the output');
    expect(JSON.stringify(output)).not.toContain('inspected in part');
  });

  it('Claude Code: past 256 KiB a PostToolUse (fail open) is evaluated on what fits and marked partial', async () => {
    const stdout = `${MARK}\n${text(LIMITS.maxLongText + 10 * KIB, 'tail')}`;
    const output = await claudeCode({
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'cat bigger.log' },
      tool_response: { stdout, stderr: '', interrupted: false },
      tool_use_id: 't3',
    });
    expect(output['decision']).toBeUndefined();
    expect(JSON.stringify(output)).toContain('the rules read the end of the output');
    expect(output['systemMessage']).toContain('inspected in part');
  });
});
