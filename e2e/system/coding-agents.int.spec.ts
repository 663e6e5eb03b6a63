// Starts: a private Redis, a gateway process (with operator tokens) and an oracle-worker process
// (tools/stack), with a hooks configuration that blocks force pushes and asks an operator before
// an agent's own approval prompt lets a deploy run. Malformed inputs go through the same commands:
// a pre-tool-use hook AHP cannot read must come out as a deny, never as an allow. Codex and GitHub Copilot are played by the
// real `ahp hook codex` / `ahp hook copilot <event>` commands (tools/cli/bin/ahp.js, built), fed
// their documented hook inputs on stdin exactly as the agents run a command hook; an operator
// answers over the HTTP API of the second gateway while the first one holds the prompt.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { CODEX_OUTPUT_SCHEMAS, COPILOT_EVENTS, COPILOT_OUTPUT_SCHEMAS, FleetResponseSchema, RequestListResponseSchema, type CodexEvent, type CopilotEvent } from '@ahp/protocol';
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
          - id: migrations-need-an-operator
            condition: 'default(client.permission_prompt, false) and tool.input.command matches /migrate/'
            require_approval: { deadline: 10m, message: "a migration needs an operator", prompt_fallback: deny }
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
      // The prompts are held on the first gateway; operators decide on the second.
      gateways: 2,
    });
    api = operatorApi(system.stack.gateways[1]!);
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

  /** The id of the pending tool approval a rule opened for the command `command` (once it exists). */
  function pendingRequestFor(command: string): Promise<string> {
    return eventually(async () => {
      const { json } = await operatorCall(api, operators.token('op-maria'), 'GET', '/requests?status=pending&type=tool_approval');
      const found = RequestListResponseSchema.parse(json).requests.find((request) => request.type === 'tool_approval' && request.payload.input['command'] === command);
      return found?.request_id;
    }, `the approval request of ${command}`);
  }

  it('answers every Codex event, and lets through what no rule objects to without granting anything', async () => {
    expect(await answer('SessionStart', { source: 'startup' })).toEqual({});
    expect(await answer('UserPromptSubmit', { prompt: 'clean up the build folder' })).toEqual({});
    expect(await answer('PreToolUse', bash('ls build'))).toEqual({});
    expect(await answer('PermissionRequest', bash('rm -rf build'))).toEqual({});
    expect(await answer('PostToolUse', { ...bash('ls build'), tool_response: 'a.out' })).toEqual({});
    expect(await answer('PreCompact', { trigger: 'auto' })).toEqual({});
    expect(await answer('PostCompact', { trigger: 'auto' })).toEqual({});
    expect(await answer('Stop', { stop_hook_active: false, last_assistant_message: 'done' })).toEqual({});
    expect(await answer('SubagentStart', { agent_id: 'agent-1', agent_type: 'explorer' })).toEqual({});
    expect(await answer('SubagentStop', { agent_id: 'agent-1', agent_type: 'explorer', agent_transcript_path: null, stop_hook_active: false, last_assistant_message: 'found it' })).toEqual({});
    expect(await answer('StopFailure', { error: 'overloaded', error_details: null, last_assistant_message: null })).toEqual({});
  });

  it('denies a force push at PreToolUse with the rule\'s message', async () => {
    expect(await answer('PreToolUse', bash('git push --force origin main'))).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('force pushes are not allowed') as unknown },
    });
  });

  it('denies a PreToolUse and a PermissionRequest it cannot read (a string tool_input, no session_id): exit 0, the deny on stdout, never an allow', async () => {
    const malformed: [CodexEvent, Record<string, unknown>][] = [
      ['PreToolUse', input('PreToolUse', { tool_name: 'Bash', tool_input: 'git push --force', tool_use_id: 'call_string' })],
      ['PermissionRequest', input('PermissionRequest', { tool_name: 'Bash', tool_input: 'git push --force' })],
      ['PreToolUse', (({ session_id: _dropped, ...rest }) => rest)(input('PreToolUse', bash('ls build')))],
    ];
    for (const [event, body] of malformed) {
      const run = await hook(body);
      // The gateway refuses the input (400); the command answers in the event's own form.
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('the gateway refused the hook (HTTP 400, E_INVALID_FRAME)');
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
      const output = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(CODEX_OUTPUT_SCHEMAS[event].safeParse(output).success, run.stdout).toBe(true);
      expect(output).toEqual(
        event === 'PreToolUse'
          ? { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('denied because tool calls fail closed') as unknown } }
          : { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: expect.stringContaining('denied because tool calls fail closed') as unknown } } },
      );
    }
  });

  it('holds Codex\'s approval prompt until an operator approves it on another gateway, then allows it', async () => {
    const deploy = bash('./scripts/deploy.sh production');
    const held = answer('PermissionRequest', deploy);
    const requestId = await pendingRequestFor('./scripts/deploy.sh production');
    const decided = await operatorCall(api, operators.token('op-maria'), 'POST', `/requests/${requestId}/decision`, { approve: true });
    expect(decided.status, JSON.stringify(decided.json)).toBe(200);
    expect(await held).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
  });

  it('denies a held Codex prompt nobody decided when its rule says prompt_fallback: deny, and records the fallback on the request', async () => {
    const run = await hook(input('PermissionRequest', bash('npm run migrate')), ['codex', '--wait', '1500']);
    expect(run.code, run.stderr).toBe(0);
    const output = JSON.parse(run.stdout) as { hookSpecificOutput: { decision: { behavior: string; message: string } } };
    expect(output.hookSpecificOutput.decision).toMatchObject({ behavior: 'deny', message: expect.stringContaining('was not decided in time') as unknown });
    const requestId = /request (req_[^\s,)]+)/.exec(output.hookSpecificOutput.decision.message)?.[1];
    const detail = await operatorCall(api, operators.token('op-maria'), 'GET', `/requests/${requestId}`);
    expect((detail.json as { history: { event: string; actor: { kind: string } }[] }).history).toContainEqual(expect.objectContaining({ event: 'prompt_fallback', actor: { kind: 'system', id: 'system' } }));
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

    it('reads the VS Code compatible (PascalCase, snake_case) payloads too', async () => {
      const run = await hook(
        { hook_event_name: 'PreToolUse', session_id: copilotSession, timestamp: new Date().toISOString(), cwd: '/workspace/repo', tool_name: 'bash', tool_input: { command: 'git push --force' } },
        ['copilot', 'PreToolUse'],
        'copilot-ci',
      );
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('force pushes are not allowed') as unknown });
    });

    it('denies a tool call whose toolArgs it cannot read (not JSON text, not an object) instead of letting it through', async () => {
      // The gateway refuses such a hook before any rule sees it (whatever rules are published: a
      // configuration whose rules do not read the input must not let it through either), and the
      // command answers the refusal with a deny.
      for (const toolArgs of ['{"command": "git push --force"', 42, ['git', 'push', '--force']]) {
        expect(await copilot('preToolUse', { toolName: 'bash', toolArgs })).toEqual({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/refused the hook \(HTTP 400, E_INVALID_FRAME\)\); denied because tool calls fail closed/) as unknown });
      }
      expect(await copilot('permissionRequest', { toolName: 'bash', toolArgs: 'rm -rf /' })).toEqual({ behavior: 'deny', message: expect.stringMatching(/refused the hook \(HTTP 400, E_INVALID_FRAME\)\); denied because tool calls fail closed/) as unknown });
    });

    it('denies a preToolUse and a permissionRequest the gateway refuses as malformed (no sessionId, no toolName): exit 0, the deny on stdout', async () => {
      for (const [event, body] of [
        ['preToolUse', { timestamp: Date.now(), cwd: '/workspace/repo', toolName: 'bash', toolArgs: args('git push --force') }],
        ['permissionRequest', { sessionId: copilotSession, timestamp: Date.now(), cwd: '/workspace/repo', toolArgs: args('git push --force') }],
      ] as const) {
        const run = await hook(body, ['copilot', event], 'copilot-ci');
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toContain('the gateway refused the hook (HTTP 400, E_INVALID_FRAME)');
        const output = JSON.parse(run.stdout) as Record<string, unknown>;
        expect(COPILOT_OUTPUT_SCHEMAS[event].safeParse(output).success, run.stdout).toBe(true);
        expect(output).toMatchObject(event === 'preToolUse' ? { permissionDecision: 'deny' } : { behavior: 'deny' });
      }
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
      const held = copilot('permissionRequest', deploy);
      const requestId = await pendingRequestFor('./scripts/deploy.sh staging');
      const decided = await operatorCall(api, operators.token('op-maria'), 'POST', `/requests/${requestId}/decision`, { approve: false, feedback: 'not before the release' });
      expect(decided.status, JSON.stringify(decided.json)).toBe(200);
      expect(await held).toEqual({ behavior: 'deny', message: 'Blocked by AHP: not before the release' });
      expect(await copilot('sessionEnd', FIELDS.sessionEnd)).toEqual({});
    });
  });

  describe('Claude Code\'s permission dialog (PermissionRequest over HTTP)', () => {
    const gateway = () => `http://127.0.0.1:${String(system.stack.gateways[0]!.ready['port'])}`;
    const dialog = (command: string) => ({
      session_id: randomUUID(),
      transcript_path: '/home/dev/.claude/t.jsonl',
      cwd: '/home/dev/repo',
      permission_mode: 'default',
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command, description: 'deploy' },
    });
    type Output = { systemMessage?: string; hookSpecificOutput?: { decision?: { behavior: string; message?: string; updatedInput?: unknown } } };
    const post = async (body: unknown, headers: Record<string, string> = {}): Promise<Output> => {
      const response = await fetch(`${gateway()}/v1/hooks/claude-code`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${system.token('claude-dev')}`, ...headers },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as Output;
    };

    it('denies the dialog of a call a rule blocks, at once and in the dialog\'s form, over HTTP and through ahp hook claude-code', async () => {
      const denied = { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: expect.stringContaining('force pushes are not allowed') as unknown } };
      expect((await post(dialog('git push --force origin main'))).hookSpecificOutput).toEqual(denied);
      const run = await hook(dialog('git push --force origin release'), ['claude-code'], 'claude-dev');
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
      expect((JSON.parse(run.stdout) as Output).hookSpecificOutput).toEqual(denied);
      // A block opens no approval request: nobody is asked about a call the rules refuse.
      const { json } = await operatorCall(api, operators.token('op-maria'), 'GET', '/requests?status=pending&type=tool_approval');
      expect(RequestListResponseSchema.parse(json).requests.filter((request) => request.type === 'tool_approval' && String(request.payload.input['command']).startsWith('git push --force'))).toEqual([]);
    });

    it('waits while an operator decides, then allows with the input the operator edited', async () => {
      const body = dialog('./scripts/deploy.sh production --all');
      const held = post(body);
      const requestId = await pendingRequestFor('./scripts/deploy.sh production --all');
      const edited = { command: './scripts/deploy.sh staging', description: 'deploy' };
      const decided = await operatorCall(api, operators.token('op-maria'), 'POST', `/requests/${requestId}/decision`, { approve: true, modified_input: edited });
      expect(decided.status, JSON.stringify(decided.json)).toBe(200);
      expect((decided.json as { after_prompt_fallback?: string }).after_prompt_fallback).toBeUndefined();
      expect((await held).hookSpecificOutput).toEqual({ hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput: edited } });
    });

    it('falls back to Claude Code\'s own dialog when nobody decides in the hook\'s time; a later approval is marked late and applies to the identical call', async () => {
      const body = dialog('./scripts/deploy.sh canary');
      const fallback = await post(body, { 'x-ahp-wait-ms': '1500' });
      // No decision: Claude Code shows its dialog; the user reads why.
      expect(fallback.hookSpecificOutput).toBeUndefined();
      expect(fallback.systemMessage).toMatch(/was not decided in time .*Claude Code asks you instead/);
      const requestId = await pendingRequestFor('./scripts/deploy.sh canary');
      const decided = await operatorCall(api, operators.token('op-maria'), 'POST', `/requests/${requestId}/decision`, { approve: true });
      expect(decided.status, JSON.stringify(decided.json)).toBe(200);
      expect((decided.json as { after_prompt_fallback?: string }).after_prompt_fallback).toEqual(expect.any(String));
      const detail = await operatorCall(api, operators.token('op-maria'), 'GET', `/requests/${requestId}`);
      expect((detail.json as { history: { event: string }[] }).history.map((entry) => entry.event)).toEqual(['created', 'prompt_fallback', 'approved']);
      // The same call again (in the same Claude Code session) finds the late approval at once.
      expect((await post(body)).hookSpecificOutput).toEqual({ hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } });
    });

    /** The gateway now on the first gateway's port (the tests below replace it). */
    const holder = () => {
      const port = Number(system.stack.gateways[0]!.ready['port']);
      return system.stack.gateways.filter((gateway) => Number(gateway.ready['port']) === port).at(-1)!;
    };

    // Last in the file: these two replace the first gateway.
    it('still delivers the decision when the gateway holding the dialog shuts down: it hands the prompt back (503), ahp hook asks again, the new gateway holds it', async () => {
      const body = dialog('./scripts/deploy.sh us-east');
      const held = hook(body, ['claude-code', '--wait', '40000'], 'claude-dev');
      const requestId = await pendingRequestFor('./scripts/deploy.sh us-east');
      const first = holder();
      const port = Number(first.ready['port']);
      await first.stop();
      await system.stack.addGateway({ port });
      // Held again by the new gateway: nothing was recorded as a fallback.
      const detail = await operatorCall(api, operators.token('op-maria'), 'GET', `/requests/${requestId}`);
      expect((detail.json as { history: { event: string }[] }).history.map((entry) => entry.event)).toEqual(['created']);
      const decided = await operatorCall(api, operators.token('op-maria'), 'POST', `/requests/${requestId}/decision`, { approve: false, feedback: 'not during the freeze' });
      expect(decided.status, JSON.stringify(decided.json)).toBe(200);
      const run = await held;
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('asking again');
      expect((JSON.parse(run.stdout) as Output).hookSpecificOutput).toEqual({ hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'Blocked by AHP: not during the freeze' } });
    });

    it('still delivers the decision when the gateway holding the dialog dies: ahp hook claude-code asks again and the new gateway finds the request', async () => {
      const body = dialog('./scripts/deploy.sh eu-west');
      const held = hook(body, ['claude-code', '--wait', '40000'], 'claude-dev');
      const requestId = await pendingRequestFor('./scripts/deploy.sh eu-west');
      const first = holder();
      const port = Number(first.ready['port']);
      first.kill('SIGKILL');
      await first.exited;
      const edited = { command: './scripts/deploy.sh eu-west --canary', description: 'deploy' };
      const decided = await operatorCall(api, operators.token('op-maria'), 'POST', `/requests/${requestId}/decision`, { approve: true, modified_input: edited });
      expect(decided.status, JSON.stringify(decided.json)).toBe(200);
      await system.stack.addGateway({ port });
      const run = await held;
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('asking again');
      expect((JSON.parse(run.stdout) as Output).hookSpecificOutput).toEqual({ hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput: edited } });
    });
  });
});
