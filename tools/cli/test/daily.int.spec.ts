/**
 * The built `ahp` CLI (bin/ahp.js over dist/) as a process for the daily-work commands: `hook claude-code`
 * against a small HTTP server playing the gateway (and against no gateway at all), the operator
 * commands against the same fake, and `tokens` writing real tokens files.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentTokensFileSchema, CODEX_OUTPUT_SCHEMAS, COPILOT_OUTPUT_SCHEMAS, ClaudeCodeHookOutputSchema, OperatorTokensFileSchema, makeError } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

// bin/ahp.js, as installed: it routes `hook claude-code` to the small hook entry and the rest to dist/cli.js.
const CLI = join(import.meta.dirname, '..', 'bin', 'ahp.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function ahp(args: readonly string[], env: Record<string, string> = {}, stdin = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** What the fake gateway received. */
interface Received {
  method: string;
  url: string;
  authorization: string | undefined;
  body: unknown;
}

let dir: string;
let server: Server;
let gatewayUrl: string;
let received: Received[] = [];
/** The fake gateway's answer to the next call. */
let answer: { status: number; body: unknown } = { status: 200, body: {} };

async function bodyOf(request: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) text += (chunk as Buffer).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ahp-cli-daily-'));
  server = createServer((request, response) => {
    void bodyOf(request).then((body) => {
      received.push({ method: request.method ?? '', url: request.url ?? '', authorization: request.headers.authorization, body });
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  gatewayUrl = `http://127.0.0.1:${address.port}`;
});

beforeEach(() => {
  received = [];
  answer = { status: 200, body: {} };
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const PRE_TOOL_USE = {
  session_id: 'abc123',
  transcript_path: '/home/dev/.claude/projects/app/t.jsonl',
  cwd: '/home/dev/app',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'rm -rf build' },
};

describe('ahp hook claude-code', () => {
  it('posts the hook input with the agent token and prints the gateway\'s answer', async () => {
    answer = { status: 200, body: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' } } };
    const run = await ahp(['hook', 'claude-code', '--gateway', gatewayUrl], { AHP_TOKEN: 'agent-token' }, JSON.stringify(PRE_TOOL_USE));
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(answer.body);
    expect(received).toEqual([{ method: 'POST', url: '/v1/hooks/claude-code', authorization: 'Bearer agent-token', body: PRE_TOOL_USE }]);
  });

  it('answers a blocked agent-team event with exit 2 and the reason on stderr (Claude Code keeps the teammate working), an allowed one with its JSON', async () => {
    const completed = { session_id: 's1', hook_event_name: 'TaskCompleted', task_id: '7', task_subject: 'Wire the login form', teammate_name: 'frontend' };
    answer = { status: 200, body: { decision: 'block', reason: 'no test run was reported for this task' } };
    const blocked = await ahp(['hook', 'claude-code', '--gateway', gatewayUrl], { AHP_TOKEN: 'agent-token' }, JSON.stringify(completed));
    expect(blocked.code).toBe(2);
    expect(blocked.stdout).toBe('');
    expect(blocked.stderr.trim()).toBe('no test run was reported for this task');
    answer = { status: 200, body: {} };
    const idle = await ahp(['hook', 'claude-code', '--gateway', gatewayUrl], { AHP_TOKEN: 'agent-token' }, JSON.stringify({ session_id: 's1', hook_event_name: 'TeammateIdle', teammate_name: 'researcher' }));
    expect(idle.code).toBe(0);
    expect(JSON.parse(idle.stdout)).toEqual({});
  });

  it('denies a PreToolUse explicitly when the gateway cannot be reached, and still exits 0', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const address = closed.address();
    await new Promise((resolve) => closed.close(resolve));
    if (address === null || typeof address === 'string') throw new Error('no port');
    const run = await ahp(['hook', 'claude-code'], { AHP_GATEWAY_URL: `http://127.0.0.1:${address.port}`, AHP_TOKEN: 't' }, JSON.stringify(PRE_TOOL_USE));
    expect(run.code).toBe(0);
    const output = ClaudeCodeHookOutputSchema.parse(JSON.parse(run.stdout));
    expect(output.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    expect(output.hookSpecificOutput?.permissionDecisionReason).toContain('cannot reach the gateway');
    expect(run.stderr).toContain('cannot reach the gateway');
  });

  it('waits for a held PermissionRequest (X-AHP-Wait-Ms) and asks again when the gateway dies or shuts down meanwhile (503), printing the decision it then gets', async () => {
    const waits: (string | undefined)[] = [];
    const bodies: unknown[] = [];
    // The first gateway dies holding the prompt (its connection is cut); the next one answers.
    const flaky = createServer((request, response) => {
      void bodyOf(request).then((body) => {
        waits.push(request.headers['x-ahp-wait-ms'] as string | undefined);
        bodies.push(body);
        if (bodies.length === 1) {
          request.socket.destroy();
          return;
        }
        if (bodies.length === 2) {
          // The next gateway shuts down while holding it, and hands it back (it was told the hook re-sends).
          expect(request.headers['x-ahp-resend']).toBe('1');
          response.writeHead(503, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: makeError('E_SHUTTING_DOWN', 'this gateway is shutting down; send the permission prompt again') }));
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput: { command: 'ls' } } } }));
      });
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    const address = flaky.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    try {
      const prompt = { ...PRE_TOOL_USE, hook_event_name: 'PermissionRequest' };
      const run = await ahp(['hook', 'claude-code', '--gateway', `http://127.0.0.1:${address.port}`, '--wait', '20000'], { AHP_TOKEN: 't' }, JSON.stringify(prompt));
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput: { command: 'ls' } } } });
      expect(run.stderr).toContain('asking again');
      expect(run.stderr).toContain('the gateway is shutting down; asking again');
      expect(bodies).toEqual([prompt, prompt, prompt]);
      // The wait it asks for shrinks with the time already spent.
      expect(Number(waits[0])).toBeLessThanOrEqual(20_000);
      expect(Number(waits[2])).toBeLessThan(Number(waits[1]));
      expect(Number(waits[1])).toBeLessThan(Number(waits[0]));
    } finally {
      await new Promise((resolve) => flaky.close(resolve));
    }
  });

  it('denies when the gateway refuses the call, and lets a Stop through with a notice', async () => {
    answer = { status: 401, body: { error: makeError('E_UNAUTHORIZED', 'bad token') } };
    const denied = await ahp(['hook', 'claude-code', '--gateway', gatewayUrl], { AHP_TOKEN: 't' }, JSON.stringify(PRE_TOOL_USE));
    expect(ClaudeCodeHookOutputSchema.parse(JSON.parse(denied.stdout)).hookSpecificOutput?.permissionDecisionReason).toContain('E_UNAUTHORIZED');
    const stop = await ahp(['hook', 'claude-code', '--gateway', gatewayUrl], { AHP_TOKEN: 't' }, JSON.stringify({ ...PRE_TOOL_USE, hook_event_name: 'Stop' }));
    expect(stop.code).toBe(0);
    expect(JSON.parse(stop.stdout)).toEqual({ systemMessage: expect.stringContaining('continuing without its checks') as unknown });
  });

  it('exits 2 (a blocking error for Claude Code) on input that is not JSON', async () => {
    const run = await ahp(['hook', 'claude-code', '--gateway', gatewayUrl], { AHP_TOKEN: 't' }, 'not json');
    expect(run.code).toBe(2);
    expect(received).toEqual([]);
  });
});

const CODEX_PRE_TOOL_USE = {
  session_id: 'thread-1',
  turn_id: 'turn-1',
  transcript_path: null,
  cwd: '/repo',
  hook_event_name: 'PreToolUse',
  model: 'gpt-5-codex',
  permission_mode: 'default',
  tool_name: 'Bash',
  tool_input: { command: 'rm -rf build' },
  tool_use_id: 'call_1',
};

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const address = closed.address();
  await new Promise((resolve) => closed.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('ahp hook codex', () => {
  it('posts the hook input to /v1/hooks/codex and prints the answer, nothing else on stdout', async () => {
    answer = { status: 200, body: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' } } };
    const run = await ahp(['hook', 'codex', '--gateway', gatewayUrl], { AHP_TOKEN: 'agent-token' }, JSON.stringify(CODEX_PRE_TOOL_USE));
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(answer.body);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(received).toEqual([{ method: 'POST', url: '/v1/hooks/codex', authorization: 'Bearer agent-token', body: CODEX_PRE_TOOL_USE }]);
  });

  it('reads the agent token from --token-file (as ahp init codex writes it), and denies when the file is missing', async () => {
    const tokenFile = join(dir, 'ahp-token');
    await writeFile(tokenFile, 'file-token\n');
    const run = await ahp(['hook', 'codex', '--gateway', gatewayUrl, '--token-file', tokenFile], {}, JSON.stringify(CODEX_PRE_TOOL_USE));
    expect(run.code).toBe(0);
    expect(received.map((call) => call.authorization)).toEqual(['Bearer file-token']);
    const missing = await ahp(['hook', 'codex', '--gateway', gatewayUrl, '--token-file', join(dir, 'nope')], {}, JSON.stringify(CODEX_PRE_TOOL_USE));
    expect(JSON.parse(missing.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('cannot read the token file') as unknown } });
  });

  it('denies a PreToolUse and a PermissionRequest explicitly when the gateway cannot be reached, and lets a Stop through with a notice', async () => {
    const env = { AHP_GATEWAY_URL: `http://127.0.0.1:${await closedPort()}`, AHP_TOKEN: 't' };
    const pre = await ahp(['hook', 'codex'], env, JSON.stringify(CODEX_PRE_TOOL_USE));
    expect(pre.code).toBe(0);
    expect(CODEX_OUTPUT_SCHEMAS.PreToolUse.parse(JSON.parse(pre.stdout)).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('cannot reach the gateway') as unknown });
    expect(pre.stderr).toContain('cannot reach the gateway');
    const permission = await ahp(['hook', 'codex'], env, JSON.stringify({ ...CODEX_PRE_TOOL_USE, hook_event_name: 'PermissionRequest' }));
    expect(CODEX_OUTPUT_SCHEMAS.PermissionRequest.parse(JSON.parse(permission.stdout)).hookSpecificOutput?.decision).toMatchObject({ behavior: 'deny' });
    const stop = await ahp(['hook', 'codex'], env, JSON.stringify({ ...CODEX_PRE_TOOL_USE, hook_event_name: 'Stop' }));
    expect(stop.code).toBe(0);
    expect(JSON.parse(stop.stdout)).toEqual({ systemMessage: expect.stringContaining('continuing without its checks') as unknown });
  });

  it('denies when the gateway answers with a field Codex would refuse for the event', async () => {
    // additionalContext is not an answer Codex takes at PermissionRequest: printing it would void the whole answer.
    answer = { status: 200, body: { hookSpecificOutput: { hookEventName: 'PermissionRequest', additionalContext: 'x' } } };
    const run = await ahp(['hook', 'codex', '--gateway', gatewayUrl], { AHP_TOKEN: 't' }, JSON.stringify({ ...CODEX_PRE_TOOL_USE, hook_event_name: 'PermissionRequest' }));
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny' } } });
    expect(run.stderr).toContain('not a Codex hook output');
  });

  it('exits 2 with the reason on stderr and nothing on stdout for input that is not JSON or an event AHP does not map', async () => {
    const text = await ahp(['hook', 'codex', '--gateway', gatewayUrl], { AHP_TOKEN: 't' }, 'not json');
    expect(text).toMatchObject({ code: 2, stdout: '' });
    expect(text.stderr).toContain('stdin is not JSON');
    const unknown = await ahp(['hook', 'codex', '--gateway', gatewayUrl], { AHP_TOKEN: 't' }, JSON.stringify({ ...CODEX_PRE_TOOL_USE, hook_event_name: 'Interrupt' }));
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toContain('not a Codex hook event AHP maps (hook_event_name: "Interrupt")');
    expect(received).toEqual([]);
  });
});

/** Copilot's camelCase preToolUse payload (it names no event: the hooks file does). */
const COPILOT_PRE_TOOL_USE = { sessionId: 'sess-1', timestamp: 1767225600000, cwd: '/repo', toolName: 'bash', toolArgs: '{"command":"rm -rf build"}' };

describe('ahp hook copilot', () => {
  it('posts the input with the event named on the command line as its first field, and prints the answer', async () => {
    answer = { status: 200, body: { permissionDecision: 'deny', permissionDecisionReason: 'no' } };
    const run = await ahp(['hook', 'copilot', 'preToolUse', '--gateway', gatewayUrl], { AHP_TOKEN: 'agent-token' }, JSON.stringify(COPILOT_PRE_TOOL_USE));
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(answer.body);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ url: '/v1/hooks/copilot', authorization: 'Bearer agent-token', body: { hook_event_name: 'preToolUse', ...COPILOT_PRE_TOOL_USE } });
    expect(Object.keys(received[0]!.body as object)[0]).toBe('hook_event_name');
  });

  it('answers {} itself for events no trigger evaluates, and exits 2 for an event it does not know', async () => {
    const error = await ahp(['hook', 'copilot', 'errorOccurred', '--gateway', gatewayUrl], { AHP_TOKEN: 't' }, JSON.stringify({ sessionId: 's', error: { message: 'x', name: 'E' } }));
    expect(error).toMatchObject({ code: 0, stdout: '{}\n' });
    const unknown = await ahp(['hook', 'copilot', 'PreToolUsage', '--gateway', gatewayUrl], { AHP_TOKEN: 't' }, JSON.stringify(COPILOT_PRE_TOOL_USE));
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toContain('not a Copilot hook event AHP maps');
    const pascalError = await ahp(['hook', 'copilot', 'ErrorOccurred', '--gateway', gatewayUrl], { AHP_TOKEN: 't' }, JSON.stringify({ hook_event_name: 'ErrorOccurred', session_id: 's' }));
    expect(pascalError).toMatchObject({ code: 0, stdout: '{}\n' });
    expect(received).toEqual([]);
  });

  it('takes the VS Code compatible (PascalCase) events as their camelCase twins, passing the snake_case payload on', async () => {
    answer = { status: 200, body: { permissionDecision: 'deny', permissionDecisionReason: 'no' } };
    const payload = { hook_event_name: 'PreToolUse', session_id: 's1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/repo', tool_name: 'bash', tool_input: { command: 'ls' } };
    const run = await ahp(['hook', 'copilot', 'PreToolUse', '--gateway', gatewayUrl], { AHP_TOKEN: 'agent-token' }, JSON.stringify(payload));
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(answer.body);
    expect(received[0]?.body).toEqual({ ...payload, hook_event_name: 'preToolUse' });
  });

  it('exits 2 with the reason on stderr and nothing on stdout for input that is not JSON or not a JSON object, without asking the gateway', async () => {
    for (const event of ['preToolUse', 'permissionRequest', 'agentStop']) {
      const text = await ahp(['hook', 'copilot', event, '--gateway', gatewayUrl], { AHP_TOKEN: 't' }, 'not json');
      expect(text).toMatchObject({ code: 2, stdout: '' });
      expect(text.stderr).toContain('stdin is not JSON');
    }
    const list = await ahp(['hook', 'copilot', 'preToolUse', '--gateway', gatewayUrl], { AHP_TOKEN: 't' }, JSON.stringify([COPILOT_PRE_TOOL_USE]));
    expect(list).toMatchObject({ code: 2, stdout: '' });
    expect(list.stderr).toContain('stdin is not a JSON object');
    expect(received).toEqual([]);
  });

  it('denies a preToolUse and a permissionRequest when the gateway cannot be reached, and answers {} elsewhere', async () => {
    const env = { AHP_GATEWAY_URL: `http://127.0.0.1:${await closedPort()}`, AHP_TOKEN: 't' };
    const pre = await ahp(['hook', 'copilot', 'preToolUse'], env, JSON.stringify(COPILOT_PRE_TOOL_USE));
    expect(COPILOT_OUTPUT_SCHEMAS.preToolUse.parse(JSON.parse(pre.stdout))).toMatchObject({ permissionDecision: 'deny' });
    const permission = await ahp(['hook', 'copilot', 'permissionRequest'], env, JSON.stringify(COPILOT_PRE_TOOL_USE));
    expect(JSON.parse(permission.stdout)).toMatchObject({ behavior: 'deny' });
    const stop = await ahp(['hook', 'copilot', 'agentStop'], env, JSON.stringify({ sessionId: 's', stopReason: 'end_turn' }));
    expect(stop).toMatchObject({ code: 0, stdout: '{}\n' });
  });
});

describe('operator commands', () => {
  it('lists agents with the operator token, as a table and as JSON', async () => {
    const now = new Date().toISOString();
    answer = {
      status: 200,
      body: {
        agents: [{ agent: { id: 'alice', name: 'Alice', team: 'red', role: 'lead' }, session_id: 's1', gateway_id: 'gw-1', connected_at: now, last_activity_at: now }],
        gateways: [{ gateway_id: 'gw-1', started_at: now, last_seen_at: now, connections: 1, draining: false }],
      },
    };
    const text = await ahp(['agents', 'list', '--gateway', gatewayUrl], { AHP_OPERATOR_TOKEN: 'op' });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^AGENT\s+NAME/);
    expect(text.stdout).toContain('alice');
    const json = await ahp(['agents', 'list', '--gateway', gatewayUrl, '--json'], { AHP_OPERATOR_TOKEN: 'op' });
    expect(JSON.parse(json.stdout)).toEqual(answer.body);
    expect(received.map((call) => [call.url, call.authorization])).toEqual([
      ['/v1/operator/agents', 'Bearer op'],
      ['/v1/operator/agents', 'Bearer op'],
    ]);
  });

  it('passes the list filters, needs feedback to reject, and exits 1 when the gateway refuses a decision', async () => {
    answer = { status: 200, body: { requests: [] } };
    expect((await ahp(['requests', 'list', '--status', 'pending', '--team', 'red', '--gateway', gatewayUrl], { AHP_OPERATOR_TOKEN: 'op' })).code).toBe(0);
    expect(received[0]?.url).toBe('/v1/operator/requests?status=pending&team=red');

    expect((await ahp(['requests', 'reject', 'req_1', '--gateway', gatewayUrl], { AHP_OPERATOR_TOKEN: 'op' })).code).toBe(2);

    answer = { status: 409, body: { error: makeError('E_CONFLICT', 'already approved by op-maria') } };
    const refused = await ahp(['requests', 'reject', 'req_1', '--feedback', 'too risky', '--gateway', gatewayUrl], { AHP_OPERATOR_TOKEN: 'op' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('E_CONFLICT');
    expect(received.at(-1)).toMatchObject({ method: 'POST', url: '/v1/operator/requests/req_1/decision', body: { approve: false, feedback: 'too risky' } });
  });

  it("shows and lifts an agent's enforcement state, sending the parts asked for; exits 2 for unknown parts and 1 when refused", async () => {
    const state = {
      breakers: { identical_calls: { distinct: 2, highest: 51 }, iterations: 3 },
      hold: { unanswered: 1, signal_ids: ['sig-1'] },
      escalation: { rules: 1, counters: [{ rule: 'no-force-push', violations: 3 }] },
    };
    answer = { status: 200, body: { agent_id: 'alice', state } };
    const shown = await ahp(['agents', 'enforcement', 'alice', '--gateway', gatewayUrl], { AHP_OPERATOR_TOKEN: 'op' });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe(
      'breakers: 2 distinct tool calls (the most repeated made 51 times), 3 iterations\nhold: 1 unanswered block/control signal: sig-1\nescalation: 1 rule counter: no-force-push 3\n',
    );

    const { escalation: _kept, ...reset } = state;
    answer = { status: 200, body: { agent_id: 'alice', parts: ['breakers', 'hold'], before: reset, changed: true, reset_at: new Date().toISOString() } };
    const lifted = await ahp(['agents', 'reset', 'alice', '--parts', 'hold, breakers,hold', '--gateway', gatewayUrl], { AHP_OPERATOR_TOKEN: 'op' });
    expect(lifted.code).toBe(0);
    expect(lifted.stdout).toBe('alice: breakers, hold reset; before:\n  breakers: 2 distinct tool calls (the most repeated made 51 times), 3 iterations\n  hold: 1 unanswered block/control signal: sig-1\n');
    expect(received.at(-1)).toMatchObject({ method: 'POST', url: '/v1/operator/agents/alice/enforcement/reset', authorization: 'Bearer op', body: { parts: ['hold', 'breakers'] } });
    expect((await ahp(['agents', 'reset', 'alice', '--gateway', gatewayUrl], { AHP_OPERATOR_TOKEN: 'op' })).code).toBe(0);
    expect(received.at(-1)?.body).toEqual({});

    const calls = received.length;
    expect((await ahp(['agents', 'reset', 'alice', '--parts', 'everything', '--gateway', gatewayUrl], { AHP_OPERATOR_TOKEN: 'op' })).code).toBe(2);
    expect(received).toHaveLength(calls);
    answer = { status: 403, body: { error: makeError('E_FORBIDDEN', 'the approver role is needed') } };
    const refused = await ahp(['agents', 'reset', 'alice', '--gateway', gatewayUrl], { AHP_OPERATOR_TOKEN: 'op' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('E_FORBIDDEN');
  });

  it('exits 3 when no gateway answers', async () => {
    const run = await ahp(['agents', 'list', '--gateway', 'http://127.0.0.1:1'], { AHP_OPERATOR_TOKEN: 'op' });
    expect(run.code).toBe(3);
  });
});

describe('ahp tokens', () => {
  const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

  it('adds agents to a tokens file the gateway accepts, printing each token once', async () => {
    const file = join(dir, 'agents.json');
    const first = await ahp(['tokens', 'agent', 'alice', '--name', 'Alice', '--team', 'red', '--role', 'lead', '--environment', 'production', '--file', file]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('SIGHUP');
    const second = await ahp(['tokens', 'agent', 'bob', '--name', 'Bob', '--file', file, '--json']);
    const { token } = JSON.parse(second.stdout) as { token: string };
    const saved = AgentTokensFileSchema.parse(JSON.parse(await readFile(file, 'utf8')));
    expect(saved.agents).toEqual([
      { id: 'alice', name: 'Alice', team: 'red', role: 'lead', environment: 'production', token_sha256: sha256(first.stdout.trim()) },
      { id: 'bob', name: 'Bob', token_sha256: sha256(token) },
    ]);
    const again = await ahp(['tokens', 'agent', 'bob', '--name', 'Bob', '--file', file]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('appears twice');
  });

  it('adds operators with a role, and refuses a missing one', async () => {
    const file = join(dir, 'operators.json');
    expect((await ahp(['tokens', 'operator', 'op-maria', '--name', 'Maria', '--file', file])).code).toBe(2);
    const run = await ahp(['tokens', 'operator', 'op-maria', '--name', 'Maria', '--role', 'approver', '--file', file]);
    expect(run.code).toBe(0);
    const saved = OperatorTokensFileSchema.parse(JSON.parse(await readFile(file, 'utf8')));
    expect(saved.operators).toEqual([{ id: 'op-maria', name: 'Maria', role: 'approver', token_sha256: sha256(run.stdout.trim()) }]);
  });

  it('adds a token scoped to teams and request types, and refuses an unknown request type without writing', async () => {
    const file = join(dir, 'scoped-operators.json');
    const run = await ahp(['tokens', 'operator', 'op-red', '--name', 'Red', '--role', 'approver', '--teams', 'red,green', '--request-types', 'plan_approval', '--file', file]);
    expect(run.code).toBe(0);
    const saved = OperatorTokensFileSchema.parse(JSON.parse(await readFile(file, 'utf8')));
    expect(saved.operators).toEqual([
      { id: 'op-red', name: 'Red', role: 'approver', scope: { teams: ['red', 'green'], request_types: ['plan_approval'] }, token_sha256: sha256(run.stdout.trim()) },
    ]);
    const bad = await ahp(['tokens', 'operator', 'op-x', '--name', 'X', '--role', 'viewer', '--request-types', 'deploy', '--file', file]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('request_types');
    expect(OperatorTokensFileSchema.parse(JSON.parse(await readFile(file, 'utf8'))).operators).toHaveLength(1);
  });
});
