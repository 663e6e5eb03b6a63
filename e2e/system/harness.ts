/**
 * Starts the real system for one test file: agents with fresh tokens, gateways and workers as
 * separate processes (tools/stack) over the run's private Redis, under a key prefix of its own.
 * In a cluster run (`AHP_TEST_REDIS=cluster`, see `npx nx run @ahp/e2e:test-cluster`) the
 * processes and the test's own client use the run's private Redis Cluster instead
 * (`REDIS_CLUSTER_NODES`).
 * Restarts stay off (startStack's `restart` is not passed): the crash tests kill processes on
 * purpose and check what the survivors do, so a killed process must stay dead.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentIdentity, ServerFrame } from '@ahp/protocol';
import { parseServerFrame, PROTOCOL_VERSION } from '@ahp/protocol';
import { mintCredentials, startStack, writeTokensFile, type AgentCredential, type Stack, type StackOptions } from '@ahp/stack';
import { connectRedis, createKeys, createRedisStores, type RedisClient, type RedisStores } from '@ahp/store';
import { uniqueKeyPrefix } from '@ahp/embedded-redis/testing';
import type {} from '@ahp/embedded-redis/vitest-global-setup';
import { inject } from 'vitest';
import WebSocket from 'ws';

export const SLOW_ORACLE_PLUGIN = fileURLToPath(new URL('../fixtures/slow-oracle.mjs', import.meta.url));

export interface SystemOptions extends Pick<StackOptions, 'gateways' | 'workers' | 'gatewayEnv' | 'workerEnv' | 'console'> {
  name: string;
  agents: AgentIdentity[];
  /**
   * `host:port,…` of a Redis Cluster the test started itself (the failover test).
   * @defaultValue the run's: its private cluster under `AHP_TEST_REDIS=cluster`, else one Redis
   */
  clusterNodes?: string;
}

export interface System {
  stack: Stack;
  dir: string;
  /** The Redis key prefix of this system's processes (e.g. for the config store or the `ahp` CLI). */
  keyPrefix: string;
  redis: RedisClient;
  stores: RedisStores;
  credential(agentId: string): AgentCredential;
  token(agentId: string): string;
  stop(): Promise<void>;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

export async function startSystem(options: SystemOptions): Promise<System> {
  const dir = await mkdtemp(join(tmpdir(), `ahp-e2e-${options.name}-`));
  const credentials = mintCredentials(options.agents);
  const tokensFile = join(dir, 'agent-tokens.json');
  await writeTokensFile(tokensFile, credentials);
  const keyPrefix = uniqueKeyPrefix(options.name).replace(/:$/, '');
  const clusterNodes = options.clusterNodes ?? inject('redisClusterNodes');
  // On a cluster REDIS_URL may only carry the nodes' scheme and credentials: the run's single
  // Redis must not be named beside it (the processes refuse two different Redis).
  const redisUrl = clusterNodes === '' ? inject('redisUrl') : undefined;
  const stack = await startStack({
    ...(redisUrl === undefined ? {} : { redisUrl }),
    // Always explicit: '' keeps a single-Redis run on one Redis whatever the environment says.
    redisClusterNodes: clusterNodes,
    tokensFile,
    keyPrefix,
    gateways: options.gateways ?? 1,
    workers: options.workers ?? 1,
    logDir: dir,
    ...(options.gatewayEnv ? { gatewayEnv: options.gatewayEnv } : {}),
    ...(options.workerEnv ? { workerEnv: options.workerEnv } : {}),
    ...(options.console ? { console: options.console } : {}),
  });
  const redis = await connectRedis({ url: redisUrl, clusterNodes, name: `e2e-${options.name}`, logger: silent });
  const stores = createRedisStores({ redis, keys: createKeys({ prefix: keyPrefix }) });
  const credential = (agentId: string) => {
    const found = credentials.find((c) => c.agent.id === agentId);
    if (!found) throw new Error(`no agent ${agentId}`);
    return found;
  };
  return {
    stack,
    dir,
    keyPrefix,
    redis,
    stores,
    credential,
    token: (agentId) => credential(agentId).token,
    stop: async () => {
      await stack.stop();
      await redis.quit();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until `probe` returns a value other than undefined, checking every `everyMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 20_000, everyMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The pids of the worker processes that started a slow job (the slow oracle leaves a marker per pid). */
export async function slowJobPids(markerDir: string): Promise<number[]> {
  try {
    return (await readdir(markerDir)).map(Number);
  } catch {
    return [];
  }
}

/**
 * A raw WebSocket agent without the SDK: every frame it receives is kept, so tests can count
 * exactly what the gateway sent (e.g. one decision per hook, never two).
 */
export class RawAgent {
  readonly frames: ServerFrame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const parsed = parseServerFrame(data.toString('utf8'));
      if (parsed.ok) this.frames.push(parsed.frame);
      else throw new Error(`gateway sent an invalid frame: ${parsed.error.message}`);
    });
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  /** Opens the socket with the token in the Authorization header and completes hello/welcome. */
  static async connect(url: string, token: string): Promise<RawAgent> {
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` }, perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const agent = new RawAgent(ws);
    agent.send({ type: 'hello', id: 'hello-1', protocol: PROTOCOL_VERSION, client: { name: 'e2e-raw', version: '0' } });
    await agent.next((frame) => frame.type === 'welcome');
    return agent;
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** The first received frame (already or later) that matches. */
  next<T extends ServerFrame>(match: (frame: ServerFrame) => frame is T): Promise<T>;
  next(match: (frame: ServerFrame) => boolean): Promise<ServerFrame>;
  next(match: (frame: ServerFrame) => boolean): Promise<ServerFrame> {
    return eventually(() => this.frames.find(match), 'a matching frame');
  }

  framesFor(id: string): ServerFrame[] {
    return this.frames.filter((frame) => 'id' in frame && frame.id === id);
  }

  close(): void {
    this.ws.close(1000);
  }
}
