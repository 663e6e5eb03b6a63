/**
 * The counters behind progressive intervention (docs/spec/escalation-and-context.md#progressive-intervention) and the
 * server-side circuit breakers (docs/spec/circuit-breakers.md#server-side-breakers). The rule engine only sees this interface; workers pass the Redis
 * implementation (`RuleCounterStore` of `@ahp/store`, structurally identical), tests and
 * offline tools pass {@link createMemoryRuleCounters}.
 */

/**
 * Counters behind progressive intervention and the server-side circuit breakers.
 *
 * Guarantees an implementation must give: atomic and idempotent per hook (a job evaluated twice
 * after a stalled worker counts once and gets the same answer), correct with several workers
 * evaluating the same agent concurrently, and expiring after `ttlMs` without activity.
 */
export interface RuleCounters {
  /** Records that the agent violated `ruleKey` in this hook; returns the consecutive violations, this one included. */
  recordViolation(input: { agentId: string; ruleKey: string; hookId: string; ttlMs: number }): Promise<number>;
  /** A compliant attempt: the consecutive count starts again from zero. */
  recordCompliance(input: { agentId: string; ruleKey: string; hookId: string }): Promise<void>;
  /**
   * Counts an identical tool call (same `signature`) of the agent, over all its sessions (a new
   * session must not reset a breaker); returns the count, this one included. `rememberMs`: how long the hook may still be evaluated again (until its deadline),
   * so how long its count must be remembered; implementations pick a safe default without it.
   */
  countToolCall(input: { agentId: string; signature: string; hookId: string; ttlMs: number; rememberMs?: number }): Promise<number>;
  /** Records that the agent (in any of its sessions) reached loop iteration `iteration`; returns how many distinct iterations it has had. */
  countIteration(input: { agentId: string; iteration: number; ttlMs: number }): Promise<number>;
}

/** Options of {@link createMemoryRuleCounters}. */
export interface MemoryRuleCountersOptions {
  /** Epoch milliseconds, for expiry. @defaultValue `Date.now` */
  readonly now?: () => number;
  /** TTL of a counter a compliance creates (it takes no TTL of its own). @defaultValue 1 hour */
  readonly complianceTtlMs?: number;
}

interface Entry<T> {
  value: T;
  expiresAt: number;
}

interface Streak {
  count: number;
  /** Hook id → the count it got; hooks whose compliance was recorded. */
  violations: Map<string, number>;
  compliances: Set<string>;
}

interface Calls {
  count: number;
  hooks: Map<string, number>;
}

/** How many hook ids a counter remembers for idempotency (re-runs concern only the newest few hooks). */
const REMEMBER = 64;

/**
 * {@link RuleCounters} in this process's memory, with the same semantics as the Redis store:
 * idempotent per hook id, expiring `ttlMs` after the last update.
 *
 * Single-process only: counts are not shared between workers and are lost on restart. Use it in
 * unit tests and in tools that validate or dry-run a configuration without Redis, never in a
 * deployment with several workers.
 */
export function createMemoryRuleCounters(options: MemoryRuleCountersOptions = {}): RuleCounters {
  const now = options.now ?? Date.now;
  const complianceTtlMs = options.complianceTtlMs ?? 3_600_000;
  const streaks = new Map<string, Entry<Streak>>();
  const calls = new Map<string, Entry<Calls>>();
  const iterations = new Map<string, Entry<Set<number>>>();

  function live<T>(map: Map<string, Entry<T>>, key: string): Entry<T> | undefined {
    const entry = map.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now()) {
      map.delete(key);
      return undefined;
    }
    return entry;
  }

  function positive(name: string, value: number): number {
    if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer of milliseconds, got ${value}`);
    return value;
  }

  return {
    async recordViolation({ agentId, ruleKey, hookId, ttlMs }) {
      const key = JSON.stringify([agentId, ruleKey]);
      const ttl = positive('ttlMs', ttlMs);
      let entry = live(streaks, key);
      if (entry === undefined) {
        entry = { value: { count: 0, violations: new Map(), compliances: new Set() }, expiresAt: 0 };
        streaks.set(key, entry);
      }
      entry.expiresAt = now() + ttl;
      const earlier = entry.value.violations.get(hookId);
      if (earlier !== undefined) return earlier;
      entry.value.count += 1;
      remember(entry.value.violations, hookId, entry.value.count);
      return entry.value.count;
    },

    async recordCompliance({ agentId, ruleKey, hookId }) {
      const key = JSON.stringify([agentId, ruleKey]);
      let entry = live(streaks, key);
      if (entry === undefined) {
        entry = { value: { count: 0, violations: new Map(), compliances: new Set() }, expiresAt: now() + complianceTtlMs };
        streaks.set(key, entry);
      }
      // A re-run of an old hook must not reset a newer streak.
      if (entry.value.compliances.has(hookId)) return;
      entry.value.count = 0;
      entry.value.compliances.add(hookId);
      if (entry.value.compliances.size > REMEMBER) entry.value.compliances.delete(entry.value.compliances.values().next().value as string);
    },

    async countToolCall({ agentId, signature, hookId, ttlMs }) {
      const key = JSON.stringify([agentId, signature]);
      const ttl = positive('ttlMs', ttlMs);
      let entry = live(calls, key);
      if (entry === undefined) {
        entry = { value: { count: 0, hooks: new Map() }, expiresAt: 0 };
        calls.set(key, entry);
      }
      entry.expiresAt = now() + ttl;
      const earlier = entry.value.hooks.get(hookId);
      if (earlier !== undefined) return earlier;
      entry.value.count += 1;
      remember(entry.value.hooks, hookId, entry.value.count);
      return entry.value.count;
    },

    async countIteration({ agentId, iteration, ttlMs }) {
      if (!Number.isSafeInteger(iteration) || iteration < 0) throw new RangeError(`iteration must be a non-negative integer, got ${iteration}`);
      const ttl = positive('ttlMs', ttlMs);
      let entry = live(iterations, agentId);
      if (entry === undefined) {
        entry = { value: new Set(), expiresAt: 0 };
        iterations.set(agentId, entry);
      }
      entry.expiresAt = now() + ttl;
      entry.value.add(iteration);
      return entry.value.size;
    },
  };
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.set(key, value);
  if (map.size > REMEMBER) map.delete(map.keys().next().value as string);
}
