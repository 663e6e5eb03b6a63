/**
 * The demo fleet against a real stack (a throwaway Redis, one gateway and one oracle worker as
 * processes, the repository's .ahp/hooks.yaml published): every intensity reaches the signal log
 * with the coder's responses, the planner's plan waits for the operators, the lead's shutdown of
 * the helper is approved, and a second start keeps the same credentials and finds the same plan.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findWorkspaceRoot, provideRedis, type RedisHandle } from '@ahp/embedded-redis';
import { AgentCredentialsFileSchema, AgentTokensFileSchema } from '@ahp/protocol';
import { connectRedis, createKeys, createRedisStores, readSignalLog, type RedisClient } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenDigest } from '../src/agent-tokens.js';
import { DEMO_FLEET, ensureDemoCredentials, startDemoFleet } from '../src/demo-fleet.js';
import { publishHooksFile } from '../src/hooks-config-file.js';
import { agentEndpoint, startStack, type Stack } from '../src/start-stack.js';

const KEY_PREFIX = 'demo-fleet-test';
let redisHandle: RedisHandle;
let redis: RedisClient;
let dir: string;
let stack: Stack;

beforeAll(async () => {
  redisHandle = await provideRedis({ mode: 'ephemeral' });
  dir = await mkdtemp(join(tmpdir(), 'ahp-demo-fleet-'));
  const published = await publishHooksFile({ redisUrl: redisHandle.url, keyPrefix: KEY_PREFIX, path: join(findWorkspaceRoot(), '.ahp', 'hooks.yaml') });
  expect(published.kind).toBe('published');
  await ensureDemoCredentials(join(dir, 'agent-tokens.json'), join(dir, 'demo-fleet.json'));
  stack = await startStack({ redisUrl: redisHandle.url, tokensFile: join(dir, 'agent-tokens.json'), keyPrefix: KEY_PREFIX, gateways: 1, workers: 1, logDir: dir });
  redis = await connectRedis({ url: redisHandle.url, name: 'demo-fleet-test', logger: { debug() {}, info() {}, warn() {}, error() {} } });
}, 120_000);

afterAll(async () => {
  await redis?.close();
  await stack?.stop();
  await redisHandle?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('ensureDemoCredentials', () => {
  it('mints every demo agent once, keeps other agents, and reuses the tokens on the next start', async () => {
    const tokensFile = join(dir, 'other-tokens.json');
    const credentialsFile = join(dir, 'other-demo.json');
    const first = await ensureDemoCredentials(tokensFile, credentialsFile);
    expect(first.map((c) => c.agent.id)).toEqual(DEMO_FLEET.map((a) => a.id));
    const again = await ensureDemoCredentials(tokensFile, credentialsFile);
    expect(again.map((c) => c.token)).toEqual(first.map((c) => c.token));
    const digests = AgentTokensFileSchema.parse(JSON.parse(await readFile(tokensFile, 'utf8'))).agents.map((a) => a.token_sha256);
    expect(digests).toEqual(first.map((c) => tokenDigest(c.token)));
    expect(AgentCredentialsFileSchema.parse(JSON.parse(await readFile(credentialsFile, 'utf8'))).agents).toHaveLength(DEMO_FLEET.length);
  });
});

describe('startDemoFleet', () => {
  it('shows all four intensities with responses, a plan waiting for operators and a completed shutdown', async () => {
    const credentials = await ensureDemoCredentials(join(dir, 'agent-tokens.json'), join(dir, 'demo-fleet.json'));
    const lines: string[] = [];
    const [gateway] = stack.gateways;
    if (!gateway) throw new Error('no gateway');
    const fleet = await startDemoFleet({ url: agentEndpoint(gateway, '127.0.0.1'), credentials, log: (line) => lines.push(line), runId: 'test', coderEveryMs: 60_000, leadDelayMs: 500 });
    const keys = createKeys({ prefix: KEY_PREFIX });
    const stores = createRedisStores({ redis, keys });
    try {
      await expect
        .poll(
          async () => {
            const log = await readSignalLog(redis, keys, { count: 1000 });
            const intensities = new Set(log.filter((r) => r.kind === 'signal').map((r) => r.entry.intensity));
            const answered = log.filter((r) => r.kind === 'response').length;
            return { intensities: [...intensities].sort(), answered: answered > 0 };
          },
          { timeout: 30_000, interval: 250 },
        )
        .toEqual({ intensities: ['aid', 'block', 'control', 'prompt'], answered: true });

      await expect
        .poll(async () => (await stores.requests.list({ status: 'pending', target: 'operators', type: 'plan_approval' })).map((r) => r.request_id), { timeout: 15_000 })
        .toContain('req_demo_test_plan_1');

      await expect
        .poll(async () => (await stores.requests.list({ type: 'shutdown', agent: 'demo-helper' })).map((r) => r.status), { timeout: 20_000 })
        .toEqual(['approved']);
      await expect.poll(() => lines.some((line) => line.startsWith('demo-helper: shut down')), { timeout: 10_000 }).toBe(true);
      expect(lines.some((line) => line.includes('demo-helper: got a message from demo-lead'))).toBe(true);
      expect(lines.some((line) => line.startsWith('demo-coder: bash rm -rf / → blocked'))).toBe(true);
      // The risky command waits for a person: a tool approval addressed to the operators.
      await expect
        .poll(async () => (await stores.requests.list({ status: 'pending', type: 'tool_approval', agent: 'demo-ops' })).map((r) => r.payload), { timeout: 15_000 })
        .toEqual([expect.objectContaining({ tool: 'bash', input: { command: 'kubectl rollout restart deployment/api' } })]);
      expect(lines.some((line) => line.startsWith('demo-ops: kubectl rollout restart is waiting for an operator'))).toBe(true);
    } finally {
      await fleet.stop();
    }

    // A second start finds the same plan still pending instead of opening another one.
    const secondLines: string[] = [];
    const again = await startDemoFleet({ url: agentEndpoint(gateway, '127.0.0.1'), credentials, log: (line) => secondLines.push(line), runId: 'test', coderEveryMs: 60_000, leadDelayMs: 60_000 });
    try {
      await expect.poll(() => secondLines.some((line) => line.startsWith('demo-planner: plan #1 is waiting')), { timeout: 10_000 }).toBe(true);
      await expect
        .poll(async () => (await stores.requests.list({ type: 'plan_approval', agent: 'demo-planner' })).map((r) => r.request_id), { timeout: 10_000 })
        .toEqual(['req_demo_test_plan_1']);
    } finally {
      await again.stop();
    }
  });
});
