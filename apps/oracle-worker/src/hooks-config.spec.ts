/**
 * The swap logic of the worker's configuration runtime, with an in-memory store and a fake
 * compiler: start on the current version or the defaults, move forward on announcements, keep the
 * last good configuration when a version cannot be used, retry what Redis failed to deliver.
 * The Redis store itself and the watch over pub/sub are tested in libs/store; whole processes in e2e.
 */
import type { HookDecision, StoredConfigVersion } from '@ahp/protocol';
import { StoreDataError } from '@ahp/store';
import type { Logger } from '@ahp/store';
import { describe, expect, it } from 'vitest';
import { createHooksConfigRuntime } from './hooks-config.js';
import type { HookEvaluator, HooksConfigRuntimeOptions } from './hooks-config.js';

interface Line {
  level: string;
  fields: Record<string, unknown>;
  msg: string;
}

function memoryLogger(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => lines.push({ level, fields, msg });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A version whose `environment` says how the fake compiler treats it: `bad` fails to compile. */
function stored(version: number, environment = `v${version}`): StoredConfigVersion {
  return {
    version,
    source: `environment: ${environment}\nhooks: {}\n`,
    digest: 'a'.repeat(64),
    published_at: '2026-02-09T10:00:00.000Z',
    published_by: 'test',
    config: { environment, hooks: {} },
  };
}

function evaluator(version: number | undefined): HookEvaluator {
  return { version, evaluate: async () => ({}) as HookDecision };
}

/** An in-memory ConfigStore whose watch the test drives by hand. */
function memoryStore() {
  const versions = new Map<number, StoredConfigVersion>();
  let current: number | null = null;
  let listener: ((version: number) => void) | undefined;
  const failures = { get: 0, current: undefined as unknown };
  let watchStops = 0;
  return {
    versions,
    failures,
    watchStops: () => watchStops,
    publish(version: StoredConfigVersion, announce = true) {
      versions.set(version.version, version);
      current = version.version;
      if (announce) listener?.(version.version);
    },
    announce(version: number) {
      listener?.(version);
    },
    store: {
      async current() {
        if (failures.current !== undefined) throw failures.current;
        return current === null ? null : (versions.get(current) ?? null);
      },
      async get(version: number) {
        if (failures.get > 0) {
          failures.get -= 1;
          throw new Error('Socket closed unexpectedly');
        }
        return versions.get(version) ?? null;
      },
      async watch(onVersion: (version: number) => void) {
        listener = onVersion;
        if (current !== null) onVersion(current);
        return {
          async stop() {
            watchStops += 1;
            listener = undefined;
          },
        };
      },
    },
  };
}

function setup(overrides: Partial<HooksConfigRuntimeOptions> = {}) {
  const memory = memoryStore();
  const logger = memoryLogger();
  const compiled: number[] = [];
  const runtime = createHooksConfigRuntime({
    store: memory.store,
    compile: (version) => {
      compiled.push(version.version);
      if (version.config.environment === 'bad') throw Object.assign(new Error('rules[0].condition: unknown name "chekclist"'), { issues: [{ line: 3 }] });
      return evaluator(version.version);
    },
    fallback: evaluator(undefined),
    logger,
    retryMs: 10,
    ...overrides,
  });
  return { memory, logger, runtime, compiled };
}

describe('hooks configuration runtime', () => {
  it('evaluates with the built-in defaults while no version is published, then takes the first one', async () => {
    const { memory, runtime, logger } = setup();
    await runtime.start();
    expect(runtime.active().version).toBeUndefined();
    expect(logger.lines.map((l) => l.msg)).toContain('no hooks configuration published: evaluating with the built-in defaults');
    memory.publish(stored(1));
    await runtime.settled();
    expect(runtime.active().version).toBe(1);
    await runtime.stop();
  });

  it('starts on the current version and compiles it once, although the watch announces it again', async () => {
    const { memory, runtime, compiled } = setup();
    memory.publish(stored(1));
    memory.publish(stored(2));
    await runtime.start();
    await runtime.settled();
    expect(runtime.active().version).toBe(2);
    expect(compiled).toEqual([2]);
    await runtime.stop();
  });

  it('swaps forward on every announcement, ignores older or repeated ones, and skips versions overtaken in the queue', async () => {
    const { memory, runtime, compiled } = setup();
    await runtime.start();
    memory.publish(stored(1));
    memory.publish(stored(2), false);
    memory.publish(stored(3), false);
    memory.announce(3);
    memory.announce(2);
    memory.announce(3);
    await runtime.settled();
    expect(runtime.active().version).toBe(3);
    expect(compiled).toEqual([3]); // version 1 was overtaken by 3 before its turn came
    await runtime.stop();
  });

  it('keeps the last good configuration when a new version does not compile, logging it loudly once', async () => {
    const { memory, runtime, logger, compiled } = setup();
    memory.publish(stored(1));
    await runtime.start();
    memory.publish(stored(2, 'bad'));
    await runtime.settled();
    expect(runtime.active().version).toBe(1);
    const error = logger.lines.find((l) => l.level === 'error')!;
    expect(error.msg).toBe('hooks configuration version 2 cannot be used; still serving version 1');
    expect(error.fields).toMatchObject({ configVersion: 2, activeConfigVersion: 1, error: expect.stringContaining('chekclist'), issues: [{ line: 3 }] });
    memory.announce(2);
    await runtime.settled();
    expect(compiled.filter((v) => v === 2)).toHaveLength(1);
    memory.publish(stored(3));
    await runtime.settled();
    expect(runtime.active().version).toBe(3);
    await runtime.stop();
  });

  it('keeps the last good configuration when a version does not parse from Redis', async () => {
    const { memory, runtime } = setup();
    memory.publish(stored(1));
    await runtime.start();
    memory.store.get = async (version: number) => {
      if (version === 2) throw new StoreDataError('ahp:config:{hooks}:versions', 'does not match its schema', { field: '2' });
      return memory.versions.get(version) ?? null;
    };
    memory.publish(stored(2));
    await runtime.settled();
    expect(runtime.active().version).toBe(1);
    await runtime.stop();
  });

  it('fetches again when Redis failed to deliver a version', async () => {
    const { memory, runtime, logger } = setup();
    await runtime.start();
    memory.failures.get = 2;
    memory.publish(stored(1));
    for (let i = 0; i < 100 && runtime.active().version !== 1; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      await runtime.settled();
    }
    expect(runtime.active().version).toBe(1);
    expect(logger.lines.filter((l) => l.msg === 'fetching hooks configuration version 1 failed; retrying')).toHaveLength(2);
    await runtime.stop();
  });

  it('at start, serves the newest older version that compiles when the current one does not', async () => {
    const { memory, runtime, logger } = setup();
    memory.publish(stored(1));
    memory.publish(stored(2));
    memory.publish(stored(3, 'bad'));
    memory.publish(stored(4, 'bad'));
    await runtime.start();
    await runtime.settled();
    expect(runtime.active().version).toBe(2);
    expect(logger.lines.filter((l) => l.level === 'error').map((l) => l.fields['configVersion'])).toEqual([4, 3]);
    await runtime.stop();
  });

  it('at start, falls back to the defaults when no version within reach compiles', async () => {
    const { memory, runtime } = setup({ maxStartFallbackVersions: 1 });
    memory.publish(stored(1));
    memory.publish(stored(2, 'bad'));
    memory.publish(stored(3, 'bad'));
    await runtime.start();
    expect(runtime.active().version).toBeUndefined();
    memory.publish(stored(4));
    await runtime.settled();
    expect(runtime.active().version).toBe(4);
    await runtime.stop();
  });

  it('fails to start when Redis fails while reading the current version', async () => {
    const { memory, runtime } = setup();
    memory.failures.current = new Error('Connection refused');
    await expect(runtime.start()).rejects.toThrow('Connection refused');
  });

  it('stops the watch and ignores announcements after stop', async () => {
    const { memory, runtime } = setup();
    await runtime.start();
    await runtime.stop();
    expect(memory.watchStops()).toBe(1);
    memory.publish(stored(1));
    await runtime.settled();
    expect(runtime.active().version).toBeUndefined();
  });

  it('refuses a compiled configuration that reports another version', async () => {
    const { memory, runtime } = setup({ compile: () => evaluator(99) });
    memory.publish(stored(1));
    await runtime.start();
    expect(runtime.active().version).toBeUndefined();
    await runtime.stop();
  });
});
