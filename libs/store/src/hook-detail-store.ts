/**
 * The drill-down of a hook (docs/console.md "Hook drill-down"): what decide-hook recorded with
 * the first decision of a hook that sent signals, the time the gateway delivered it, and the
 * agent's answers from the signal records. For a hook without signals, a partial drill-down
 * (`partial` set) from the summary decide-hook kept in the hook record itself (oracle verdicts,
 * enqueue and pick-up times) and the hook's replay-log entry (context, rules), read by time.
 *
 * Guarantees: the record is written in the same step as the decision (no extra round trip on the
 * decision path) and lives as long as the signal records (24 h by default); `delivered_at` is
 * written after the fact by the gateway, best-effort (a gateway that dies before its next flush
 * leaves it absent), and never creates a record.
 */
import {
  HookDecisionSchema,
  HookDrillDownSchema,
  HookEvaluationDetailSchema,
  HookEvaluationSummarySchema,
  MAX_DRILL_DOWN_CONTEXT_BYTES,
  SignalResponseSchema,
  redactSecrets,
  stageLatencies,
  summaryVerdictOf,
  verdictOfSummary,
  type HookDecision,
  type HookDrillDown,
  type HookEvaluationDetail,
  type HookEvaluationSummary,
  type SignalPayload,
  type SignalResponse,
} from '@ahp/protocol';
import type { HookEvaluationInput } from './contracts.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, epochField, parseStored, parseStoredJson } from './lua.js';
import type { RedisClient } from './redis-client.js';
import { findReplayRecord } from './replay-log.js';
import { HOOK_DELIVERED_LUA } from './scripts/hook-delivered.lua.js';

const hookDelivered = new LuaScript('hook-delivered', HOOK_DELIVERED_LUA);

/**
 * The drill-down JSON decide-hook stores for `decision`, or '' when there is nothing to store (no
 * evaluation given, or no signal: such a hook has no row an operator could open). The context is
 * redacted and left out when larger than MAX_DRILL_DOWN_CONTEXT_BYTES.
 */
export function evaluationDetailJson(decision: HookDecision, evaluation: HookEvaluationInput | undefined): string {
  if (evaluation === undefined || decision.signals.length === 0) return '';
  // Kept within the protocol's string limits, so the stored detail still parses when it is read back.
  const context = redactSecrets(evaluation.context, { keepWithinLimits: true });
  const contextJson = JSON.stringify(context);
  const detail: HookEvaluationDetail = {
    hook_id: decision.hook_id,
    agent_id: evaluation.agentId,
    session_id: evaluation.sessionId,
    trigger: decision.trigger,
    enqueued_at: Math.round(evaluation.enqueuedAt),
    picked_at: Math.round(evaluation.pickedAt),
    oracles: [...evaluation.oracles],
    ...(Buffer.byteLength(contextJson) <= MAX_DRILL_DOWN_CONTEXT_BYTES ? { context } : { context_omitted: 'too_large' as const }),
    allowed: decision.allowed,
    intensity: decision.intensity,
    decided_by: decision.decided_by,
    ...(decision.config_version === undefined ? {} : { config_version: decision.config_version }),
    signals: decision.signals.map((signal) => {
      const rule = signal.context['rule'];
      return {
        signal_id: signal.header.id,
        source: signal.header.source,
        intensity: signal.header.intensity,
        type: signal.header.type,
        ...(typeof rule === 'string' && rule !== '' ? { rule: rule.slice(0, 256) } : {}),
        ...messageOf(signal.payload),
      };
    }),
    modifications: decision.modifications,
  };
  return JSON.stringify(detail);
}

/**
 * The summary decide-hook keeps in the hook record of an evaluated hook (see
 * `HookEvaluationSummarySchema`): enqueue and pick-up times and the oracle verdicts (compact, a
 * failed oracle's message cut to MAX_SUMMARY_ORACLE_MESSAGE). '' without an evaluation.
 */
export function evaluationSummaryJson(evaluation: HookEvaluationInput | undefined): string {
  if (evaluation === undefined) return '';
  const summary: HookEvaluationSummary = [Math.round(evaluation.enqueuedAt), Math.round(evaluation.pickedAt), evaluation.oracles.map(summaryVerdictOf)];
  return JSON.stringify(summary);
}

/**
 * What decide-hook stores for an evaluation: the drill-down record when the decision has signals,
 * else the summary in the hook record (the drill-down record holds all of it, for longer).
 */
export function evaluationRecordsJson(decision: HookDecision, evaluation: HookEvaluationInput | undefined): { detail: string; summary: string } {
  const detail = evaluationDetailJson(decision, evaluation);
  return { detail, summary: detail === '' ? evaluationSummaryJson(evaluation) : '' };
}

/** What a signal says in one line: a block's reason, a prompt's message, a control's first reason, an aid's first suggestion. */
function messageOf(payload: SignalPayload): { message?: string } {
  const message =
    payload.level === 'blocking' ? payload.reason : payload.level === 'prompting' ? payload.message : payload.level === 'controlling' ? payload.modifications[0]?.reason : payload.suggestions[0]?.description;
  return message === undefined || message === '' ? {} : { message };
}

/** A delivery the gateway saw: which hook, when, over what. */
export interface HookDelivery {
  hookId: string;
  at: number;
  via: 'ws' | 'http';
}

/** See the module comment for the guarantees. */
export interface HookDetailStore {
  /**
   * The drill-down of a hook; for a hook without signals the partial one while its hook record
   * lives (`partial` set); null when there is neither (never evaluated by a worker, not decided
   * yet, or expired).
   */
  read(hookId: string): Promise<HookDrillDown | null>;
  /** Records delivery times; hooks without a drill-down record are skipped. */
  recordDelivered(deliveries: readonly HookDelivery[]): Promise<void>;
}

/** Creates the Redis drill-down store; stateless. */
export function createHookDetailStore(options: { redis: RedisClient; keys: StoreKeys }): HookDetailStore {
  const { redis, keys } = options;
  /** The partial drill-down of a hook without signals (see the module comment), or null. */
  async function readPartial(hookId: string): Promise<HookDrillDown | null> {
    const key = keys.hook(hookId);
    // One hash-tagged key: both replies come from the same node, in one round trip.
    const [fields, ttlMs] = await Promise.all([redis.hGetAll(key), redis.pTTL(key)]);
    if (fields['summary'] === undefined || fields['status'] !== 'decided') return null;
    const [enqueuedAt, pickedAt, verdicts] = parseStored(HookEvaluationSummarySchema, parseStoredJson(fields['summary'], key, 'summary'), key, 'summary');
    const decision = parseStored(HookDecisionSchema, parseStoredJson(fields['decision'] ?? '', key, 'decision'), key, 'decision');
    const times = parseStored(HookDrillDownSchema.pick({ received_at: true, decided_at: true }), { received_at: epochField(fields['created_at']), decided_at: epochField(fields['decided_at']) }, key);
    const entry = await findReplayRecord(redis, keys, hookId, times.decided_at);
    const contextOmitted = entry === undefined ? 'not_recorded' : entry.context === undefined ? 'too_large' : undefined;
    const detail = parseStored(
      HookEvaluationDetailSchema,
      {
        hook_id: fields['hook_id'],
        agent_id: fields['agent_id'],
        session_id: fields['session_id'],
        trigger: fields['trigger'],
        enqueued_at: enqueuedAt,
        picked_at: pickedAt,
        oracles: verdicts.map(verdictOfSummary),
        ...(entry?.context === undefined ? {} : { context: entry.context }),
        ...(contextOmitted === undefined ? {} : { context_omitted: contextOmitted }),
        allowed: decision.allowed,
        intensity: decision.intensity,
        decided_by: decision.decided_by,
        ...(decision.config_version === undefined ? {} : { config_version: decision.config_version }),
        signals: [],
        modifications: decision.modifications,
      },
      key,
    );
    return {
      detail,
      ...times,
      stages: stageLatencies({ ...times, enqueued_at: enqueuedAt, picked_at: pickedAt }),
      answers: {},
      partial: {
        reason: 'no_signals',
        // Delivery times are recorded only into drill-down records: one more write per hook at the whole hook rate otherwise.
        unavailable: ['signals', 'answers', 'delivery', ...(contextOmitted === undefined ? [] : (['context'] as const))],
        ...(ttlMs > 0 ? { expires_at: Date.now() + ttlMs } : {}),
        ...(entry === undefined ? {} : { rules: entry.decision.rules }),
      },
    };
  }

  return {
    async read(hookId) {
      const key = keys.hookDetail(hookId);
      const fields = await redis.hGetAll(key);
      if (fields['detail'] === undefined) return readPartial(hookId);
      const detail = parseStored(HookEvaluationDetailSchema, parseStoredJson(fields['detail'], key, 'detail'), key, 'detail');
      const times = parseStored(HookDrillDownSchema.pick({ received_at: true, decided_at: true, delivered_at: true, delivered_via: true }), {
        received_at: epochField(fields['received_at']),
        decided_at: epochField(fields['decided_at']),
        ...(fields['delivered_at'] === undefined ? {} : { delivered_at: epochField(fields['delivered_at']) }),
        ...(fields['delivered_via'] === undefined ? {} : { delivered_via: fields['delivered_via'] }),
      }, key);
      // The answers live in the signal records (one key per signal, each on its own slot under Cluster).
      const responses = await Promise.all(detail.signals.map((signal) => redis.hGet(keys.signal(signal.signal_id), 'response')));
      const answers: Record<string, SignalResponse> = {};
      detail.signals.forEach((signal, index) => {
        const raw = responses[index];
        if (typeof raw === 'string') answers[signal.signal_id] = parseStored(SignalResponseSchema, parseStoredJson(raw, keys.signal(signal.signal_id), 'response'), keys.signal(signal.signal_id), 'response');
      });
      return {
        detail,
        ...times,
        stages: stageLatencies({ ...times, enqueued_at: detail.enqueued_at, picked_at: detail.picked_at }),
        answers,
      };
    },

    async recordDelivered(deliveries) {
      await Promise.all(deliveries.map((delivery) => hookDelivered.run(redis, [keys.hookDetail(delivery.hookId)], [Math.round(delivery.at), delivery.via])));
    },
  };
}
