/**
 * SignalStore on Redis: one hash per sent signal, written by decide-hook, answered once by
 * respond-signal.
 */
import {
  SignalRecordSchema,
  SignalResponseSchema,
  actionsForIntensity,
  intensityOfAction,
  redactFreeText,
  IntensitySchema,
  type SignalRecord,
  type SignalResponse,
} from '@ahp/protocol';
import type { SignalResponseOutcome, SignalStore } from './contracts.js';
import { StoreDataError, StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, arrayReply, badReply, pairsToRecord, parseStored, parseStoredJson, stringAt } from './lua.js';
import { isClusterClient, type RedisClient } from './redis-client.js';
import { RESPOND_SIGNAL_CORE_LUA } from './scripts/respond-signal-core.lua.js';
import { RESPOND_SIGNAL_LUA } from './scripts/respond-signal.lua.js';
import { canonicalJson, describeIssues } from './validate.js';

const respondSignal = new LuaScript('respond-signal', RESPOND_SIGNAL_LUA);
const respondSignalCore = new LuaScript('respond-signal-core', RESPOND_SIGNAL_CORE_LUA);

/** Options of {@link createSignalStore}; {@link createRedisStores} fills them from its own. */
export interface SignalStoreOptions {
  redis: RedisClient;
  keys: StoreKeys;
  signalLogMaxLen: number;
}

/** The record stored in a signal hash. */
export function signalRecordFromHash(fields: Record<string, string>, key: string): SignalRecord {
  const response = fields['response'];
  return parseStored(
    SignalRecordSchema,
    {
      signal_id: fields['signal_id'],
      hook_id: fields['hook_id'],
      agent_id: fields['agent_id'],
      session_id: fields['session_id'],
      trigger: fields['trigger'],
      intensity: fields['intensity'],
      source: fields['source'],
      type: fields['type'],
      ...(response === undefined ? {} : { response: parseStoredJson(response, key, 'response') }),
    },
    key,
  );
}

/**
 * Creates the Redis SignalStore. See {@link SignalStore} for the guarantees and
 * scripts/respond-signal.lua.ts for the steps. `respond` validates the response with
 * SignalResponseSchema first (StoreInputError otherwise); two responses are "the same answer" when
 * their action and details are equal as JSON values (key order does not matter; `consumed_at` is
 * not compared: a client re-sending its answer may stamp it again). Records expire `signalTtlMs` after the
 * decision that sent them; a response does not extend that.
 */
export function createSignalStore(options: SignalStoreOptions): SignalStore {
  const { redis, keys } = options;
  const [unansweredHead, unansweredTail] = keys.unansweredSignals('AGENT').split('AGENT') as [string, string];
  /**
   * Cluster mode: what respond-signal does beyond the record, on other tags. The unanswered entry
   * goes on every answered outcome (a re-sent answer repairs a crash), the log line only with the
   * answer that was recorded now.
   */
  async function respondFollowUps(outcome: string, fields: Record<string, string>, action: string, now: number, origin: string): Promise<void> {
    const session = fields['session_id'] ?? '';
    const agent = fields['agent_id'] ?? '';
    if (agent !== '') await redis.zRem(keys.unansweredSignals(agent), fields['signal_id'] ?? '');
    if (outcome !== 'recorded') return;
    await redis.xAdd(
      keys.signalLog,
      '*',
      {
        kind: 'response', timestamp: new Date(now).toISOString(), hook: fields['trigger'] ?? '', intensity: fields['intensity'] ?? '',
        source: fields['source'] ?? '', consumed: '1', action, signal_id: fields['signal_id'] ?? '', hook_id: fields['hook_id'] ?? '',
        type: fields['type'] ?? '', agent_id: fields['agent_id'] ?? '', session_id: session, answer: origin,
      },
      { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: options.signalLogMaxLen } },
    );
  }

  return {
    async get(signalId: string): Promise<SignalRecord | null> {
      const key = keys.signal(signalId);
      const fields = await redis.hGetAll(key);
      if (Object.keys(fields).length === 0) return null;
      return signalRecordFromHash(fields, key);
    },

    async respond(agentId: string, response: SignalResponse, now: number, origin?: 'inferred'): Promise<SignalResponseOutcome> {
      const checked = SignalResponseSchema.safeParse(response);
      if (!checked.success) throw new StoreInputError(`invalid signal response: ${describeIssues(checked.error.issues)}`);
      // The agent's free-form details are stored redacted (free-text.ts).
      const redacted = checked.data.details === undefined ? checked.data : { ...checked.data, details: redactFreeText(checked.data.details) };
      // Parsed again: redaction can make text longer, and what is stored must parse when read back.
      const reparsed = redacted === checked.data ? checked : SignalResponseSchema.safeParse(redacted);
      if (!reparsed.success) throw new StoreInputError(`invalid signal response once its credentials are redacted: ${describeIssues(reparsed.error.issues)}`);
      const valid = reparsed.data;
      const key = keys.signal(valid.signal_id);
      const args = [
        agentId,
        intensityOfAction(valid.action),
        canonicalJson(valid),
        valid.action,
        new Date(now).toISOString(),
        options.signalLogMaxLen,
        unansweredHead,
        unansweredTail,
        canonicalJson({ action: valid.action, ...(valid.details === undefined ? {} : { details: valid.details }) }),
        origin ?? '',
      ];
      const reply = arrayReply(
        await (isClusterClient(redis) ? respondSignalCore.run(redis, [key], args) : respondSignal.run(redis, [key, keys.signalLog], args)),
        key,
        respondSignal.name,
      );
      const outcome = stringAt(reply, 0, key, respondSignal.name);
      switch (outcome) {
        case 'not_found':
        case 'forbidden':
          return { outcome };
        case 'invalid_action': {
          const intensity = parseStored(IntensitySchema, reply[1], key, 'intensity');
          return { outcome, allowed: actionsForIntensity(intensity) };
        }
        case 'recorded':
        case 'duplicate':
        case 'conflict': {
          const fields = pairsToRecord(reply[1], key, respondSignal.name);
          if (isClusterClient(redis)) await respondFollowUps(outcome, fields, valid.action, now, origin ?? '');
          return { outcome, record: signalRecordFromHash(fields, key) };
        }
        case 'corrupt':
          throw new StoreDataError(key, 'signal record has no agent_id or intensity');
        default:
          throw badReply(key, respondSignal.name, reply);
      }
    },
  };
}
