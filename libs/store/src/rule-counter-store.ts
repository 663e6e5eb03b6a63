/**
 * RuleCounterStore on Redis: the counters behind progressive intervention
 * (docs/spec/escalation-and-context.md#progressive-intervention) and the server-side circuit breakers
 * (docs/spec/circuit-breakers.md#server-side-breakers), one Lua script per update.
 */
import { createHash } from 'node:crypto';
import { FRAME_LIMITS } from '@ahp/protocol';
import type { RuleCounterStore } from './contracts.js';
import { StoreDataError, StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript } from './lua.js';
import type { RedisClient } from './redis-client.js';
import { COUNT_ITERATION_LUA, COUNT_TOOL_CALL_LUA, RECORD_COMPLIANCE_LUA, RECORD_VIOLATION_LUA } from './scripts/rule-counters.lua.js';

const recordViolation = new LuaScript('record-violation', RECORD_VIOLATION_LUA);
const recordCompliance = new LuaScript('record-compliance', RECORD_COMPLIANCE_LUA);
const countToolCall = new LuaScript('count-tool-call', COUNT_TOOL_CALL_LUA);
const countIteration = new LuaScript('count-iteration', COUNT_ITERATION_LUA);

/** Default of {@link RuleCounterStoreOptions.rememberHooks}. */
export const DEFAULT_REMEMBERED_HOOKS = 64;
/**
 * How long a tool call's count is remembered for its hook when the caller does not say: the
 * longest hook deadline the protocol allows, plus a minute for clocks.
 */
export const DEFAULT_CALL_MARK_TTL_MS = FRAME_LIMITS.maxHookDeadlineMs + 60_000;
/** Default of {@link RuleCounterStoreOptions.complianceTtlMs}: 1 hour. */
export const DEFAULT_COMPLIANCE_TTL_MS = 3_600_000;

/** Options of {@link createRuleCounterStore}. */
export interface RuleCounterStoreOptions {
  redis: RedisClient;
  keys: StoreKeys;
  /**
   * How many hook ids each counter remembers, so that a hook evaluated again (a stalled job run by
   * another worker) counts once. A re-run happens before the hook's deadline, so only the newest
   * few hooks of an agent and rule can come back.
   * @defaultValue {@link DEFAULT_REMEMBERED_HOOKS} (64)
   */
  rememberHooks?: number;
  /**
   * TTL of a counter that a compliance creates (`recordCompliance` takes no TTL; an existing
   * counter keeps its own). It only has to outlive a re-run of the hook.
   * @defaultValue {@link DEFAULT_COMPLIANCE_TTL_MS} (1 hour)
   */
  complianceTtlMs?: number;
}

const HOOK_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function hookIdOf(hookId: string): string {
  if (!HOOK_ID.test(hookId)) throw new StoreInputError(`hook id ${JSON.stringify(hookId.slice(0, 140))} must be 1-128 of letters, digits and . _ : -`);
  return hookId;
}

function ttlOf(name: string, ttlMs: number): number {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new StoreInputError(`${name} must be a positive integer of milliseconds, got ${ttlMs}`);
  return ttlMs;
}

function countReply(reply: unknown, key: string, script: string): number {
  if (typeof reply === 'number' && Number.isSafeInteger(reply) && reply >= 0) return reply;
  throw new StoreDataError(key, `unexpected reply from ${script}: ${JSON.stringify(reply)?.slice(0, 100)}`, { field: 'reply' });
}

/**
 * Creates the Redis RuleCounterStore. See {@link RuleCounterStore} for the guarantees and
 * scripts/rule-counters.lua.ts for the steps.
 *
 * - Each script touches one key tagged by the agent (count-tool-call also the hook's mark, under
 *   the same tag), so every update is atomic (several workers evaluating the
 *   same agent at once each get a distinct count) and Cluster-safe.
 * - `recordViolation` refreshes its counter's TTL; `recordCompliance` resets the count to 0 and
 *   keeps the TTL. A counter nobody touched for its TTL is gone: the agent starts from zero.
 * - `countToolCall` stores the SHA-256 of the signature, so signatures of any length cost the same.
 * - Ids that cannot be part of a key and TTLs that are not positive integers are StoreInputError.
 */
export function createRuleCounterStore(options: RuleCounterStoreOptions): RuleCounterStore {
  const { redis, keys } = options;
  const remember = options.rememberHooks ?? DEFAULT_REMEMBERED_HOOKS;
  if (!Number.isSafeInteger(remember) || remember < 1) throw new StoreInputError(`rememberHooks must be a positive integer, got ${remember}`);
  const complianceTtlMs = ttlOf('complianceTtlMs', options.complianceTtlMs ?? DEFAULT_COMPLIANCE_TTL_MS);

  return {
    async recordViolation(input): Promise<number> {
      const key = keys.ruleCounter(input.agentId, input.ruleKey);
      const reply = await recordViolation.run(redis, [key], [hookIdOf(input.hookId), ttlOf('ttlMs', input.ttlMs), remember]);
      return countReply(reply, key, recordViolation.name);
    },

    async recordCompliance(input): Promise<void> {
      const key = keys.ruleCounter(input.agentId, input.ruleKey);
      const reply = await recordCompliance.run(redis, [key], [hookIdOf(input.hookId), complianceTtlMs, remember]);
      countReply(reply, key, recordCompliance.name);
    },

    async countToolCall(input): Promise<number> {
      const key = keys.breakerCalls(input.agentId);
      const signature = createHash('sha256').update(input.signature, 'utf8').digest('hex');
      const ttlMs = ttlOf('ttlMs', input.ttlMs);
      const rememberMs = input.rememberMs === undefined ? Math.min(ttlMs, DEFAULT_CALL_MARK_TTL_MS) : ttlOf('rememberMs', input.rememberMs);
      const mark = keys.breakerCallMark(input.agentId, hookIdOf(input.hookId));
      const reply = await countToolCall.run(redis, [key, mark], [signature, ttlMs, rememberMs]);
      return countReply(reply, key, countToolCall.name);
    },

    async countIteration(input): Promise<number> {
      if (!Number.isSafeInteger(input.iteration) || input.iteration < 0) {
        throw new StoreInputError(`iteration must be a non-negative integer, got ${input.iteration}`);
      }
      const key = keys.breakerIterations(input.agentId);
      const reply = await countIteration.run(redis, [key], [input.iteration, ttlOf('ttlMs', input.ttlMs)]);
      return countReply(reply, key, countIteration.name);
    },
  };
}
