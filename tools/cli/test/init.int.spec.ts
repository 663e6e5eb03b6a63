/**
 * `ahp init claude-code` and `ahp doctor` as processes (bin/ahp.js over the built dist/): init
 * writing real settings files in a temporary project and home folder (merged, idempotent, the
 * token only in the personal file, minted into a real tokens file), and doctor against a small
 * HTTP server playing the gateway (ready, a dry-run hook answered by oracles or by the failure
 * policy, a refused token, no gateway).
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentTokensFileSchema, CODEX_EVENTS, COPILOT_EVENTS, ClaudeCodeSettingsSchema, CodexHooksFileSchema, CopilotHooksFileSchema } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', 'bin', 'ahp.js');
let root: string;
let project: string;
let home: string;

function ahp(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: project, env: { PATH: process.env['PATH'] ?? '', HOME: home, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const readJson = async (path: string): Promise<Record<string, unknown>> => JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
const EVENTS = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop', 'SubagentStop', 'SessionStart', 'SessionEnd', 'PreCompact', 'PermissionRequest', 'TeammateIdle', 'TaskCreated', 'TaskCompleted'];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ahp-cli-init-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
beforeEach(async (context) => {
  project = join(root, context.task.id, 'project');
  home = join(root, context.task.id, 'home');
  await mkdir(project, { recursive: true });
  await mkdir(home, { recursive: true });
});

describe('ahp init codex', () => {
  it('merges the command hooks into an existing hooks.json, puts the token in its own ignored file, and changes nothing when run again', async () => {
    const existing = { description: 'team hooks', hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'python3 .codex/hooks/check.py' }] }] } };
    await mkdir(join(project, '.codex'));
    await writeFile(join(project, '.codex', 'hooks.json'), JSON.stringify(existing));
    await writeFile(join(project, '.codex', '.gitignore'), 'cache/\n');
    const first = await ahp(['init', 'codex', '--gateway', 'http://gw.example:8080', '--token', 'ahp_token_1']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('/hooks');
    const written = await readFile(join(project, '.codex', 'hooks.json'), 'utf8');
    const file = CodexHooksFileSchema.parse(JSON.parse(written));
    expect(Object.keys(file).sort()).toEqual(['description', 'hooks']);
    expect(file.hooks?.['PreToolUse']?.[0]).toEqual(existing.hooks.PreToolUse[0]);
    for (const event of CODEX_EVENTS) expect(file.hooks?.[event]?.at(-1)?.hooks[0]?.command).toMatch(/^ahp hook codex --gateway http:\/\/gw.example:8080 --token-file /);
    expect(written).not.toContain('ahp_token_1');
    expect(await readFile(join(project, '.codex', 'ahp-token'), 'utf8')).toBe('ahp_token_1\n');
    expect((await stat(join(project, '.codex', 'ahp-token'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(project, '.codex', '.gitignore'), 'utf8')).toBe('cache/\nahp-token\n');

    const again = await ahp(['init', 'codex', '--gateway', 'http://gw.example:8080', '--token', 'ahp_token_1']);
    expect(again.code).toBe(0);
    expect(await readFile(join(project, '.codex', 'hooks.json'), 'utf8')).toBe(written);
    expect(await readFile(join(project, '.codex', '.gitignore'), 'utf8')).toBe('cache/\nahp-token\n');
  });

  it('writes the user\'s ~/.codex/hooks.json with --user', async () => {
    const run = await ahp(['init', 'codex', '--user', '--gateway', 'http://gw.example:8080', '--token', 't2', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ scope: 'user', hooks_file: join(home, '.codex', 'hooks.json'), token_file: join(home, '.codex', 'ahp-token') });
    const file = CodexHooksFileSchema.parse(await readJson(join(home, '.codex', 'hooks.json')));
    expect(file.hooks?.['Stop']?.[0]?.hooks[0]?.command).toBe(`ahp hook codex --gateway http://gw.example:8080 --token-file ${join(home, '.codex', 'ahp-token')}`);
  });

  it('changes nothing when hooks.json is not JSON or not a hooks file', async () => {
    await mkdir(join(project, '.codex'));
    for (const text of ['{not json', '{"hooks":{"Stop":{"hooks":[]}}}']) {
      await writeFile(join(project, '.codex', 'hooks.json'), text);
      const run = await ahp(['init', 'codex', '--gateway', 'http://gw.example:8080', '--token', 't']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('nothing was changed');
      expect(await readFile(join(project, '.codex', 'hooks.json'), 'utf8')).toBe(text);
      await expect(stat(join(project, '.codex', 'ahp-token'))).rejects.toThrow();
    }
  });
});

describe('ahp init copilot', () => {
  it('merges its handlers into .github/hooks/ahp.json, keeps the token out of the repository, and changes nothing when run again', async () => {
    const existing = { version: 1, hooks: { preToolUse: [{ type: 'command', bash: './audit.sh' }], errorOccurred: [{ type: 'command', bash: './notify.sh' }] } };
    await mkdir(join(project, '.github', 'hooks'), { recursive: true });
    await writeFile(join(project, '.github', 'hooks', 'ahp.json'), JSON.stringify(existing));
    const first = await ahp(['init', 'copilot', '--gateway', 'http://gw.example:8080']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('AHP_TOKEN');
    const written = await readFile(join(project, '.github', 'hooks', 'ahp.json'), 'utf8');
    const file = CopilotHooksFileSchema.parse(JSON.parse(written));
    expect(file.hooks?.['errorOccurred']).toEqual(existing.hooks.errorOccurred);
    expect(file.hooks?.['preToolUse']?.[0]).toEqual(existing.hooks.preToolUse[0]);
    for (const event of COPILOT_EVENTS) expect(file.hooks?.[event]?.at(-1)?.bash).toBe(`ahp hook copilot ${event} --gateway http://gw.example:8080`);
    expect((await ahp(['init', 'copilot', '--gateway', 'http://gw.example:8080'])).code).toBe(0);
    expect(await readFile(join(project, '.github', 'hooks', 'ahp.json'), 'utf8')).toBe(written);
  });

  it('refuses a token for the repository\'s hooks, and keeps one for the user\'s in ~/.copilot/ahp-token', async () => {
    const refused = await ahp(['init', 'copilot', '--gateway', 'http://gw.example:8080', '--token', 't']);
    expect(refused.code).toBe(2);
    await expect(stat(join(project, '.github', 'hooks', 'ahp.json'))).rejects.toThrow();
    const user = await ahp(['init', 'copilot', '--user', '--gateway', 'http://gw.example:8080', '--token', 't3']);
    expect(user.code, user.stderr).toBe(0);
    expect(await readFile(join(home, '.copilot', 'ahp-token'), 'utf8')).toBe('t3\n');
    const file = CopilotHooksFileSchema.parse(await readJson(join(home, '.copilot', 'hooks', 'ahp.json')));
    expect(file.hooks?.['agentStop']?.[0]?.bash).toBe(`ahp hook copilot agentStop --gateway http://gw.example:8080 --token-file ${join(home, '.copilot', 'ahp-token')}`);
  });
});

describe('ahp init claude-code', () => {
  it('merges the HTTP hooks into existing project settings, keeps the token out of the shared file, and changes nothing when run again', async () => {
    const existing = { permissions: { allow: ['Bash(npm test)'] }, hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './lint.sh' }] }], Notification: [{ hooks: [{ type: 'command', command: 'notify-send hi' }] }] } };
    await mkdir(join(project, '.claude'));
    await writeFile(join(project, '.claude', 'settings.json'), JSON.stringify(existing));
    const first = await ahp(['init', 'claude-code', '--gateway', 'http://gw.example:8080', '--token', 'ahp_token_1']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('ahp doctor');
    const settings = ClaudeCodeSettingsSchema.parse(await readJson(join(project, '.claude', 'settings.json')));
    expect(settings['permissions']).toEqual(existing.permissions);
    expect(settings.hooks?.['Notification']).toEqual(existing.hooks.Notification);
    expect(settings.hooks?.['PreToolUse']?.[0]).toEqual(existing.hooks.PreToolUse[0]);
    for (const event of EVENTS) {
      const ours = settings.hooks?.[event]?.flatMap((group) => group.hooks).filter((hook) => hook.type === 'http');
      expect(ours, event).toEqual([expect.objectContaining({ url: 'http://gw.example:8080/v1/hooks/claude-code', headers: { Authorization: 'Bearer $AHP_TOKEN' }, allowedEnvVars: ['AHP_TOKEN'] })]);
    }
    expect(JSON.stringify(settings)).not.toContain('ahp_token_1');
    const local = ClaudeCodeSettingsSchema.parse(await readJson(join(project, '.claude', 'settings.local.json')));
    expect(local.env).toEqual({ AHP_TOKEN: 'ahp_token_1' });
    expect((await stat(join(project, '.claude', 'settings.local.json'))).mode & 0o777).toBe(0o600);

    const before = await readFile(join(project, '.claude', 'settings.json'), 'utf8');
    expect((await ahp(['init', 'claude-code', '--gateway', 'http://gw.example:8080', '--token', 'ahp_token_1'])).code).toBe(0);
    expect(await readFile(join(project, '.claude', 'settings.json'), 'utf8')).toBe(before);
  });

  it('switches to command hooks on request, replacing the HTTP ones', async () => {
    expect((await ahp(['init', 'claude-code', '--gateway', 'http://gw:8080', '--token', 't'])).code).toBe(0);
    expect((await ahp(['init', 'claude-code', '--gateway', 'http://gw:8080', '--token', 't', '--command'])).code).toBe(0);
    const settings = ClaudeCodeSettingsSchema.parse(await readJson(join(project, '.claude', 'settings.json')));
    for (const event of EVENTS) {
      // The permission dialog may be held while an operator decides: it gets 60 s.
      const timeout = event === 'PermissionRequest' ? 60 : 15;
      expect(settings.hooks?.[event]?.flatMap((group) => group.hooks), event).toEqual([{ type: 'command', command: 'ahp hook claude-code --gateway http://gw:8080', timeout }]);
    }
  });

  it('writes hooks and token to the user settings with --user, and mints the token into a tokens file the gateway reads', async () => {
    const tokensFile = join(root, 'agents.json');
    const result = await ahp(['init', 'claude-code', '--user', '--gateway', 'http://gw:8080', '--file', tokensFile, '--agent', 'claude-laptop', '--team', 'web']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('SIGHUP');
    const file = AgentTokensFileSchema.parse(await readJson(tokensFile));
    expect(file.agents).toEqual([expect.objectContaining({ id: 'claude-laptop', name: 'Claude Code (claude-laptop)', team: 'web' })]);
    const settings = ClaudeCodeSettingsSchema.parse(await readJson(join(home, '.claude', 'settings.json')));
    expect(settings.env?.['AHP_TOKEN']).toMatch(/^ahp_/);
    expect(result.stdout).toContain(settings.env?.['AHP_TOKEN'] ?? 'missing');
    expect(settings.hooks?.['PreToolUse']).toHaveLength(1);
  });

  it('refuses a settings file that is not JSON without writing anything, and asks for a token', async () => {
    await mkdir(join(project, '.claude'));
    await writeFile(join(project, '.claude', 'settings.json'), '{ not json');
    const broken = await ahp(['init', 'claude-code', '--gateway', 'http://gw:8080', '--token', 't']);
    expect(broken.code).toBe(1);
    expect(await readFile(join(project, '.claude', 'settings.json'), 'utf8')).toBe('{ not json');
    await rm(join(project, '.claude', 'settings.json'));
    const noToken = await ahp(['init', 'claude-code', '--gateway', 'http://gw:8080']);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('--token');
  });
});

describe('ahp doctor', () => {
  let server: Server;
  let gateway: string;
  /** What the fake gateway answers to a hook: an oracle's decision, or a failure-policy deny. */
  let hookAnswer: unknown = {};
  const hooks: unknown[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        const send = (status: number, json: unknown) => {
          response.writeHead(status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(json));
        };
        if (request.url === '/readyz') return send(200, { status: 'ready' });
        if (request.headers.authorization !== 'Bearer good') return send(401, { error: { code: 'E_UNAUTHORIZED', message: 'no' } });
        hooks.push(JSON.parse(body));
        return send(200, hookAnswer);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    gateway = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('passes after init: gateway and token from the settings, a dry-run hook answered and its session closed', async () => {
    expect((await ahp(['init', 'claude-code', '--gateway', gateway, '--token', 'good'])).code).toBe(0);
    hookAnswer = {};
    hooks.length = 0;
    const result = await ahp(['doctor']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('answered by the oracles');
    expect(hooks).toEqual([
      expect.objectContaining({ hook_event_name: 'PreToolUse', tool_name: 'AhpDoctor', session_id: expect.stringMatching(/^ahp-doctor-/) }),
      expect.objectContaining({ hook_event_name: 'SessionEnd' }),
    ]);
  });

  it('fails on a refused token, on a failure-policy answer, and exits 3 without a gateway', async () => {
    const refused = await ahp(['doctor', '--gateway', gateway], { AHP_TOKEN: 'bad' });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('token was refused');
    hookAnswer = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'Blocked by AHP (fail-closed): no decision arrived before the hook deadline (E_TIMEOUT)' } };
    const policy = await ahp(['doctor', '--gateway', gateway], { AHP_TOKEN: 'good' });
    expect(policy.code).toBe(1);
    expect(policy.stdout).toContain('failure policy');
    const down = await ahp(['doctor', '--gateway', 'http://127.0.0.1:9'], { AHP_TOKEN: 'good' });
    expect(down.code).toBe(3);
  });
});
