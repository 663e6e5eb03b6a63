/**
 * The packed CLI installed as a user would: scripts/pack.mjs builds the tarball, `npm i -g` installs
 * it into a temporary --prefix (never this machine's global one), and the installed `ahp` runs
 * from a directory outside the repository, so nothing can resolve the monorepo's node_modules.
 * Real parts: npm, the tarball, node:http for a stand-in gateway. Also `npx ahp` from the
 * repository root (the workspace bin that `npm ci` links).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ClaudeCodeHookOutputSchema, CODEX_OUTPUT_SCHEMAS, COPILOT_OUTPUT_SCHEMAS } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const CLI_DIR = join(import.meta.dirname, '..');
const REPO_ROOT = join(CLI_DIR, '..', '..');

let dir: string;
let ahpBin: string;
let installed: string;
let server: Server;
let gatewayUrl: string;

function ahp(args: readonly string[], env: Record<string, string>, stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(ahpBin, args, { cwd: dir, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ahp-cli-pack-'));
  const { stdout } = await run(process.execPath, [join(CLI_DIR, 'scripts', 'pack.mjs'), '--out', dir], { cwd: CLI_DIR });
  const tarball = stdout.trim();
  expect(tarball).toMatch(/ahp-cli-[\d.]+\.tgz$/);
  const prefix = join(dir, 'prefix');
  // --offline: the package has no dependencies, so installing it must not need the registry.
  await run('npm', ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: dir });
  ahpBin = join(prefix, 'bin', 'ahp');
  installed = join(prefix, 'lib', 'node_modules', '@ahp', 'cli');
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const ok = request.headers.authorization === 'Bearer agent-token';
      response.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      response.end(JSON.stringify(ok ? { hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: 'checked' } } : { error: { code: 'E_UNAUTHORIZED', message: 'no' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  gatewayUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}, 180_000);

afterAll(async () => {
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const PRE_TOOL_USE = JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's-1', tool_name: 'Bash', tool_input: { command: 'ls' } });

describe('the packed @ahp/cli', () => {
  it('installs with no dependencies and only its bin and bundles', async () => {
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest['dependencies']).toBeUndefined();
    expect(manifest['bin']).toEqual({ ahp: './bin/ahp.js' });
    expect((await readdir(join(installed, 'dist'))).sort()).toEqual(['cli.js', 'hook-main.js']);
  });

  it('keeps the hook entry to node builtins and its sibling cli.js', async () => {
    const bundle = await readFile(join(installed, 'dist', 'hook-main.js'), 'utf8');
    const specifiers = [...bundle.matchAll(/(?:from\s*|import\s*\(\s*)["']([^"']+)["']/g)].map((match) => match[1]);
    expect(specifiers.length).toBeGreaterThan(0);
    for (const specifier of specifiers) expect(specifier === './cli.js' || specifier?.startsWith('node:')).toBe(true);
  });

  it('runs ahp --help outside the repository', async () => {
    const result = await ahp(['--help'], {}, '');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: ahp <command>');
    expect(result.stdout).toContain('ahp hook claude-code');
  });

  it("prints only the gateway's answer on stdout for a hook", async () => {
    const result = await ahp(['hook', 'claude-code', '--gateway', gatewayUrl], { AHP_TOKEN: 'agent-token' }, PRE_TOOL_USE);
    expect(result.code).toBe(0);
    expect(result.stdout.endsWith('\n')).toBe(true);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(ClaudeCodeHookOutputSchema.parse(JSON.parse(result.stdout))).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: 'checked' } });
  });

  it('denies a PreToolUse explicitly when the gateway refuses the token or cannot be reached', async () => {
    for (const [gateway, token] of [[gatewayUrl, 'wrong'], ['http://127.0.0.1:9', 'agent-token']] as const) {
      const result = await ahp(['hook', 'claude-code', '--gateway', gateway], { AHP_TOKEN: token }, PRE_TOOL_USE);
      expect(result.code).toBe(0);
      const output = ClaudeCodeHookOutputSchema.parse(JSON.parse(result.stdout));
      expect(output.hookSpecificOutput?.permissionDecision).toBe('deny');
      expect(result.stderr).toMatch(/^ahp: /);
    }
  });

  it('runs the Codex and Copilot hooks from the package: a PreToolUse the gateway refuses is denied in each agent\'s form', async () => {
    const codex = await ahp(['hook', 'codex', '--gateway', gatewayUrl], { AHP_TOKEN: 'wrong' }, JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's-1', tool_name: 'Bash', tool_input: { command: 'ls' } }));
    expect(codex.code).toBe(0);
    expect(CODEX_OUTPUT_SCHEMAS.PreToolUse.parse(JSON.parse(codex.stdout)).hookSpecificOutput?.permissionDecision).toBe('deny');
    const copilot = await ahp(['hook', 'copilot', 'preToolUse', '--gateway', gatewayUrl], { AHP_TOKEN: 'wrong' }, JSON.stringify({ sessionId: 's-1', toolName: 'bash', toolArgs: '{}' }));
    expect(copilot.code).toBe(0);
    expect(COPILOT_OUTPUT_SCHEMAS.preToolUse.parse(JSON.parse(copilot.stdout)).permissionDecision).toBe('deny');
  });

  it('hands a hook call with --help to the full CLI', async () => {
    const result = await ahp(['hook', 'claude-code', '--help'], {}, '');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: ahp hook claude-code');
  });
});

describe('npx ahp from the repository root', () => {
  it('runs the workspace bin without asking the registry', async () => {
    const { stdout } = await run('npx', ['--no-install', 'ahp', '--help'], { cwd: REPO_ROOT });
    expect(stdout).toContain('Usage: ahp <command>');
  });
});
