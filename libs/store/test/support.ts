/**
 * Shared test fixtures: a client on the run's private Redis, a recording logger, valid protocol
 * values, and polling for conditions (tests wait on state, never on fixed delays).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type {} from '@ahp/embedded-redis/vitest-global-setup';
import { uniqueKeyPrefix } from '@ahp/embedded-redis/testing';
import { aggregateSignals, type HookDecision, type HookTrigger, type Intensity, type Signal, type SignalPayload } from '@ahp/protocol';
import { inject } from 'vitest';
import { connectRedis, createKeys, type Logger, type RedisClient, type StoreKeys } from '../src/index.js';

/** One line a {@link RecordingLogger} received. */
export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

/** A Logger that keeps every line, for assertions. */
export interface RecordingLogger extends Logger {
  lines: LogLine[];
}

export function recordingLogger(): RecordingLogger {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, fields, message });
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** URL of the run's private Redis (never 127.0.0.1:6379). */
export function redisUrl(): string {
  return inject('redisUrl');
}

/** `host:port,…` of the run's Redis Cluster (`AHP_TEST_REDIS=cluster`), or `''`. */
export function redisClusterNodes(): string {
  return inject('redisClusterNodes');
}

/**
 * A connected client on the run's Redis — its cluster when the run has one (`AHP_TEST_REDIS=cluster`) —
 * or on `url` when given.
 */
export async function openClient(name: string, url?: string, logger: Logger = recordingLogger()): Promise<RedisClient> {
  if (url === undefined && redisClusterNodes() !== '') return connectRedis({ clusterNodes: redisClusterNodes(), name, logger });
  return connectRedis({ url: url ?? redisUrl(), name, logger });
}

/** Keys under a prefix no other test uses. */
export function testKeys(testName: string): StoreKeys {
  return createKeys({ prefix: uniqueKeyPrefix(testName) });
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const PAYLOADS: Record<Intensity, SignalPayload> = {
  block: { level: 'blocking', decision: 'deny', reason: 'writes outside the workspace', resolvable: true, resolution_path: ['write inside the workspace'] },
  control: {
    level: 'controlling',
    decision: 'allow_with_modification',
    modifications: [{ target: 'command', original: 'rm -rf /', updated: 'rm -rf ./build', reason: 'stay in the workspace' }],
    reversible: false,
  },
  prompt: { level: 'prompting', decision: 'warn', severity: 'medium', message: 'large diff', suggestions: ['split it'], continue_allowed: true },
  aid: { level: 'aiding', decision: 'suggest', context: 'tests ran', suggestions: [{ type: 'follow_up', description: 'add a changelog entry' }] },
};

/** A valid signal of `intensity`, with a fresh id. */
export function makeSignal(intensity: Intensity, source = 'test-oracle'): Signal {
  return {
    header: { id: randomUUID(), type: 'permission-check', timestamp: new Date().toISOString(), source, intensity },
    context: {},
    payload: PAYLOADS[intensity],
  };
}

/** A valid oracle decision for `hookId` aggregating `signals`. */
export function makeDecision(hookId: string, signals: Signal[] = [], trigger: HookTrigger = 'pre-tool-use'): HookDecision {
  return aggregateSignals({ hookId, trigger, signals, now: new Date().toISOString() });
}

export { randomUUID };
