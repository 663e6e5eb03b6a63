/**
 * The shadow hooks configuration on Redis: a candidate version workers evaluate beside the live one
 * (docs/hooks.md, "Shadow a configuration"), its disagreement counters and recent examples, and a
 * watch telling every worker when the shadow changes.
 *
 * Keys (all under the live configuration's tag `{hooks}`, so promote is one atomic script):
 *
 * | key                                          | type    | content                                      | expires |
 * |----------------------------------------------|---------|----------------------------------------------|---------|
 * | `<prefix>:config:{hooks}:shadow-meta`        | hash    | seq, current (shadow number), digest         | never   |
 * | `<prefix>:config:{hooks}:shadows`            | hash    | shadow number → JSON (text, parsed config)   | never (kept like versions) |
 * | `<prefix>:config:{hooks}:shadow-changed`     | pub/sub | the new shadow number, `0` when none         | —       |
 * | `<prefix>:config:{hooks}:shadow:<n>:stats`   | hash    | counters (see scripts/shadow-config.lua.ts)  | 7 days after the shadow ends |
 * | `<prefix>:config:{hooks}:shadow:<n>:examples`| list    | recent disagreements, newest first           | as stats |
 *
 * Counting lands on one slot; it is one script call per hook, after the live decision.
 */
import {
  MAX_SHADOW_EXAMPLES,
  MAX_SHADOW_RULES,
  ShadowExampleSchema,
  ShadowOutcomeSchema,
  StoredConfigVersionSchema,
  StoredShadowConfigSchema,
  transitionName,
  type HooksConfig,
  type ShadowExample,
  type ShadowOutcome,
  type ShadowRuleStats,
  type ShadowStatusResponse,
  type StoredShadowConfig,
} from '@ahp/protocol';
import { configDigest } from './config-store.js';
import { silentLogger, type Logger } from '@ahp/protocol';
import { StoreDataError, StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, arrayReply, badReply, parseStored, parseStoredJson, stringAt } from './lua.js';
import { watchChannel } from './channel-watch.js';
import type { RedisClient } from './redis-client.js';
import { DROP_SHADOW_LUA, PROMOTE_SHADOW_LUA, RECORD_SHADOW_LUA, RECORD_SHADOW_SKIPPED_LUA, SET_SHADOW_LUA } from './scripts/shadow-config.lua.js';
import { describeIssues } from './validate.js';

const setShadow = new LuaScript('set-shadow', SET_SHADOW_LUA);
const dropShadow = new LuaScript('drop-shadow', DROP_SHADOW_LUA);
const promoteShadow = new LuaScript('promote-shadow', PROMOTE_SHADOW_LUA);
const recordShadow = new LuaScript('record-shadow', RECORD_SHADOW_LUA);
const recordShadowSkipped = new LuaScript('record-shadow-skipped', RECORD_SHADOW_SKIPPED_LUA);

/** How long a finished shadow's counters stay readable: 7 days. */
export const SHADOW_STATS_RETENTION_MS = 7 * 24 * 3_600_000;

/** The key names of the shadow configuration. */
export interface ShadowKeys {
  readonly meta: string;
  readonly shadows: string;
  readonly channel: string;
  stats(shadow: number): string;
  examples(shadow: number): string;
}

export function shadowKeys(keys: StoreKeys): ShadowKeys {
  const base = `${keys.prefix}:config:{hooks}`;
  return {
    meta: `${base}:shadow-meta`,
    shadows: `${base}:shadows`,
    channel: `${base}:shadow-changed`,
    stats: (shadow) => `${base}:shadow:${shadow}:stats`,
    examples: (shadow) => `${base}:shadow:${shadow}:examples`,
  };
}

/** One hook seen by both versions, as a worker reports it. */
export interface ShadowObservation {
  readonly shadow: number;
  readonly hookId: string;
  readonly agentId: string;
  readonly trigger: ShadowExample['trigger'];
  readonly at: number;
  readonly live: ShadowOutcome;
  /** `undefined`: the shadow evaluation threw (counted as an error, nothing else). */
  readonly shadowOutcome: ShadowOutcome | undefined;
  readonly liveVersion: number | undefined;
  /** Rules that produced a signal in either decision. */
  readonly fired: readonly string[];
  /** Rules whose strongest signal differs between the two decisions. */
  readonly differing: readonly string[];
}

/**
 * Disagreement counters of one shadow: the counting part of the operator API's answer
 * (`rules`: most disagreements first, then most firings; at most {@link MAX_SHADOW_RULES}).
 */
export type ShadowStats = Pick<ShadowStatusResponse, 'evaluated' | 'errors' | 'skipped_busy' | 'disagreements' | 'transitions' | 'rules' | 'examples'>;

export type PromoteOutcome =
  | { outcome: 'none' }
  | { outcome: 'conflict'; current: number }
  | { outcome: 'promoted'; shadow: number; version: number; unchanged: boolean };

export type DropOutcome = { outcome: 'none' } | { outcome: 'conflict'; current: number } | { outcome: 'dropped'; shadow: number };

export interface ShadowConfigStore {
  /** Makes `source` the shadow (a new number unless it is the current shadow's text already). */
  set(input: { source: string; config: HooksConfig; publishedBy: string; now: number; liveVersion: number | null }): Promise<{ shadow: number; unchanged: boolean }>;
  /** The current shadow number, or `null` (one cheap read). */
  currentNumber(): Promise<number | null>;
  get(shadow: number): Promise<StoredShadowConfig | null>;
  current(): Promise<StoredShadowConfig | null>;
  /** Publishes the current shadow (when it is `expected`, if given) as a live version by `publishedBy`, and stops shadowing. */
  promote(input: { expected?: number; publishedBy: string; now: number }): Promise<PromoteOutcome>;
  /** Stops shadowing (the current shadow, when it is `expected`, if given). */
  drop(expected?: number): Promise<DropOutcome>;
  /** Counts one hook; `false` when the shadow is no longer current (nothing counted). */
  record(observation: ShadowObservation): Promise<boolean>;
  /** Counts `count` hooks a worker did not shadow (its shadow slots were busy); `false` when the shadow is no longer current. */
  recordSkipped(shadow: number, count: number): Promise<boolean>;
  stats(shadow: number): Promise<ShadowStats>;
  /**
   * Calls back with the current shadow number (or `null`) right after subscribing, then on every
   * change: at once through pub/sub, at the latest after `recheckMs` through a re-read. Unlike
   * live versions a shadow can go away, so every change is delivered, including to `null`.
   */
  watch(onShadow: (shadow: number | null) => void, options?: { recheckMs?: number }): Promise<{ stop(): Promise<void> }>;
}

export interface ShadowConfigStoreOptions {
  redis: RedisClient;
  keys: StoreKeys;
  logger?: Logger;
}


function shadowNumber(raw: unknown, key: string, field: string): number | null {
  if (raw === null || raw === undefined) return null;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw new StoreDataError(key, `is not a shadow number: ${JSON.stringify(raw)}`, { field });
  return n;
}

/** Rule names go into hash field names between `|`: refuse one that would blur the format. */
function ruleName(rule: string): string {
  if (rule.length === 0 || rule.length > 300 || rule.includes('|')) throw new StoreInputError(`rule name ${JSON.stringify(rule.slice(0, 80))} cannot be counted`);
  return rule;
}

/** Transition fields are `from>to`; the API spells them `from→to`, as a replay's transitions (`transitionName`). */
function parseStats(hash: Record<string, string>, key: string): Omit<ShadowStats, 'examples'> {
  const count = (field: string): number => {
    const raw = hash[field];
    if (raw === undefined) return 0;
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < 0) throw new StoreDataError(key, `field ${field} is not a count: ${JSON.stringify(raw)}`, { field });
    return n;
  };
  const transitionOf = (raw: string): string | null => {
    const [from, to, ...rest] = raw.split('>');
    const fromOutcome = ShadowOutcomeSchema.safeParse(from);
    const toOutcome = ShadowOutcomeSchema.safeParse(to);
    if (rest.length > 0 || !fromOutcome.success || !toOutcome.success) return null;
    return transitionName(fromOutcome.data, toOutcome.data);
  };
  const transitions: Record<string, number> = {};
  const rules = new Map<string, ShadowRuleStats>();
  const ruleOf = (name: string) => {
    let entry = rules.get(name);
    if (entry === undefined) rules.set(name, (entry = { rule: name, fired: 0, disagreements: 0, transitions: {} }));
    return entry;
  };
  for (const field of Object.keys(hash)) {
    const parts = field.split('|');
    if (parts[0] === 't' && parts.length === 2) {
      const t = transitionOf(parts[1] ?? '');
      if (t !== null) transitions[t] = count(field);
    } else if (parts[0] === 'r' && parts.length >= 3) {
      const name = parts[1] ?? '';
      if (parts[2] === 'fired' && parts.length === 3) ruleOf(name).fired = count(field);
      else if (parts[2] === 'dis' && parts.length === 3) ruleOf(name).disagreements = count(field);
      else if (parts[2] === 't' && parts.length === 4) {
        const t = transitionOf(parts[3] ?? '');
        if (t !== null) ruleOf(name).transitions[t] = count(field);
      }
    }
  }
  const sorted = [...rules.values()].sort((a, b) => b.disagreements - a.disagreements || b.fired - a.fired || a.rule.localeCompare(b.rule));
  return { evaluated: count('evaluated'), errors: count('errors'), skipped_busy: count('skipped_busy'), disagreements: count('disagreements'), transitions, rules: sorted.slice(0, MAX_SHADOW_RULES) };
}

export function createShadowConfigStore(options: ShadowConfigStoreOptions): ShadowConfigStore {
  const { redis } = options;
  const keys = shadowKeys(options.keys);
  const logger = options.logger ?? silentLogger;

  async function currentNumber(): Promise<number | null> {
    return shadowNumber(await redis.hGet(keys.meta, 'current'), keys.meta, 'current');
  }

  async function get(shadow: number): Promise<StoredShadowConfig | null> {
    if (!Number.isSafeInteger(shadow) || shadow <= 0) throw new StoreInputError(`shadow number must be a positive integer, got ${shadow}`);
    const raw = await redis.hGet(keys.shadows, String(shadow));
    if (raw === null || raw === undefined) return null;
    const stored = parseStoredJson(raw, keys.shadows, String(shadow));
    if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) throw new StoreDataError(keys.shadows, 'is not a JSON object', { field: String(shadow) });
    return parseStored(StoredShadowConfigSchema, { ...stored, shadow }, keys.shadows, String(shadow));
  }

  /** A finished shadow's counters stay for a while (the audit names its number), then go. */
  async function retire(shadow: number): Promise<void> {
    try {
      await Promise.all([redis.pExpire(keys.stats(shadow), SHADOW_STATS_RETENTION_MS), redis.pExpire(keys.examples(shadow), SHADOW_STATS_RETENTION_MS)]);
    } catch (error) {
      logger.warn({ shadow, error: error instanceof Error ? error.message : String(error) }, 'setting the retention of a finished shadow failed; its counters stay');
    }
  }

  return {
    currentNumber,
    get,

    async current() {
      const shadow = await currentNumber();
      if (shadow === null) return null;
      const stored = await get(shadow);
      if (stored === null) throw new StoreDataError(keys.shadows, `current shadow ${shadow} is missing`, { field: String(shadow) });
      return stored;
    },

    async set(input) {
      const digest = configDigest(input.source);
      const checked = StoredShadowConfigSchema.safeParse({
        shadow: 1,
        source: input.source,
        digest,
        published_at: new Date(input.now).toISOString(),
        published_by: input.publishedBy,
        live_version: input.liveVersion,
        config: input.config,
      });
      if (!checked.success) throw new StoreInputError(`cannot set the shadow configuration: ${describeIssues(checked.error.issues)}`);
      const { shadow: _placeholder, ...payload } = checked.data;
      const reply = arrayReply(await setShadow.run(redis, [keys.meta, keys.shadows], [digest, JSON.stringify(payload), keys.channel]), keys.meta, setShadow.name);
      const outcome = stringAt(reply, 0, keys.meta, setShadow.name);
      const shadow = shadowNumber(stringAt(reply, 1, keys.meta, setShadow.name), keys.meta, 'current');
      if (shadow === null || (outcome !== 'set' && outcome !== 'unchanged')) throw badReply(keys.meta, setShadow.name, reply);
      if (outcome === 'set') {
        const previous = shadowNumber(reply[2] === '' ? null : reply[2], keys.meta, 'current');
        if (previous !== null) await retire(previous);
      }
      return { shadow, unchanged: outcome === 'unchanged' };
    },

    async promote(input) {
      const shadow = input.expected ?? (await currentNumber());
      if (shadow === null) return { outcome: 'none' };
      const stored = await get(shadow);
      if (stored === null) {
        const current = await currentNumber();
        return current === null ? { outcome: 'none' } : { outcome: 'conflict', current };
      }
      const live = StoredConfigVersionSchema.safeParse({
        version: 1,
        source: stored.source,
        digest: stored.digest,
        published_at: new Date(input.now).toISOString(),
        published_by: input.publishedBy,
        config: stored.config,
      });
      if (!live.success) throw new StoreInputError(`cannot promote shadow ${shadow}: ${describeIssues(live.error.issues)}`);
      const { version: _placeholder, ...payload } = live.data;
      const liveKeys = options.keys;
      const reply = arrayReply(
        await promoteShadow.run(redis, [keys.meta, liveKeys.configMeta, liveKeys.configVersions], [shadow, stored.digest, JSON.stringify(payload), liveKeys.configChannel, keys.channel]),
        keys.meta,
        promoteShadow.name,
      );
      const outcome = stringAt(reply, 0, keys.meta, promoteShadow.name);
      if (outcome === 'none') return { outcome: 'none' };
      const number = shadowNumber(stringAt(reply, 1, keys.meta, promoteShadow.name), keys.meta, 'current');
      if (number === null) throw badReply(keys.meta, promoteShadow.name, reply);
      if (outcome === 'conflict') return { outcome: 'conflict', current: number };
      if (outcome !== 'published' && outcome !== 'unchanged') throw badReply(keys.meta, promoteShadow.name, reply);
      await retire(shadow);
      return { outcome: 'promoted', shadow, version: number, unchanged: outcome === 'unchanged' };
    },

    async drop(expected) {
      const reply = arrayReply(await dropShadow.run(redis, [keys.meta], [expected === undefined ? '' : String(expected), keys.channel]), keys.meta, dropShadow.name);
      const outcome = stringAt(reply, 0, keys.meta, dropShadow.name);
      if (outcome === 'none') return { outcome: 'none' };
      const number = shadowNumber(stringAt(reply, 1, keys.meta, dropShadow.name), keys.meta, 'current');
      if (number === null) throw badReply(keys.meta, dropShadow.name, reply);
      if (outcome === 'conflict') return { outcome: 'conflict', current: number };
      if (outcome !== 'dropped') throw badReply(keys.meta, dropShadow.name, reply);
      await retire(number);
      return { outcome: 'dropped', shadow: number };
    },

    async record(o) {
      const agreed = o.shadowOutcome === undefined || o.shadowOutcome === o.live;
      const example: ShadowExample | undefined =
        agreed || o.shadowOutcome === undefined
          ? undefined
          : {
              hook_id: o.hookId,
              agent_id: o.agentId,
              trigger: o.trigger,
              at: new Date(o.at).toISOString(),
              live: o.live,
              shadow: o.shadowOutcome,
              ...(o.liveVersion === undefined ? {} : { live_version: o.liveVersion }),
              rules: o.differing.slice(0, 20),
            };
      if (example !== undefined) {
        const checked = ShadowExampleSchema.safeParse(example);
        if (!checked.success) throw new StoreInputError(`cannot record the shadow example: ${describeIssues(checked.error.issues)}`);
      }
      const fired = o.fired.map(ruleName);
      const differing = o.differing.map(ruleName);
      const reply = await recordShadow.run(
        redis,
        [keys.meta, keys.stats(o.shadow), keys.examples(o.shadow)],
        [
          o.shadow,
          o.shadowOutcome === undefined ? 'error' : 'ok',
          example === undefined ? '' : `${o.live}>${example.shadow}`,
          example === undefined ? '' : JSON.stringify(example),
          MAX_SHADOW_EXAMPLES,
          fired.length,
          ...fired,
          ...differing,
        ],
      );
      if (reply !== 0 && reply !== 1) throw badReply(keys.meta, recordShadow.name, reply);
      return reply === 1;
    },

    async recordSkipped(shadow, count) {
      if (!Number.isSafeInteger(count) || count < 1) throw new StoreInputError(`skipped hooks must be a positive integer, got ${count}`);
      const reply = await recordShadowSkipped.run(redis, [keys.meta, keys.stats(shadow)], [shadow, count]);
      if (reply !== 0 && reply !== 1) throw badReply(keys.meta, recordShadowSkipped.name, reply);
      return reply === 1;
    },

    async stats(shadow) {
      const [hash, rawExamples] = await Promise.all([redis.hGetAll(keys.stats(shadow)), redis.lRange(keys.examples(shadow), 0, MAX_SHADOW_EXAMPLES - 1)]);
      const examples = rawExamples.map((raw, i) => parseStored(ShadowExampleSchema, parseStoredJson(raw, keys.examples(shadow), String(i)), keys.examples(shadow), String(i)));
      return { ...parseStats(hash as Record<string, string>, keys.stats(shadow)), examples };
    },

    watch(onShadow, watchOptions = {}) {
      return watchChannel<number | null>({
        redis,
        logger,
        prefix: options.keys.prefix,
        what: 'shadow',
        channel: keys.channel,
        recheckMs: watchOptions.recheckMs ?? 5_000,
        read: currentNumber,
        // The first read is always news (even "no shadow"); then every change, a drop included.
        isNews: (next, last) => last === undefined || next !== last,
        onValue: onShadow,
      });
    },
  };
}
