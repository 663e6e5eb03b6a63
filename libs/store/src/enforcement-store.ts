/**
 * An agent's enforcement state, read and lifted by operators: the circuit breakers' counts, the
 * hold of its unanswered block/control signals, and its rules' escalation counters — every key of
 * them tagged by the agent (keys.ts), so one script reads and resets them together, also under
 * Redis Cluster.
 *
 * A new session does not reset any of it, on purpose (an agent must not escape by reconnecting);
 * this is the operators' way out. The rule counters and the hooks' call marks have open-ended
 * names (`<prefix>:rule:{<agentId>}:<ruleKey>`, `<prefix>:breaker:{<agentId>}:call:<hookId>`), so
 * they are listed first — under Cluster from the agent's slot alone (CLUSTER GETKEYSINSLOT on its
 * master), on one Redis with SCAN — and the script then gets their names. A counter created after
 * the listing is not in the step: it counts a violation after the operator's reset.
 *
 * Not touched: a shadow configuration's own counters (`<prefix>:shadow-<n>:…`, they never enforce),
 * the plan gate (a request decides it), and the signal records (the signal log stays as it was: a
 * signal the hold no longer waits for is still unanswered there).
 */
import { ENFORCEMENT_PARTS, MAX_ENFORCEMENT_LISTED, type EnforcementPart, type EnforcementState } from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import { keySlot } from './hook-queue-shards.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, arrayReply, badReply } from './lua.js';
import { isClusterClient, type RedisClient } from './redis-client.js';
import { ENFORCEMENT_STATE_LUA } from './scripts/enforcement.lua.js';

const enforcementState = new LuaScript('enforcement-state', ENFORCEMENT_STATE_LUA);

/** Options of {@link createEnforcementStore}. */
export interface EnforcementStoreOptions {
  redis: RedisClient;
  keys: StoreKeys;
}

/** What a reset did: the parts reset and what the state held just before (those parts only). */
export interface EnforcementResetResult {
  parts: EnforcementPart[];
  before: EnforcementState;
  /** Whether any of the reset parts held something (false: the reset changed nothing). */
  changed: boolean;
}

/** See the module comment. */
export interface EnforcementStore {
  /** Every part of the agent's state as it is now. */
  read(agentId: string): Promise<EnforcementState>;
  /** Resets `parts` (each once; all three when empty) in one step and returns what they held. */
  reset(agentId: string, parts: readonly EnforcementPart[]): Promise<EnforcementResetResult>;
}

/** A SCAN pattern matching `text` literally (glob characters escaped). */
function globLiteral(text: string): string {
  return text.replace(/[*?[\]\\]/g, (char) => `\\${char}`);
}

function count(value: unknown, key: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw badReply(key, enforcementState.name, value);
}

/** Creates the enforcement store; it holds no state, so every gateway can create its own. */
export function createEnforcementStore(options: EnforcementStoreOptions): EnforcementStore {
  const { redis, keys } = options;

  /** The agent's rule counters and call marks, by name: every key of the agent's tag under those two heads. */
  async function listOpenEnded(agentId: string): Promise<{ rules: string[]; marks: string[] }> {
    const ruleHead = keys.ruleCounter(agentId, 'R').slice(0, -1);
    const markHead = keys.breakerCallMark(agentId, 'H').slice(0, -1);
    let names: string[];
    if (isClusterClient(redis)) {
      // Only the agent's slot, on the master that holds it: a slot holds a sliver of the keyspace.
      const slot = keySlot(ruleHead);
      const master = redis.slots[slot]?.master;
      if (master === undefined) throw new StoreInputError(`no master holds slot ${slot}`);
      const client = await redis.nodeClient(master);
      const inSlot = Number(await client.sendCommand(['CLUSTER', 'COUNTKEYSINSLOT', String(slot)]));
      names = inSlot > 0 ? ((await client.sendCommand(['CLUSTER', 'GETKEYSINSLOT', String(slot), String(inSlot)])) as string[]) : [];
    } else {
      names = [];
      // Both heads share everything up to the agent's tag; one walk finds both.
      const tag = `{${agentId}}:`;
      for await (const batch of redis.scanIterator({ MATCH: `${globLiteral(keys.prefix)}:*${globLiteral(tag)}*`, COUNT: 1000 })) names.push(...batch);
    }
    return { rules: names.filter((name) => name.startsWith(ruleHead)).sort(), marks: names.filter((name) => name.startsWith(markHead)) };
  }

  async function run(agentId: string, mode: 'read' | 'reset', parts: ReadonlySet<EnforcementPart>): Promise<EnforcementState> {
    const hold = keys.unansweredSignals(agentId);
    const { rules, marks } = await listOpenEnded(agentId);
    const flag = (part: EnforcementPart) => (parts.has(part) ? '1' : '0');
    const reply = arrayReply(
      await enforcementState.run(
        redis,
        [hold, keys.breakerCalls(agentId), keys.breakerIterations(agentId), ...rules, ...marks],
        [mode, flag('breakers'), flag('hold'), flag('escalation'), rules.length, MAX_ENFORCEMENT_LISTED],
      ),
      hold,
      enforcementState.name,
    );
    const [held, breakers, counters] = reply.map((part) => arrayReply(part, hold, enforcementState.name)) as [unknown[], unknown[], unknown[]];
    const signalIds = held.slice(1).filter((id): id is string => typeof id === 'string');
    const ruleHead = keys.ruleCounter(agentId, 'R').slice(0, -1);
    const escalation = rules
      .map((name, index) => ({ rule: name.slice(ruleHead.length), violations: Number(counters[index] ?? Number.NaN) }))
      // A counter that expired between the listing and the script, or without a count, is no counter.
      .filter((counter) => Number.isSafeInteger(counter.violations) && counter.violations >= 0)
      .sort((a, b) => b.violations - a.violations || a.rule.localeCompare(b.rule));
    const state: EnforcementState = {};
    if (parts.has('breakers')) {
      state.breakers = {
        identical_calls: { distinct: count(breakers[0], hold), highest: count(breakers[1], hold) },
        iterations: count(breakers[2], hold),
      };
    }
    if (parts.has('hold')) state.hold = { unanswered: count(held[0], hold), signal_ids: signalIds };
    if (parts.has('escalation')) state.escalation = { rules: escalation.length, counters: escalation.slice(0, MAX_ENFORCEMENT_LISTED) };
    return state;
  }

  return {
    read(agentId) {
      return run(agentId, 'read', new Set(ENFORCEMENT_PARTS));
    },

    async reset(agentId, parts) {
      const chosen = new Set(parts.length === 0 ? ENFORCEMENT_PARTS : parts);
      for (const part of chosen) {
        if (!ENFORCEMENT_PARTS.includes(part)) throw new StoreInputError(`unknown enforcement part ${JSON.stringify(part)}`);
      }
      const before = await run(agentId, 'reset', chosen);
      const changed =
        (before.breakers !== undefined && (before.breakers.identical_calls.distinct > 0 || before.breakers.iterations > 0)) ||
        (before.hold !== undefined && before.hold.unanswered > 0) ||
        (before.escalation !== undefined && before.escalation.rules > 0);
      return { parts: ENFORCEMENT_PARTS.filter((part) => chosen.has(part)), before, changed };
    },
  };
}
