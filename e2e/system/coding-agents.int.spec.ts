// Starts: a private Redis, a gateway process (with operator tokens) and an oracle-worker process
// (tools/stack), with a hooks configuration that blocks force pushes and asks an operator before
// an agent's own approval prompt lets a deploy run. Codex and GitHub Copilot are played by the
// real `ahp hook codex` / `ahp hook copilot <event>` commands (tools/cli/bin/ahp.js, built), fed
// their documented hook inputs on stdin exactly as the agents run a command hook; an operator
// answers over the HTTP API.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { CODEX_OUTPUT_SCHEMAS, COPILOT_EVENTS, COPILOT_OUTPUT_SCHEMAS, FleetResponseSchema, type CodexEvent, type CopilotEvent } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allWorkersServe, publishThroughStore } from './config-support.js';
import { eventually, startSystem, type System } from './harness.js';
import { operatorApi, operatorCall, writeOperatorTokens, type OperatorTokens } from './team-support.js';

/** bin/ahp.js, as installed: it routes `hook codex` to the small hook entry. */
const AHP_BIN = fileURLToPath(new URL('../../tools/cli/bin/ahp.js', import.meta.url));

const CONFIG = `version: 1
hooks:
  pre-tool-use:
    oracles:
      - name: codex-guard
        use: rules
        rules:
          - id: no-force-push
            condition: 'tool.input.command matches /git push --force/'
            intensity: block
            message: "force pushes are not allowed"
          - id: deploy-needs-an-operator
            condition: 'default(client.permission_prompt, false) and tool.input.command matches /deploy/'
            require_approval: { deadline: 10m, message: "a deploy needs an operator" }
`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('Codex through ahp hook codex, against a running stack', () => {
  let system: System;
  let operators: OperatorTokens;
  let api: string;
  const session = randomUUID();

  beforeAll(async () => {
    operators = await writeOperatorTokens([{ id: 'op-maria', name: 'Maria', role: 'approver' }]);
    system = await startSystem({
      name: 'coding-agents',
      agents: [
        { id: 'codex-dev', name: 'Codex (dev)', team: 'web' },
        { id: 'copilot-ci', name: 'Copilot (cloud agent)', team: 'web' },
        { id: 'claude-dev', name: 'Claude Code (dev)', team: 'web' },
      ],
      gatewayEnv: { AHP_OPERATOR_TOKENS_FILE: operators.file },
    });
    api = operatorApi(system.stack.gateways[0]!);
    await allWorkersServe(system, await publishThroughStore(system, CONFIG));
  });

  afterAll(async () => {
    await system?.stop();
    await operators?.remove();
  });

  /** Runs `ahp hook …args` as the agent does: the input on stdin, the answer read from stdout. */
  function hook(input: Record<string, unknown>, args: readonly string[] = ['codex'], agent = 'codex-dev'): Promise<Run> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [AHP_BIN, 'hook', ...args], {
        cwd: system.dir,
        env: { PATH: process.env['PATH'] ?? '', AHP_GATEWAY_URL: `http://127.0.0.1:${String(system.stack.gateways[0]!.ready['port'])}`, AHP_TOKEN: system.token(agent) },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(JSON.stringify(input));
    });
  }

  /** Codex's input of `event` (its common fields first, as Codex writes them). */
  function input(event: CodexEvent, fields: Record<string, unknown> = {}): Record<string, unknown> {
    return { session_id: session, turn_id: 'turn-1', transcript_path: null, cwd: '/home/dev/repo', hook_event_name: event, model: 'gpt-5-codex', permission_mode: 'default', ...fields };
  }

  /** The answer: exit 0, exactly one JSON line on stdout, valid for the event's Codex output schema. */
  async function answer(event: CodexEvent, fields: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const run = await hook(input(event, fields));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.endsWith('\n') && run.stdout.trim().split('\n').length === 1).toBe(true);
    const output = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(CODEX_OUTPUT_SCHEMAS[event].safeParse(output).success, run.stdout).toBe(true);
    return output;
  }

  const bash = (command: string) => ({ tool_name: 'Bash', tool_input: { command }, tool_use_id: `call_${randomUUID()}` });

  it('answers every Codex event, and lets through what no rule objects to without granting anything', async () => {
    expect(await answer('SessionStart', { source: 'startup' })).toEqual({});
    expect(await answer('UserPromptSubmit', { prompt: 'clean up the build folder' })).toEqual({});
    expect(await answer('PreToolUse', bash('ls build'))).toEqual({});
    expect(await answer('PermissionRequest', bash('rm -rf build'))).toEqual({});
    expect(await answer('PostToolUse', { ...bash('ls build'), tool_response: 'a.out' })).toEqual({});
    expect(await answer('PreCompact', { trigger: 'auto' })).toEqual({});
    expect(await answer('PostCompact', { trigger: 'auto' })).toEqual({});
    expect(await answer('Stop', { stop_hook_active: false, last_assistant_message: 'done' })).toEqual({});
  });

  it('denies a force push at PreToolUse with the rule\'s message', async () => {
    expect(await answer('PreToolUse', bash('git push --force origin main'))).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('force pushes are not allowed') as unknown },
    });
  });

  it('decides Codex\'s approval prompt remotely: denied while an operator has not answered, allowed once approved', async () => {
    const deploy = bash('./scripts/deploy.sh production');
    const first = await answer('PermissionRequest', deploy);
    const message = String((first['hookSpecificOutput'] as { decision: { message: string } }).decision.message);
    expect(first).toMatchObject({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny' } } });
    expect(message).toContain('waits for an operator\'s approval');
    const requestId = /request (req_[^,\s)]+)/.exec(message)?.[1];
    expect(requestId).toBeDefined();

    const decided = await operatorCall(api, operators.token('op-maria'), 'POST', `/requests/${requestId}/decision`, { approve: true });
    expect(decided.status, JSON.stringify(decided.json)).toBe(200);

    // Codex asks again for the same call (the model retried it): the operator's yes is the answer.
    expect(await answer('PermissionRequest', { ...deploy, tool_use_id: `call_${randomUUID()}` })).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
  });

  it('shows the session in the fleet as a codex agent', async () => {
    const row = await eventually(async () => {
      const { json } = await operatorCall(api, operators.token('op-maria'), 'GET', '/fleet');
      return FleetResponseSchema.parse(json).agents.find((agent) => agent.agent.id === 'codex-dev' && agent.client === 'codex');
    }, 'the codex row');
    expect(row.last_hook?.trigger).toBeDefined();
  });

  describe('GitHub Copilot through ahp hook copilot <event>', () => {
    const copilotSession = randomUUID();
    const args = (command: string) => JSON.stringify({ command });

    /** The answer to Copilot's camelCase payload of `event`: exit 0, one JSON line, valid for the event. */
    async function copilot(event: CopilotEvent, fields: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
      const run = await hook({ sessionId: copilotSession, timestamp: Date.now(), cwd: '/workspace/repo', ...fields }, ['copilot', event], 'copilot-ci');
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
      const output = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(COPILOT_OUTPUT_SCHEMAS[event].safeParse(output).success, run.stdout).toBe(true);
      return output;
    }

    const FIELDS: Record<CopilotEvent, Record<string, unknown>> = {
      sessionStart: { source: 'new' },
      sessionEnd: { reason: 'complete' },
      userPromptSubmitted: { prompt: 'fix the flaky test' },
      preToolUse: { toolName: 'bash', toolArgs: args('npm test') },
      permissionRequest: { toolName: 'bash', toolArgs: args('npm test') },
      postToolUse: { toolName: 'bash', toolArgs: args('npm test'), toolResult: { resultType: 'success', textResultForLlm: 'ok' } },
      postToolUseFailure: { toolName: 'bash', toolArgs: args('npm test'), error: 'exit 1' },
      agentStop: { transcriptPath: '/tmp/t.jsonl', stopReason: 'end_turn' },
      subagentStop: { transcriptPath: '/tmp/t.jsonl', agentName: 'reviewer', stopReason: 'end_turn' },
      preCompact: { transcriptPath: '/tmp/t.jsonl', trigger: 'auto', customInstructions: '' },
    };

    it('answers every Copilot event it evaluates with {} when nothing objects', async () => {
      // sessionEnd last: it takes the session out of the fleet.
      for (const event of COPILOT_EVENTS.filter((name) => name !== 'sessionEnd')) expect(await copilot(event, FIELDS[event])).toEqual({});
    });

    it('is a copilot row of the fleet', async () => {
      await eventually(async () => {
        const { json } = await operatorCall(api, operators.token('op-maria'), 'GET', '/fleet');
        return FleetResponseSchema.parse(json).agents.find((agent) => agent.agent.id === 'copilot-ci' && agent.client === 'copilot');
      }, 'the copilot row');
    });

    it('denies a force push at preToolUse, and decides the permission prompt of a deploy remotely', async () => {
      expect(await copilot('preToolUse', { toolName: 'bash', toolArgs: args('git push --force') })).toEqual({
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringContaining('force pushes are not allowed') as unknown,
      });
      const deploy = { toolName: 'bash', toolArgs: args('./scripts/deploy.sh staging') };
      const first = await copilot('permissionRequest', deploy);
      expect(first).toMatchObject({ behavior: 'deny', message: expect.stringContaining('waits for an operator\'s approval') as unknown });
      const requestId = /request (req_[^,\s)]+)/.exec(String(first['message']))?.[1];
      const decided = await operatorCall(api, operators.token('op-maria'), 'POST', `/requests/${requestId}/decision`, { approve: true });
      expect(decided.status, JSON.stringify(decided.json)).toBe(200);
      expect(await copilot('permissionRequest', deploy)).toEqual({ behavior: 'allow' });
      expect(await copilot('sessionEnd', FIELDS.sessionEnd)).toEqual({});
    });
  });

  describe('Claude Code\'s permission dialog (PermissionRequest over HTTP)', () => {
    it('is denied while it waits, then allowed with the input the operator edited', async () => {
      const gateway = `http://127.0.0.1:${String(system.stack.gateways[0]!.ready['port'])}`;
      const body = {
        session_id: randomUUID(),
        transcript_path: '/home/dev/.claude/t.jsonl',
        cwd: '/home/dev/repo',
        permission_mode: 'default',
        hook_event_name: 'PermissionRequest',
        tool_name: 'Bash',
        tool_input: { command: './scripts/deploy.sh production', description: 'deploy' },
      };
      const post = async () => {
        const response = await fetch(`${gateway}/v1/hooks/claude-code`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${system.token('claude-dev')}` },
          body: JSON.stringify(body),
        });
        expect(response.status).toBe(200);
        return (await response.json()) as { hookSpecificOutput?: { decision?: { behavior: string; message?: string; updatedInput?: unknown } } };
      };
      const first = await post();
      expect(first.hookSpecificOutput?.decision?.behavior).toBe('deny');
      const requestId = /request (req_[^,\s)]+)/.exec(first.hookSpecificOutput?.decision?.message ?? '')?.[1];
      const edited = { command: './scripts/deploy.sh staging', description: 'deploy' };
      const decided = await operatorCall(api, operators.token('op-maria'), 'POST', `/requests/${requestId}/decision`, { approve: true, modified_input: edited });
      expect(decided.status, JSON.stringify(decided.json)).toBe(200);
      expect((await post()).hookSpecificOutput).toEqual({ hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput: edited } });
    });
  });
});
