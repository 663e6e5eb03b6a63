/**
 * The built `ahp` CLI (dist/cli.js) as a process against the run's private Redis: every command,
 * its output formats and its exit codes. Each test uses its own key prefix.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uniqueKeyPrefix } from '@ahp/embedded-redis/testing';
import type {} from '@ahp/embedded-redis/vitest-global-setup';
import { SignalLogLineSchema, aggregateSignals, type Intensity, type Signal, type SignalPayload } from '@ahp/protocol';
import { connectRedis, createConfigStore, createKeys, createRedisStores, type RedisClient } from '@ahp/store';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');

const GOOD = `version: 1
hooks:
  post-tool-use:
    oracles:
      - name: notes
        use: rules
        rules:
          - id: note
            condition: "true"
            intensity: aid
            message: "hi"
`;

const BAD = `version: 1
hooks:
  pre-issue-submit:
    oracles:
      - name: checklist-validator
        use: rules
        rules:
          - condition: "checklist.incomplete_count >"
            intensity: block
`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let dir: string;
let redis: RedisClient;
let prefix: string;

function ahp(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', REDIS_URL: inject('redisUrl'), AHP_KEY_PREFIX: prefix, ...env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the CLI first (npx nx build @ahp/cli; nx test does it)`);
  dir = await mkdtemp(join(tmpdir(), 'ahp-cli-test-'));
  await writeFile(join(dir, 'good.yaml'), GOOD);
  await writeFile(join(dir, 'bad.yaml'), BAD);
  redis = await connectRedis({ url: inject('redisUrl'), name: 'cli-test', logger: { debug() {}, info() {}, warn() {}, error() {} } });
});

afterAll(async () => {
  await redis?.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach((context) => {
  prefix = uniqueKeyPrefix(context.task.name).replace(/:$/, '');
});

describe('ahp: help and usage', () => {
  it('prints help for the tool, a group and a command, and exits 2 on usage errors', async () => {
    const main = await ahp(['--help']);
    expect(main.code).toBe(0);
    expect(main.stdout).toContain('ahp config publish <file>');
    expect(main.stdout).toContain('Exit codes: 0 ok, 1 invalid input or configuration, 2 usage error, 3 Redis unreachable.');
    expect((await ahp(['config', '--help'])).stdout).toMatch(/history \[options\]\s+list published versions/);
    const exportHelp = await ahp(['log', 'export', '--help']);
    expect(exportHelp.code).toBe(0);
    expect(exportHelp.stdout).toContain('--intensity <I>');

    expect(await ahp([])).toMatchObject({ code: 2, stderr: expect.stringContaining('Usage: ahp') });
    expect(await ahp(['nope'])).toMatchObject({ code: 2, stderr: `ahp: unknown command 'nope'; see "ahp --help"\n` });
    expect(await ahp(['config', 'frobnicate'])).toMatchObject({ code: 2, stderr: `ahp: unknown command 'frobnicate'; see "ahp config --help"\n` });
    expect(await ahp(['config', 'validate'])).toMatchObject({ code: 2, stderr: `ahp: missing required argument 'file'; see "ahp config validate --help"\n` });
    expect(await ahp(['config', 'validate', 'good.yaml', '--since', '1h'])).toMatchObject({ code: 2, stderr: `ahp: unknown option '--since'; see "ahp config validate --help"\n` });
    expect(await ahp(['config', 'history', '--limit'])).toMatchObject({ code: 2, stderr: `ahp: option '--limit <N>' argument missing; see "ahp config history --help"\n` });
    expect(await ahp(['config', 'history', '--limit', 'ten'])).toMatchObject({ code: 2 });
  });
});

describe('ahp config', () => {
  it('validate: a valid file, issues as file:line:column path: message, unreadable files', async () => {
    expect(await ahp(['config', 'validate', 'good.yaml'])).toMatchObject({ code: 0, stdout: 'good.yaml: valid (1 hook, 1 oracle, 1 rule)\n' });
    const bad = await ahp(['config', 'validate', 'bad.yaml'], { REDIS_URL: undefined });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^bad\.yaml:8:\d+ hooks\.pre-issue-submit\.oracles\[0\]\.rules\[0\]\.condition: invalid expression/);
    const json = await ahp(['config', 'validate', 'bad.yaml', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, issues: [{ line: 8, path: 'hooks.pre-issue-submit.oracles[0].rules[0].condition' }] });
    await writeFile(join(dir, 'syntax.yaml'), 'hooks:\n  pre-issue-submit:\n   oracles: [\n');
    expect(await ahp(['config', 'validate', 'syntax.yaml'])).toMatchObject({ code: 1, stdout: expect.stringMatching(/^syntax\.yaml:\d+:\d+ /) });
    expect(await ahp(['config', 'validate', 'missing.yaml'])).toMatchObject({ code: 1, stderr: 'ahp: cannot read missing.yaml: no such file\n' });
  });

  it('validate: prints lint warnings and still exits 0; --strict exits 1 on them', async () => {
    await writeFile(
      join(dir, 'warned.yaml'),
      'hooks:\n  user-prompt-submit:\n    oracles:\n      - name: prompts\n        rules:\n          - id: rm\n            condition: \'tool.input.command contains "rm"\'\n            intensity: prompt\n',
    );
    const run = await ahp(['config', 'validate', 'warned.yaml'], { REDIS_URL: undefined });
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')).toEqual([
      'warned.yaml:2:3 hooks.user-prompt-submit: warning: user-prompt-submit can never deny anything: none of its enabled oracles can block or ask for approval (only its failure policy can)',
      'warned.yaml:7:25 hooks.user-prompt-submit.oracles[0].rules[0].condition: warning: user-prompt-submit/prompts/rm can never match: it reads tool.input.command, which the user-prompt-submit context never has',
      'warned.yaml: valid (1 hook, 1 oracle, 1 rule, 2 warnings)',
      '',
    ]);
    const json = await ahp(['config', 'validate', 'warned.yaml', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      valid: true,
      warnings: [
        { kind: 'never-denies', subject: 'user-prompt-submit', line: 2, column: 3, path: 'hooks.user-prompt-submit' },
        { kind: 'unknown-field', subject: 'user-prompt-submit/prompts/rm', line: 7, column: 25 },
      ],
    });
    expect(await ahp(['config', 'validate', 'warned.yaml', '--strict'])).toMatchObject({ code: 1, stderr: 'warned.yaml: 2 warnings (--strict)\n' });
    expect(await ahp(['config', 'validate', 'good.yaml', '--strict'])).toMatchObject({ code: 0, stdout: 'good.yaml: valid (1 hook, 1 oracle, 1 rule)\n' });
    const repository = await ahp(['config', 'validate', join(import.meta.dirname, '..', '..', '..', '.ahp', 'hooks.yaml'), '--strict']);
    expect(repository.code).toBe(0);
    expect(repository.stdout).not.toContain('warning:');
  });

  it('publish: needs a Redis (exit 2 without, 3 when unreachable), stores versions, says unchanged, refuses invalid files', async () => {
    expect(await ahp(['config', 'publish', 'good.yaml'], { REDIS_URL: undefined })).toMatchObject({ code: 2, stderr: expect.stringContaining('set REDIS_URL') });
    const closedPort = await freePort();
    const unreachable = await ahp(['config', 'publish', 'good.yaml', '--redis-url', `redis://:secret@127.0.0.1:${closedPort}`, '--connect-timeout', '500']);
    expect(unreachable).toMatchObject({ code: 3, stderr: expect.stringContaining('cannot reach Redis') });
    expect(unreachable.stderr).not.toContain('secret');

    // stderr is a pipe here, so the progress comes as plain lines, one per stage.
    expect(await ahp(['config', 'publish', 'good.yaml', '--by', 'alice'])).toEqual({
      code: 0,
      stdout: 'published version 1 (good.yaml)\n',
      stderr: 'config publish: validating good.yaml\nconfig publish: connecting to Redis\nconfig publish: publishing good.yaml\n',
    });
    expect(await ahp(['config', 'publish', 'good.yaml'])).toMatchObject({ code: 0, stdout: 'unchanged: version 1 already has this text\n' });
    const rejected = await ahp(['config', 'publish', 'bad.yaml']);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toMatch(/^config publish: validating bad\.yaml\nbad\.yaml:8:\d+ .*\nbad\.yaml: not published \(1 issue\); the current version stays in force\n$/);
    await writeFile(join(dir, 'good2.yaml'), GOOD.replace('"hi"', '"hello"'));
    const second = await ahp(['config', 'publish', 'good2.yaml', '--json', '--by', 'bob']);
    expect(JSON.parse(second.stdout)).toMatchObject({ published: true, version: 2, unchanged: false, digest: expect.stringMatching(/^[0-9a-f]{64}$/) });

    const store = createConfigStore({ redis, keys: createKeys({ prefix }) });
    expect(await store.currentVersion()).toBe(2);
    expect((await store.history(5)).map((v) => [v.version, v.published_by])).toEqual([
      [2, 'bob'],
      [1, 'alice'],
    ]);
  });

  it('publish: concurrent CLI processes get distinct versions without gaps', async () => {
    const files = await Promise.all(
      [1, 2, 3, 4].map(async (n) => {
        const file = `c${n}.yaml`;
        await writeFile(join(dir, file), GOOD.replace('"hi"', `"hi ${n}"`));
        return file;
      }),
    );
    const runs = await Promise.all(files.map((file) => ahp(['config', 'publish', file, '--json'])));
    const versions = runs.map((run) => (JSON.parse(run.stdout) as { version: number }).version);
    expect(versions.sort()).toEqual([1, 2, 3, 4]);
  });

  it('show, history and diff', async () => {
    expect(await ahp(['config', 'show'])).toMatchObject({ code: 1, stderr: expect.stringContaining('no hooks configuration has been published yet') });
    await ahp(['config', 'publish', 'good.yaml', '--by', 'alice']);
    await writeFile(join(dir, 'next.yaml'), GOOD.replace('"hi"', '"hello"'));

    const diff = await ahp(['config', 'diff', 'next.yaml']);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toMatch(/^--- version 1 \(published .* by alice\)\n\+\+\+ next\.yaml\n@@ -8,4 \+8,4 @@\n/);
    expect(diff.stdout).toContain('-            message: "hi"\n+            message: "hello"\n');
    expect(await ahp(['config', 'diff', 'good.yaml'])).toMatchObject({ code: 0, stdout: '', stderr: 'good.yaml is identical to version 1\n' });

    await ahp(['config', 'publish', 'next.yaml', '--by', 'bob']);
    expect(await ahp(['config', 'show'])).toMatchObject({ code: 0, stdout: GOOD.replace('"hi"', '"hello"'), stderr: expect.stringMatching(/^# version 2 /) });
    expect((await ahp(['config', 'show', '--version', '1'])).stdout).toBe(GOOD);
    const shown = JSON.parse((await ahp(['config', 'show', '--version', '1', '--json'])).stdout) as Record<string, unknown>;
    expect(shown).toMatchObject({ version: 1, source: GOOD, published_by: 'alice', config: { version: 1, hooks: { 'post-tool-use': expect.any(Object) } } });
    expect(await ahp(['config', 'show', '--version', '7'])).toMatchObject({ code: 1, stderr: 'ahp: there is no version 7\n' });
    expect((await ahp(['config', 'diff', 'next.yaml', '--version', '1'])).stdout).toContain('+            message: "hello"');

    const history = await ahp(['config', 'history']);
    expect(history.stdout.split('\n')[0]).toMatch(/^ {2}VERSION +PUBLISHED AT +BY +DIGEST$/);
    expect(history.stdout).toMatch(/^\* 2 .* bob /m);
    expect(history.stdout).toMatch(/^ {2}1 .* alice /m);
    expect(JSON.parse((await ahp(['config', 'history', '--json', '--limit', '1'])).stdout)).toMatchObject({ current: 2, versions: [{ version: 2 }] });
  });
});

describe('ahp log', () => {
  const payloads: Record<Intensity, SignalPayload> = {
    block: { level: 'blocking', decision: 'deny', reason: 'checklist', resolvable: true, resolution_path: ['finish it'] },
    control: { level: 'controlling', decision: 'allow_with_modification', modifications: [{ target: 'x', original: 1, updated: 2, reason: 'r' }], reversible: true },
    prompt: { level: 'prompting', decision: 'warn', severity: 'medium', message: 'big', suggestions: [], continue_allowed: true },
    aid: { level: 'aiding', decision: 'suggest', context: 'done', suggestions: [] },
  };

  /** Sends one signal to `agent` through a decided hook, optionally answered. */
  async function signal(agent: string, intensity: Intensity, source: string, trigger: 'pre-issue-submit' | 'post-issue-submit', action?: string): Promise<Signal> {
    const stores = createRedisStores({ redis, keys: createKeys({ prefix }) });
    const hookId = randomUUID();
    const now = Date.now();
    await stores.hooks.open({ hookId, agentId: agent, sessionId: `s-${agent}`, gatewayId: 'gw', trigger, now, deadlineAt: now + 5_000 });
    const sent: Signal = {
      header: { id: randomUUID(), type: 'quality-gate', timestamp: new Date(now).toISOString(), source, intensity, correlation_id: hookId },
      context: { oracle: source, trigger, rule: `${source}-rule`, config_version: 4 },
      payload: payloads[intensity],
    };
    const decision = { ...aggregateSignals({ hookId, trigger, signals: [sent], now: new Date(now).toISOString() }), config_version: 4 };
    await stores.hooks.decide(hookId, decision, now + 7);
    if (action !== undefined) {
      await stores.signals.respond(agent, { signal_id: sent.header.id, consumed_at: new Date().toISOString(), action: action as never }, Date.now());
    }
    return sent;
  }

  async function seed(): Promise<void> {
    await signal('alice', 'block', 'checklist-validator', 'pre-issue-submit', 'retry_after_fix');
    await signal('alice', 'prompt', 'change-size-limiter', 'pre-issue-submit', 'acknowledge');
    await signal('alice', 'aid', 'notification', 'post-issue-submit', 'suggestion_applied');
    await signal('bob', 'block', 'checklist-validator', 'pre-issue-submit', 'abort');
    await signal('bob', 'block', 'checklist-validator', 'pre-issue-submit');
  }

  it('export: JSONL on stdout with the six fields of docs/spec/signal-log.md#signal-log-lines first, filters, --out and --limit', async () => {
    await seed();
    const all = await ahp(['log', 'export']);
    expect(all.code).toBe(0);
    // stderr is a pipe: the progress is plain lines (one here: the log fits in one page), then the count.
    expect(all.stderr).toBe('log export: 100% (9 log entries read)\n5 signals, 9 log entries read\n');
    const lines = all.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      expect(SignalLogLineSchema.safeParse(line).success).toBe(true);
      expect(Object.keys(line).slice(0, 5)).toEqual(['timestamp', 'hook', 'intensity', 'source', 'consumed']);
    }
    expect(lines[0]).toMatchObject({ consumed: true, action: 'retry_after_fix', rule: 'checklist-validator-rule', config_version: 4, agent_id: 'alice', latency_ms: 7 });
    // What the signal acted on: here, without a worker's context, the block's reason.
    expect(lines[0]).toMatchObject({ subject: { m: 'checklist' } });
    expect(lines[4]).toMatchObject({ agent_id: 'bob', consumed: false });
    expect(lines[4]).not.toHaveProperty('action');

    const bobBlocks = await ahp(['log', 'export', '--agent', 'bob', '--intensity', 'block']);
    expect(bobBlocks.stdout.trimEnd().split('\n')).toHaveLength(2);
    const aid = await ahp(['log', 'export', '--hook', 'post-issue-submit', '--since', '1h']);
    expect(aid.stdout.trimEnd().split('\n').map((l) => (JSON.parse(l) as { source: string }).source)).toEqual(['notification']);
    expect((await ahp(['log', 'export', '--since', new Date(Date.now() + 60_000).toISOString()])).stdout).toBe('');
    expect((await ahp(['log', 'export', '--until', '2000-01-01'])).stdout).toBe('');

    const out = await ahp(['log', 'export', '--source', 'checklist-validator', '--limit', '2', '--out', 'blocks.jsonl']);
    expect(out).toMatchObject({ code: 0, stdout: '', stderr: 'log export: 100% (9 log entries read)\n2 signals written to blocks.jsonl, 9 log entries read, stopped at --limit 2\n' });
    expect((await readFile(join(dir, 'blocks.jsonl'), 'utf8')).trimEnd().split('\n')).toHaveLength(2);
    const json = await ahp(['log', 'export', '--out', 'all.jsonl', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ file: 'all.jsonl', lines: 5, scanned: 9, skipped: 0, truncated: false });

    expect(await ahp(['log', 'export', '--intensity', 'loud'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--intensity') });
    expect(await ahp(['log', 'export', '--since', 'yesterday'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--since must be') });
    expect(await ahp(['log', 'export', '--hook', 'pre-deploy'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--hook') });
  });

  it('stats: how each intensity was answered, per hook, oracle, rule and version; --json', async () => {
    await seed();
    const text = await ahp(['log', 'stats']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^5 signals, 4 answered \(80%\), 1 unanswered/);
    expect(text.stdout).toMatch(/block +3 +2 +retry_after_fix +1 +50%/);
    expect(text.stdout).toMatch(/ +abort +1 +50%/);
    expect(text.stdout).toContain('By oracle');
    expect(text.stdout).toMatch(/checklist-validator +3 +2 \(67%\)/);

    const json = JSON.parse((await ahp(['log', 'stats', '--agent', 'bob', '--json'])).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      filter: { agent_id: 'bob' },
      total: { signals: 2, consumed: 1, unanswered: 1 },
      by_action: { abort: { intensity: 'block', count: 1, share: 1 } },
      by_config_version: { '4': { signals: 2 } },
    });
    expect((await ahp(['log', 'stats', '--agent', 'nobody'])).stdout).toBe('0 signals, 0 answered (0%), 0 unanswered\n');
  });
});

/** A port nothing listens on (taken from the OS, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
