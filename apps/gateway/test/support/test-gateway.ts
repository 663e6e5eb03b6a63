/**
 * Starts real gateways in-process for integration specs: port 0, the run's private Redis (from
 * the embedded-redis global setup; its Redis Cluster under `AHP_TEST_REDIS=cluster`), a unique key
 * prefix, a fresh tokens file. Also opens the test's own view of the same Redis — the stores and
 * queue a worker would use.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uniqueKeyPrefix } from '@ahp/embedded-redis/testing';
// Declares `inject('redisUrl')` (the global setup provides it).
import type {} from '@ahp/embedded-redis/vitest-global-setup';
import {
  connectRedis,
  createHookQueue,
  createKeys,
  createRedisStores,
  resolveHookQueueShardCount,
  type RedisClient,
  type RedisHookQueue,
  type RedisStores,
  type StoreKeys,
} from '@ahp/store';
import { inject } from 'vitest';
import { parseGatewayConfig, type GatewayConfig } from '../../src/config/gateway-config.js';
import { startGateway, type RunningGateway } from '../../src/gateway-app.js';
import { tokenDigest } from '../../src/auth/agent-auth.service.js';
import { JsonLogger } from '../../src/logging/json-logger.js';
import { AGENTS_WS_PATH } from '../../src/ws/agent-ws.adapter.js';

/** One agent of the tokens file, with its plaintext token (the file keeps only the digest). */
export interface TestAgentEntry {
  id: string;
  name: string;
  token: string;
  team?: string;
  role?: 'lead' | 'teammate';
  revoked?: boolean;
}

/** One operator of the operator tokens file, with its plaintext token. */
export interface TestOperatorEntry {
  id: string;
  name: string;
  role: 'viewer' | 'approver' | 'admin';
  token: string;
  revoked?: boolean;
  /** A scoped token's teams and request types (OperatorScopeSchema); absent: fleet-wide. */
  scope?: { teams?: string[]; request_types?: ('shutdown' | 'plan_approval' | 'tool_approval' | 'intervention')[] };
}

/** A new random token. */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The default cast: two working agents and a revoked one. */
export function defaultAgents(): TestAgentEntry[] {
  return [
    { id: 'alpha', name: 'Alpha', token: newToken(), team: 'red', role: 'lead' },
    { id: 'beta', name: 'Beta', token: newToken(), team: 'red', role: 'teammate' },
    { id: 'gamma', name: 'Gamma', token: newToken(), revoked: true },
  ];
}

/** A tokens file in a temp folder; `write` replaces its content (then call `reloadTokens`). */
export class TokensFile {
  private constructor(
    readonly dir: string,
    readonly path: string,
  ) {}

  static async create(agents: readonly TestAgentEntry[]): Promise<TokensFile> {
    const dir = await mkdtemp(join(tmpdir(), 'ahp-gateway-'));
    const file = new TokensFile(dir, join(dir, 'agents.json'));
    await file.write(agents);
    return file;
  }

  /** Where {@link writeOperators} writes the operator tokens file. */
  get operatorsPath(): string {
    return join(this.dir, 'operators.json');
  }

  /** Writes the operator tokens file (digests only) beside the agents file. */
  async writeOperators(operators: readonly TestOperatorEntry[]): Promise<void> {
    const entries = operators.map(({ token, revoked, ...identity }) => ({
      ...identity,
      token_sha256: tokenDigest(token),
      ...(revoked === undefined ? {} : { revoked }),
    }));
    await writeFile(this.operatorsPath, JSON.stringify({ operators: entries }, null, 2));
  }

  async write(agents: readonly TestAgentEntry[]): Promise<void> {
    const entries = agents.map(({ token, revoked, ...identity }) => ({
      ...identity,
      token_sha256: tokenDigest(token),
      ...(revoked === undefined ? {} : { revoked }),
    }));
    await writeFile(this.path, JSON.stringify({ agents: entries }, null, 2));
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** The test's own handles on the gateway's Redis: what a worker or the console would use. */
export interface TestStore {
  redis: RedisClient;
  keys: StoreKeys;
  stores: RedisStores;
  queue: RedisHookQueue;
  close(): Promise<void>;
}

/** The run's Redis as a gateway's environment names it: its cluster's nodes when the run has one. */
export function redisEnv(): Record<string, string> {
  const nodes = inject('redisClusterNodes');
  return nodes === '' ? { REDIS_URL: inject('redisUrl') } : { REDIS_CLUSTER_NODES: nodes };
}

export async function openTestStore(keyPrefix: string, logger: JsonLogger): Promise<TestStore> {
  const nodes = inject('redisClusterNodes');
  const redis = await connectRedis(nodes === '' ? { url: inject('redisUrl'), name: 'gateway-test', logger } : { clusterNodes: nodes, name: 'gateway-test', logger });
  const keys = createKeys({ prefix: keyPrefix });
  // As many queue shards as the deployment's gateways use (one on a single Redis).
  const queue = createHookQueue({ redis, keys, shards: await resolveHookQueueShardCount(redis, keys, undefined) });
  return {
    redis,
    keys,
    stores: createRedisStores({ redis, keys }),
    queue,
    async close() {
      await queue.close();
      await redis.close();
    },
  };
}

/** A started gateway plus everything a spec needs to talk to it. */
export interface TestGateway {
  readonly gateway: RunningGateway;
  readonly config: GatewayConfig;
  readonly agents: Record<string, TestAgentEntry>;
  readonly operators: Record<string, TestOperatorEntry>;
  readonly tokensFile: TokensFile;
  readonly keyPrefix: string;
  /** `ws://127.0.0.1:<port>/v1/agents` */
  readonly wsUrl: string;
  /** `http://127.0.0.1:<port>` */
  readonly httpUrl: string;
  /** Every log line the gateway wrote (JSON). */
  readonly logs: string[];
  /** Shuts the gateway down gracefully (idempotent) and removes its tokens file. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Extra environment (strings, as a deployment would set them). */
  env?: Record<string, string>;
  /** Share another gateway's Redis keys (several instances of one deployment). */
  keyPrefix?: string;
  agents?: TestAgentEntry[];
  /** Operators of the operator API; none: AHP_OPERATOR_TOKENS_FILE stays unset. */
  operators?: TestOperatorEntry[];
  name?: string;
}

/**
 * Starts a gateway from an environment, as `main.ts` would, on 127.0.0.1 and a free port.
 * Deadlines default to a minute so that no test depends on a timer unless it sets one.
 */
export async function startTestGateway(options: StartOptions = {}): Promise<TestGateway> {
  const agents = options.agents ?? defaultAgents();
  const tokensFile = await TokensFile.create(agents);
  const operators = options.operators ?? [];
  if (operators.length > 0) await tokensFile.writeOperators(operators);
  const keyPrefix = options.keyPrefix ?? uniqueKeyPrefix(options.name ?? 'gateway');
  const config = parseGatewayConfig({
    // A spec that names its own Redis (REDIS_URL in env) gets that one, never the run's cluster.
    ...(options.env?.['REDIS_URL'] === undefined ? redisEnv() : {}),
    PORT: '0',
    HOST: '127.0.0.1',
    AHP_KEY_PREFIX: keyPrefix,
    AHP_GATEWAY_ID: `gw-test-${randomBytes(4).toString('hex')}`,
    AHP_AGENT_TOKENS_FILE: tokensFile.path,
    AHP_HOOK_DEADLINE_MS: '60000',
    AHP_SHUTDOWN_GRACE_MS: '10000',
    AHP_LOG_LEVEL: 'debug',
    ...(operators.length > 0 ? { AHP_OPERATOR_TOKENS_FILE: tokensFile.operatorsPath } : {}),
    ...options.env,
  });
  const logs: string[] = [];
  const logger = new JsonLogger({ level: config.logLevel, bindings: { service: 'gateway', gatewayId: config.gatewayId }, write: (line) => logs.push(line) });
  let gateway: RunningGateway;
  try {
    gateway = await startGateway(config, logger);
  } catch (error) {
    await tokensFile.remove();
    throw error;
  }
  return {
    gateway,
    config,
    agents: Object.fromEntries(agents.map((agent) => [agent.id, agent])),
    operators: Object.fromEntries(operators.map((operator) => [operator.id, operator])),
    tokensFile,
    keyPrefix,
    wsUrl: `ws://127.0.0.1:${gateway.port}${AGENTS_WS_PATH}`,
    httpUrl: `http://127.0.0.1:${gateway.port}`,
    logs,
    async stop() {
      await gateway.shutdown();
      await tokensFile.remove();
    },
  };
}

/** A logger for the test's own store handles: quiet unless something goes wrong. */
export function testLogger(): JsonLogger {
  return new JsonLogger({ level: 'warn', write: () => undefined });
}
