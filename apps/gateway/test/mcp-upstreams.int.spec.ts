// Starts: the MCP fixture server (e2e/fixtures/mcp-fixture-server.mjs, the official SDK's low-level
// Server, as the reference servers use) as a stdio child of McpUpstreams — the gateway's shared
// upstream connection — and the same fixture over Streamable HTTP. No Redis, no hooks: this is
// the connection alone.
//
// Proves: an upstream's JSON-RPC error (an unknown tool) is the calling agent's outcome only — the
// other agent's call in flight on the same connection completes, on the same process; an upstream
// process that exits (a real transport failure) is replaced by the next call.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { McpServerConfigSchema, type McpServerConfig } from '@ahp/protocol';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { McpUpstreams, UpstreamError } from '../src/mcp/mcp-upstreams.js';
import { testLogger } from './support/test-gateway.js';

const FIXTURE = fileURLToPath(new URL('../../../e2e/fixtures/mcp-fixture-server.mjs', import.meta.url));

function textOf(result: CallToolResult): string {
  return result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
}

function pidOf(result: CallToolResult): string {
  const pid = /\(pid (\d+)\)/.exec(textOf(result))?.[1];
  if (pid === undefined) throw new Error(`no pid in ${textOf(result)}`);
  return pid;
}

async function failure(call: Promise<unknown>): Promise<UpstreamError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe('McpUpstreams: what one agent can do to a shared upstream connection', () => {
  let dir: string;
  let record: string;
  let upstreams: McpUpstreams;
  let http: ChildProcess;
  let httpServer: McpServerConfig;
  let stdioServer: McpServerConfig;

  /** Waits until `count` calls of `tool` reached the upstream (the record is written before it answers). */
  async function reached(tool: string, count: number): Promise<void> {
    await vi.waitFor(
      async () => {
        const lines = (await readFile(record, 'utf8').catch(() => '')).split('\n').filter((line) => line.includes(`"tool":"${tool}"`));
        if (lines.length < count) throw new Error(`${lines.length} of ${count} ${tool} calls reached the upstream`);
      },
      { timeout: 10_000, interval: 20 },
    );
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ahp-mcp-upstreams-'));
    record = join(dir, 'calls.jsonl');
    stdioServer = McpServerConfigSchema.parse({ id: 'local', upstream: { command: process.execPath, args: [FIXTURE, '--stdio', '--record', record] }, timeout_ms: 15_000 });
    http = spawn(process.execPath, [FIXTURE, '--record', join(dir, 'http.jsonl'), '--http', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve, reject) => {
      http.once('exit', (code) => reject(new Error(`the fixture exited with ${String(code)}`)));
      createInterface({ input: http.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    });
    httpServer = McpServerConfigSchema.parse({ id: 'remote', upstream: { url: `http://127.0.0.1:${port}/mcp` }, timeout_ms: 15_000 });
  });

  afterEach(async () => {
    await upstreams?.close();
  });

  afterAll(async () => {
    http?.kill('SIGTERM');
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("answers an unknown tool to its caller alone: the other agent's call in flight completes on the same process", async () => {
    upstreams = new McpUpstreams(testLogger());
    const before = pidOf(await upstreams.callTool(stdioServer, 'slow', { ms: 1 }, 15_000));
    const slowCalls = (await readFile(record, 'utf8')).split('\n').filter((line) => line.includes('"tool":"slow"')).length;

    // Agent B's call is running upstream when agent A calls a tool the server does not have.
    const victim = upstreams.callTool(stdioServer, 'slow', { ms: 1500 }, 15_000);
    await reached('slow', slowCalls + 1);
    const attacker = await failure(upstreams.callTool(stdioServer, 'no_such_tool', {}, 15_000));
    expect(attacker.kind).toBe('error_response');
    expect(attacker.message).toContain('Unknown tool: no_such_tool');

    const result = await victim;
    expect(textOf(result)).toContain('slept 1500 ms');
    expect(pidOf(result)).toBe(before);
    // And the calls after it still use the same process.
    expect(pidOf(await upstreams.callTool(stdioServer, 'slow', { ms: 1 }, 15_000))).toBe(before);
  });

  it('keeps an HTTP upstream connection through its JSON-RPC errors too', async () => {
    upstreams = new McpUpstreams(testLogger());
    const victim = upstreams.callTool(httpServer, 'slow', { ms: 800 }, 15_000);
    const attacker = await failure(upstreams.callTool(httpServer, 'no_such_tool', {}, 15_000));
    expect(attacker.kind).toBe('error_response');
    expect(textOf(await victim)).toContain('slept 800 ms');
  });

  it('replaces an upstream whose process exited (a real transport failure): the next call runs on a new process', async () => {
    upstreams = new McpUpstreams(testLogger());
    const before = pidOf(await upstreams.callTool(stdioServer, 'slow', { ms: 1 }, 15_000));
    const crashed = await failure(upstreams.callTool(stdioServer, 'exit', {}, 15_000));
    expect(crashed.kind).toBe('unavailable');
    const after = pidOf(await upstreams.callTool(stdioServer, 'slow', { ms: 1 }, 15_000));
    expect(after).not.toBe(before);
  });

  it("reports an upstream that cannot be started as unavailable, leaving the other servers' connections alone", async () => {
    upstreams = new McpUpstreams(testLogger());
    const missing = McpServerConfigSchema.parse({ id: 'missing', upstream: { command: join(dir, 'no-such-binary') }, timeout_ms: 5_000 });
    expect((await failure(upstreams.callTool(missing, 'slow', {}, 5_000))).kind).toBe('unavailable');
    expect(textOf(await upstreams.callTool(stdioServer, 'slow', { ms: 1 }, 15_000))).toContain('slept 1 ms');
  });
});
