/**
 * The drill-down of a hook (docs/console.md "Hook drill-down"): what decide-hook recorded with
 * the first decision of a hook that sent signals, the time the gateway delivered it, and the
 * agent's answers from the signal records. For a hook without signals, a partial drill-down
 * (`partial` set) from the summary decide-hook kept in the hook record itself (oracle verdicts,
 * enqueue and pick-up times) and the hook's replay-log entry (context, rules), read by time. For
 * a hook the gateway's failure policy decided (no worker's summary), a drill-down of its own shape
 * (`PolicyHookDrillDown`) from the hook record: the policy's decision, its times, and what a
 * worker reported doing with the hook afterwards (`late`, hook-late), if any.
 *
 * Guarantees: the record is written in the same step as the decision (no extra round trip on the
 * decision path) and lives as long as the signal records (24 h by default); `delivered_at` is
 * written after the fact by the gateway, best-effort (a gateway that dies before its next flush
 * leaves it absent), and never creates a record. A hook without signals has its delivery time in
 * its gateway's per-minute delivery hash (hooks-delivered, one call per flush and minute), which
 * outlives the hook record.
 */
import {
  HookDecisionSchema,
  HookDrillDownSchema,
  HookEvaluationDetailSchema,
  HookEvaluationSummarySchema,
  HookLateEvaluationSchema,
  MAX_DRILL_DOWN_CONTEXT_BYTES,
  PolicyHookDrillDownSchema,
  SignalResponseSchema,
  lateEvaluationOf,
  redactSecrets,
  stageLatencies,
  summaryVerdictOf,
  verdictOfSummary,
  type HookDecision,
  type DrillDownUnavailable,
  type HookDrillDownResponse,
  type HookEvaluationDetail,
  type HookEvaluationSummary,
  type HookLateEvaluation,
  type PolicyHookDrillDown,
  type SignalPayload,
  type SignalResponse,
} from '@ahp/protocol';
import type { HookEvaluationInput } from './contracts.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, epochField, parseStored, parseStoredJson } from './lua.js';
import type { RedisClient } from './redis-client.js';
import { findReplayRecord } from './replay-log.js';
import { HOOK_DELIVERED_LUA } from './scripts/hook-delivered.lua.js';
import { HOOK_LATE_LUA } from './scripts/hook-late.lua.js';
import { HOOKS_DELIVERED_LUA } from './scripts/hooks-delivered.lua.js';
import { DEFAULT_DECISION_TTL_MS } from './decision-ttl.js';

const hookDelivered = new LuaScript('hook-delivered', HOOK_DELIVERED_LUA);
const hooksDelivered = new LuaScript('hooks-delivered', HOOKS_DELIVERED_LUA);
const hookLate = new LuaScript('hook-late', HOOK_LATE_LUA);

/** Span of one delivery hash (hooks-delivered): the hooks whose decision was made in the same minute share it. */
const DELIVERY_BUCKET_MS = 60_000;
/** Most hooks per hooks-delivered call (Lua's unpack has a stack limit). */
const DELIVERIES_PER_CALL = 500;

/** The minute a decision was made in, which names its delivery hash (the decision's own `decided_at`, known to writer and reader alike). */
function deliveryMinute(decidedAt: string): number {
  return Math.floor(Date.parse(decidedAt) / DELIVERY_BUCKET_MS);
}

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
    ...(evaluation.traceId === undefined ? {} : { trace_id: evaluation.traceId }),
  };
  return JSON.stringify(detail);
}

/**
 * The summary decide-hook keeps in the hook record of an evaluated hook (see
 * `HookEvaluationSummarySchema`): enqueue and pick-up times and the oracle verdicts (compact, a
 * failed oracle's message cut to MAX_SUMMARY_ORACLE_MESSAGE), then the trace id only when there
 * is one (35 bytes, only for sampled hooks). '' without an evaluation.
 */
export function evaluationSummaryJson(evaluation: HookEvaluationInput | undefined): string {
  if (evaluation === undefined) return '';
  const times = [Math.round(evaluation.enqueuedAt), Math.round(evaluation.pickedAt)] as const;
  const verdicts = evaluation.oracles.map(summaryVerdictOf);
  const summary: HookEvaluationSummary = evaluation.traceId === undefined ? [...times, verdicts] : [...times, verdicts, evaluation.traceId];
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

/** A delivery the gateway saw: which hook, when, over what, and of which decision. */
export interface HookDelivery {
  hookId: string;
  at: number;
  via: 'ws' | 'http';
  /** The delivered decision's `decided_at`: it names the delivery hash of a hook without signals. */
  decidedAt: string;
  /** Whether the decision carried signals (its hook then has a drill-down record to write into). */
  withSignals: boolean;
}

/** See the module comment for the guarantees. */
export interface HookDetailStore {
  /**
   * The drill-down of a hook; for a hook without signals the partial one while its hook record
   * lives (`partial` set); null when there is neither (never evaluated by a worker, not decided
   * yet, or expired).
   */
  read(hookId: string): Promise<HookDrillDownResponse | null>;
  /**
   * Records delivery times by `gatewayId`: a hook with signals in its drill-down record (skipped
   * when there is none), the others in the gateway's per-minute delivery hashes, one call per
   * minute (and 500 hooks) of the batch.
   */
  recordDelivered(deliveries: readonly HookDelivery[], gatewayId: string): Promise<void>;
  /**
   * Records, once, what a worker did with a hook whose decision the gateway's failure policy made
   * (hook-late): only into a hook record that exists and that no worker decided. Called only on
   * that rare path (a job picked up after its deadline, or a decision that came second), never
   * for a decision stored first.
   */
  recordLate(hookId: string, late: HookLateEvaluation): Promise<void>;
}

/** Creates the Redis drill-down store; stateless. */
export function createHookDetailStore(options: { redis: RedisClient; keys: StoreKeys; decisionTtlMs?: number }): HookDetailStore {
  const { redis, keys } = options;
  const deliveryTtlMs = (options.decisionTtlMs ?? DEFAULT_DECISION_TTL_MS) + DELIVERY_BUCKET_MS;

  /** When and how the decision of a hook without signals was delivered, from its owner gateway's delivery hash; {} when not recorded. */
  async function deliveryOf(hookId: string, gatewayId: string | undefined, decidedAt: string): Promise<{ delivered_at?: number; delivered_via?: 'ws' | 'http' }> {
    const minute = deliveryMinute(decidedAt);
    if (gatewayId === undefined || gatewayId === '' || !Number.isSafeInteger(minute) || minute < 0) return {};
    const key = keys.gatewayDeliveries(gatewayId, minute);
    const raw = await redis.hGet(key, hookId);
    if (typeof raw !== 'string') return {};
    const separator = raw.indexOf(':');
    return parseStored(
      PolicyHookDrillDownSchema.pick({ delivered_at: true, delivered_via: true }).required(),
      { delivered_at: epochField(raw.slice(0, separator)), delivered_via: raw.slice(separator + 1) },
      key,
      hookId,
    );
  }

  /** The drill-down of a hook the gateway's failure policy decided, from its hook record (see the module comment). */
  async function readPolicy(hookId: string, fields: Record<string, string>, ttlMs: number, decision: HookDecision): Promise<PolicyHookDrillDown> {
    const key = keys.hook(hookId);
    const times = parseStored(PolicyHookDrillDownSchema.pick({ received_at: true, decided_at: true }), { received_at: epochField(fields['created_at']), decided_at: epochField(fields['decided_at']) }, key);
    const late = fields['late'] === undefined ? undefined : parseStored(HookLateEvaluationSchema, parseStoredJson(fields['late'], key, 'late'), key, 'late');
    // Only a worker that evaluated wrote a replay-log entry (with the context); looking for one otherwise would scan the whole window for nothing.
    const [delivery, entry] = await Promise.all([
      deliveryOf(hookId, fields['gateway_id'], decision.decided_at),
      late?.outcome === 'evaluated' ? findReplayRecord(redis, keys, hookId, late.finished_at) : Promise.resolve(undefined),
    ]);
    const contextOmitted = entry === undefined ? 'not_recorded' : entry.context === undefined ? 'too_large' : undefined;
    const span = (from: number, to: number) => Math.max(0, Math.round(to - from));
    const unavailable: DrillDownUnavailable[] = ['signals', 'answers'];
    if (late?.outcome !== 'evaluated') unavailable.push('oracles');
    if (late === undefined) unavailable.push('queue');
    if (delivery.delivered_at === undefined) unavailable.push('delivery');
    if (contextOmitted !== undefined) unavailable.push('context');
    return parseStored(
      PolicyHookDrillDownSchema,
      {
        policy: {
          hook_id: fields['hook_id'],
          agent_id: fields['agent_id'],
          session_id: fields['session_id'],
          trigger: fields['trigger'],
          allowed: decision.allowed,
          // failurePolicyDecision: fail_closed blocks, fail_open allows; nothing else is stored.
          policy: decision.allowed ? 'fail_open' : 'fail_closed',
          error: decision.error,
          ...(decision.config_version === undefined ? {} : { config_version: decision.config_version }),
          ...(entry?.context === undefined ? {} : { context: entry.context }),
          ...(contextOmitted === undefined ? {} : { context_omitted: contextOmitted }),
        },
        ...times,
        ...delivery,
        stages: {
          waited_ms: span(times.received_at, times.decided_at),
          ...(late === undefined ? {} : { gateway_ms: span(times.received_at, late.enqueued_at), queue_ms: span(late.enqueued_at, late.picked_at) }),
          ...(late?.outcome === 'evaluated' ? { worker_ms: span(late.picked_at, late.finished_at) } : {}),
          ...(delivery.delivered_at === undefined ? {} : { delivery_ms: span(times.decided_at, delivery.delivered_at) }),
        },
        ...(late === undefined ? {} : { late }),
        partial: {
          reason: 'failure_policy',
          unavailable,
          ...(ttlMs > 0 ? { expires_at: Date.now() + ttlMs } : {}),
          ...(entry === undefined ? {} : { rules: entry.decision.rules }),
        },
      },
      key,
    );
  }

  /** The partial drill-down of a hook without signals, or that of a failure-policy decision (see the module comment); null when there is neither. */
  async function readPartial(hookId: string): Promise<HookDrillDownResponse | null> {
    const key = keys.hook(hookId);
    // One hash-tagged key: both replies come from the same node, in one round trip.
    const [fields, ttlMs] = await Promise.all([redis.hGetAll(key), redis.pTTL(key)]);
    if (fields['status'] !== 'decided') return null;
    const decision = parseStored(HookDecisionSchema, parseStoredJson(fields['decision'] ?? '', key, 'decision'), key, 'decision');
    if (fields['summary'] === undefined) return decision.decided_by === 'failure_policy' ? readPolicy(hookId, fields, ttlMs, decision) : null;
    const [enqueuedAt, pickedAt, verdicts, traceId] = parseStored(HookEvaluationSummarySchema, parseStoredJson(fields['summary'], key, 'summary'), key, 'summary');
    const times = parseStored(HookDrillDownSchema.pick({ received_at: true, decided_at: true }), { received_at: epochField(fields['created_at']), decided_at: epochField(fields['decided_at']) }, key);
    const [entry, delivery] = await Promise.all([findReplayRecord(redis, keys, hookId, times.decided_at), deliveryOf(hookId, fields['gateway_id'], decision.decided_at)]);
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
      ...delivery,
      stages: stageLatencies({ ...times, ...delivery, enqueued_at: enqueuedAt, picked_at: pickedAt }),
      answers: {},
      partial: {
        reason: 'no_signals',
        unavailable: ['signals', 'answers', ...(delivery.delivered_at === undefined ? (['delivery'] as const) : []), ...(contextOmitted === undefined ? [] : (['context'] as const))],
        ...(ttlMs > 0 ? { expires_at: Date.now() + ttlMs } : {}),
        ...(entry === undefined ? {} : { rules: entry.decision.rules }),
      },
      ...(traceId === undefined ? {} : { trace_id: traceId }),
    };
  }

  return {
    async read(hookId) {
      const key = keys.hookDetail(hookId);
      const fields = await redis.hGetAll(key);
      if (fields['detail'] === undefined) return readPartial(hookId);
      // The trace id is stored in the record but returned beside the detail, as for a partial drill-down.
      const { trace_id: traceId, ...detail } = parseStored(HookEvaluationDetailSchema, parseStoredJson(fields['detail'], key, 'detail'), key, 'detail');
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
        ...(traceId === undefined ? {} : { trace_id: traceId }),
      };
    },

    async recordDelivered(deliveries, gatewayId) {
      const byMinute = new Map<number, (string | number)[]>();
      const writes: Promise<unknown>[] = [];
      for (const delivery of deliveries) {
        if (delivery.withSignals) {
          writes.push(hookDelivered.run(redis, [keys.hookDetail(delivery.hookId)], [Math.round(delivery.at), delivery.via]));
          continue;
        }
        const minute = deliveryMinute(delivery.decidedAt);
        if (!Number.isSafeInteger(minute) || minute < 0) continue;
        const pairs = byMinute.get(minute) ?? [];
        pairs.push(delivery.hookId, `${Math.round(delivery.at)}:${delivery.via}`);
        byMinute.set(minute, pairs);
      }
      for (const [minute, pairs] of byMinute) {
        for (let start = 0; start < pairs.length; start += 2 * DELIVERIES_PER_CALL) {
          writes.push(hooksDelivered.run(redis, [keys.gatewayDeliveries(gatewayId, minute)], [deliveryTtlMs, ...pairs.slice(start, start + 2 * DELIVERIES_PER_CALL)]));
        }
      }
      await Promise.all(writes);
    },

    async recordLate(hookId, late) {
      await hookLate.run(redis, [keys.hook(hookId)], [JSON.stringify(lateEvaluationOf(late))]);
    },
  };
}
