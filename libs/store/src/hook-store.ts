/**
 * HookStore on Redis: one hash per hook holds the correlation and, once decided, the decision.
 */
import {
  DEFAULT_ANSWER_GRACE_MS,
  HookCorrelationSchema,
  mustAnswer,
  parseOnce,
  HookDecisionSchema,
  RequestIdSchema,
  signalSubjectJson,
  stageLatencies,
  type HookCorrelation,
  type HookDecision,
} from '@ahp/protocol';
import type { DecideHookOptions, HookStore, OpenHookInput, OpenHookOutcome } from './contracts.js';
import { HookNotFoundError, StoreDataError, StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, arrayReply, badReply, epochField, pairsToRecord, parseStored, parseStoredJson, stringAt } from './lua.js';
import { AGENT_RATE_KIND, emissionIntervalUs, isValidLease, takeTokens } from './rate-limiter.js';
import { isClusterClient, type RedisClient } from './redis-client.js';
import { NO_REPLICA_ACKS, type ReplicaAcks } from './replica-acks.js';
import { DECIDE_HOOK_LUA } from './scripts/decide-hook.lua.js';
import { DECIDE_HOOK_CORE_LUA, SIGNAL_RECORD_PUT_LUA } from './scripts/decide-hook-split.lua.js';
import { OPEN_HOOK_CORE_LUA } from './scripts/open-hook-core.lua.js';
import { OPEN_HOOK_LUA } from './scripts/open-hook.lua.js';
import { describeIssues } from './validate.js';
import { evaluationRecordsJson } from './hook-detail-store.js';

const openHook = new LuaScript('open-hook', OPEN_HOOK_LUA);
const decideHook = new LuaScript('decide-hook', DECIDE_HOOK_LUA);
const decideHookCore = new LuaScript('decide-hook-core', DECIDE_HOOK_CORE_LUA);
const signalRecordPut = new LuaScript('signal-record-put', SIGNAL_RECORD_PUT_LUA);
const openHookCore = new LuaScript('open-hook-core', OPEN_HOOK_CORE_LUA);

/** Options of {@link createHookStore}; {@link createRedisStores} fills them from its own. */
export interface HookStoreOptions {
  redis: RedisClient;
  keys: StoreKeys;
  decisionTtlMs: number;
  signalTtlMs: number;
  signalLogMaxLen: number;
  decisionStreamMaxLen: number;
  decisionStreamTtlMs: number;
  /** Replicas a decision must reach before it is routed on (Cluster) or `decide` returns. @defaultValue off */
  replicaAcks?: ReplicaAcks;
}

/** The correlation stored in a hook hash. */
export function correlationFromHash(fields: Record<string, string>, key: string): HookCorrelation {
  return parseStored(
    HookCorrelationSchema,
    {
      hook_id: fields['hook_id'],
      agent_id: fields['agent_id'],
      session_id: fields['session_id'],
      gateway_id: fields['gateway_id'],
      trigger: fields['trigger'],
      status: fields['status'],
      created_at: epochField(fields['created_at']),
      deadline_at: epochField(fields['deadline_at']),
      ...(fields['decided_at'] === undefined ? {} : { decided_at: epochField(fields['decided_at']) }),
    },
    key,
  );
}

/** Parses a stored decision JSON and checks that it belongs to the hook of `key`. */
export function parseStoredDecision(raw: string | undefined, hookId: string, key: string): HookDecision {
  if (raw === undefined || raw === '') throw new StoreDataError(key, 'decided hook has no decision', { field: 'decision' });
  const decision = parseStored(HookDecisionSchema, parseStoredJson(raw, key, 'decision'), key, 'decision');
  if (decision.hook_id !== hookId) {
    throw new StoreDataError(key, `stored decision is for hook ${decision.hook_id}`, { field: 'decision' });
  }
  return decision;
}

/**
 * Creates the Redis HookStore. See {@link HookStore} for the guarantees; the scripts' headers
 * (scripts/open-hook.lua.ts, scripts/decide-hook.lua.ts) for the exact steps.
 *
 * Beyond the interface:
 * - `open` validates its input as a {@link HookCorrelation} and throws StoreInputError otherwise,
 *   so nothing unreadable is ever written. It returns `gated` for a new `pre-tool-use` hook while
 *   the agent has a pending plan approval (the gate set that the request store maintains).
 * - `decide` validates the decision with HookDecisionSchema, requires `decision.hook_id` to be
 *   `hookId` and the trigger to be the hook's (StoreInputError), and throws HookNotFoundError
 *   when the hook has no correlation. It routes the stored decision to the owner's decision
 *   stream on every call, also when not first (see the script header for why).
 * - `get` and `decide` throw StoreDataError for a hash that does not parse.
 */
export function createHookStore(options: HookStoreOptions): HookStore {
  const { redis, keys } = options;
  const replicaAcks = options.replicaAcks ?? NO_REPLICA_ACKS;

  // The script builds the owner's stream name around the owner id; split a sample name to get the
  // parts, so the layout stays defined in keys.ts alone.
  const [streamHead, streamTail] = keys.gatewayDecisions('OWNER').split('OWNER') as [string, string];
  const [unansweredHead, unansweredTail] = keys.unansweredSignals('AGENT').split('AGENT') as [string, string];
  /** decide-hook routed the decision itself; an empty owner means it could not. */
  /**
   * Cluster mode: open-hook's reads of other tags (the agent's rate-limit bucket, plan gate and
   * verdict, the agent's unanswered signals) happen just before open-hook-core, which decides on
   * the hook's own tag. The token is taken first, as in the single script.
   */
  async function openSplit(input: OpenHookInput, key: string, gate: string, scriptArgs: readonly (string | number)[]): Promise<unknown> {
    // One token, never a lease: this call and open-hook-core are two steps, and tokens leased here
    // would be lost whenever the second one fails or does not create the hook.
    if (input.rateLimit !== undefined) {
      const taken = await takeTokens(redis, keys.rateLimit(AGENT_RATE_KIND, input.agentId), input.rateLimit);
      if (!taken.allowed) return ['limited', taken.retryAfterMs * 1000];
    }
    let refusal: string[] = [];
    if ((await redis.exists(key)) === 0) {
      const due = input.answersRequired === false ? [] : await redis.zRangeByScore(keys.unansweredSignals(input.agentId), input.now - options.signalTtlMs, input.now, { LIMIT: { offset: 0, count: 20 } });
      if (due.length > 0) {
        refusal = ['unanswered', ...due];
      } else if (gate !== '') {
        // As in open-hook: one read when the agent has no plan state; with one of the two keys the
        // verdict first (if it exists, the set does not).
        const planKeys = await redis.exists([keys.planGate(input.agentId), keys.planVerdict(input.agentId)]);
        let [status, requestId]: (string | null | undefined)[] = [];
        if (planKeys === 1) [status, requestId] = await redis.hmGet(keys.planVerdict(input.agentId), ['status', 'request_id']);
        const pendingPlan = planKeys > 0 && !status ? await redis.sRandMember(keys.planGate(input.agentId)) : null;
        if (pendingPlan) {
          refusal = ['gated', pendingPlan];
        } else if (status) {
          if (status !== 'approved') refusal = ['plan_required', status, requestId ?? ''];
        } else if (gate === 'require') {
          refusal = ['plan_required', 'none', ''];
        }
      }
    }
    return openHookCore.run(redis, [key], [...scriptArgs, ...refusal]);
  }

  /**
   * Cluster mode: decide-hook in two parts (docs/deploy.md §8). The deciding part runs atomically
   * on the hook's tag (decide-hook-core); the rest are follow-ups on one key each, idempotent, and
   * run again on every "not first" answer, so a crash between the two parts is repaired by the
   * next decide of the same hook (a worker retry, a late second worker, the gateway's failure
   * policy). What such a crash can lose: a signal-log line (it is appended only by the call that
   * created the signal record), never the decision or a signal record.
   */
  async function decideSplit(hookId: string, valid: HookDecision, now: number, decideOptions: DecideHookOptions): Promise<{ decision: HookDecision; first: boolean }> {
    const key = keys.hook(hookId);
    const records = evaluationRecordsJson(valid, decideOptions.evaluation);
    const reply = arrayReply(
      await decideHookCore.run(redis, [key, keys.hookDetail(hookId)], [JSON.stringify(valid), now, options.decisionTtlMs, valid.trigger, records.detail, options.signalTtlMs, records.summary]),
      key,
      decideHookCore.name,
    );
    const kind = stringAt(reply, 0, key, decideHookCore.name);
    if (kind === 'missing') throw new HookNotFoundError(hookId);
    if (kind === 'mismatch') {
      throw new StoreInputError(`decision for hook ${hookId} is for trigger ${valid.trigger}, the hook's is ${stringAt(reply, 1, key, decideHookCore.name)}`);
    }
    if (kind !== 'first' && kind !== 'stored') throw badReply(key, decideHookCore.name, reply);
    // Before anything routes the decision (also a stored one: its writer may have died before it
    // waited), so no agent acts on a decision a failover could still lose.
    if (replicaAcks.enabled) await replicaAcks.after(key);
    const field = (index: number): string => {
      const item = reply[index];
      return typeof item === 'string' ? item : '';
    };
    const [storedJson, owner, agent, session, trigger, storedHookId, createdAt, answers, decidedAt] = [1, 2, 3, 4, 5, 6, 7, 8, 9].map(field) as [
      string, string, string, string, string, string, string, string, string,
    ];
    const stored = kind === 'first' ? valid : parseStoredDecision(storedJson, hookId, key);
    const decidedMs = Number(decidedAt) || now;
    const latency = Number(createdAt) > 0 ? Math.max(decidedMs - Number(createdAt), 0) : undefined;
    const evaluation = kind === 'first' ? decideOptions.evaluation : undefined;
    const stages =
      latency === undefined || evaluation === undefined
        ? undefined
        : stageLatencies({ received_at: Number(createdAt), enqueued_at: evaluation.enqueuedAt, picked_at: evaluation.pickedAt, decided_at: decidedMs });
    const grace = Math.max(0, Math.round(decideOptions.answerGraceMs ?? DEFAULT_ANSWER_GRACE_MS));
    for (const signal of stored.signals) {
      const record = keys.signal(signal.header.id);
      const rule = typeof signal.context['rule'] === 'string' ? signal.context['rule'].slice(0, 256) : '';
      // The unanswered entry goes first and only while the record is new: a record that exists may
      // already hold the answer, which must not be asked for again.
      if (mustAnswer(signal) && answers !== '0' && agent !== '' && (await redis.exists(record)) === 0) {
        const unanswered = keys.unansweredSignals(agent);
        await redis.multi().zAdd(unanswered, { score: decidedMs + grace, value: signal.header.id }).pExpire(unanswered, options.signalTtlMs).exec();
      }
      const created = await signalRecordPut.run(redis, [record], [
        options.signalTtlMs,
        'signal_id', signal.header.id, 'hook_id', storedHookId, 'agent_id', agent, 'session_id', session,
        'trigger', trigger, 'intensity', signal.header.intensity, 'source', signal.header.source, 'type', signal.header.type,
      ]);
      if (created !== 1) continue;
      const entry: Record<string, string> = {
        kind: 'signal', timestamp: new Date(decidedMs).toISOString(), hook: trigger, intensity: signal.header.intensity,
        source: signal.header.source, consumed: '0', signal_id: signal.header.id, hook_id: storedHookId,
        type: signal.header.type, agent_id: agent, session_id: session,
      };
      // As decide-hook: a client that cannot report answers gets no unanswered count in the log.
      if (answers === '0') entry['answer'] = 'not_reported';
      if (rule !== '') entry['rule'] = rule;
      const subject = signalSubjectJson({ payload: signal.payload, trigger: stored.trigger, context: decideOptions.evaluation?.context });
      if (subject !== '') entry['subject'] = subject;
      if (stored.config_version !== undefined) entry['config_version'] = String(stored.config_version);
      if (latency !== undefined) entry['latency_ms'] = String(latency);
      if (stages !== undefined) Object.assign(entry, { gateway_ms: String(stages.gateway_ms), queue_ms: String(stages.queue_ms), worker_ms: String(stages.worker_ms) });
      await redis.xAdd(keys.signalLog, '*', entry, { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: options.signalLogMaxLen } });
    }
    if (owner !== '') {
      const stream = keys.gatewayDecisions(owner);
      const entry = { hook_id: storedHookId, decision: kind === 'first' ? JSON.stringify(valid) : storedJson, ...(decideOptions.traceparent === undefined ? {} : { traceparent: decideOptions.traceparent, decided_at: String(decidedMs) }) };
      const trim = { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: options.decisionStreamMaxLen } } as const;
      // As decide-hook: the running gateway keeps its stream's TTL; only a missing stream is created here, with it.
      if ((await redis.xAddNoMkStream(stream, '*', entry, trim)) === null) {
        await redis.multi().xAdd(stream, '*', entry, trim).pExpire(stream, options.decisionStreamTtlMs).exec();
      }
    }
    routed(owner, key);
    return { decision: stored, first: kind === 'first' };
  }

  function routed(ownerGatewayId: string, key: string): void {
    if (ownerGatewayId === '') throw new StoreDataError(key, 'hook has no owner gateway to route to', { field: 'gateway_id' });
  }

  return {
    async open(input: OpenHookInput): Promise<OpenHookOutcome> {
      const checked = HookCorrelationSchema.safeParse({
        hook_id: input.hookId,
        agent_id: input.agentId,
        session_id: input.sessionId,
        gateway_id: input.gatewayId,
        trigger: input.trigger,
        status: 'pending',
        created_at: input.now,
        deadline_at: input.deadlineAt,
      });
      if (!checked.success) throw new StoreInputError(`cannot open hook: ${describeIssues(checked.error.issues)}`);
      if (input.rateLease !== undefined && !isValidLease(input.rateLease)) {
        throw new StoreInputError(`cannot open hook: a lease takes a whole number of tokens >= 1 and a whole share >= 1, got ${JSON.stringify(input.rateLease)}`);
      }
      const key = keys.hook(input.hookId);
      const pendingTtlMs = Math.max(input.deadlineAt - input.now, 0) + options.decisionTtlMs;
      const gate = input.trigger !== 'pre-tool-use' || input.planGate === 'open' ? '' : input.planGate === 'require' ? 'require' : 'gate';
      const scriptArgs: (string | number)[] = [
        input.hookId,
        input.agentId,
        input.sessionId,
        input.gatewayId,
        input.trigger,
        input.now,
        input.deadlineAt,
        pendingTtlMs,
        input.rateLimit === undefined ? '' : emissionIntervalUs(input.rateLimit),
        input.rateLimit === undefined ? '' : input.rateLimit.burst,
        gate,
        input.answersRequired === false ? '0' : '1',
        input.now - options.signalTtlMs,
      ];
      const reply = arrayReply(
        isClusterClient(redis)
          ? await openSplit(input, key, gate, scriptArgs)
          : await openHook.run(
              redis,
              [key, keys.planGate(input.agentId), keys.rateLimit(AGENT_RATE_KIND, input.agentId), keys.planVerdict(input.agentId), keys.unansweredSignals(input.agentId)],
              input.rateLease === undefined ? scriptArgs : [...scriptArgs, input.rateLease.upTo, input.rateLease.share],
            ),
        key,
        openHook.name,
      );
      const kind = stringAt(reply, 0, key, openHook.name);
      // A new hook's hash holds exactly what was just validated and written.
      if (kind === 'created') {
        const leased = reply[1] ?? 0;
        if (typeof leased !== 'number' || !Number.isInteger(leased) || leased < 0) throw badReply(key, openHook.name, reply);
        return { kind, correlation: checked.data, leased };
      }
      if (kind === 'foreign') return { kind: 'foreign' };
      if (kind === 'limited') {
        const retryAfterUs = reply[1];
        if (typeof retryAfterUs !== 'number') throw badReply(key, openHook.name, reply);
        // Rounded up, as the limiter does, so that waiting exactly this long is enough.
        return { kind: 'limited', retryAfterMs: Math.max(1, Math.ceil(retryAfterUs / 1000)) };
      }
      if (kind === 'gated') return { kind: 'gated', requestId: parseStored(RequestIdSchema, reply[1], keys.planGate(input.agentId)) };
      if (kind === 'plan_required') {
        const verdictKey = keys.planVerdict(input.agentId);
        const status = stringAt(reply, 1, verdictKey, openHook.name);
        if (status !== 'rejected' && status !== 'expired' && status !== 'none') throw badReply(verdictKey, openHook.name, reply);
        const requestId = stringAt(reply, 2, verdictKey, openHook.name);
        return { kind, status, ...(requestId === '' ? {} : { requestId: parseStored(RequestIdSchema, requestId, verdictKey, 'request_id') }) };
      }
      if (kind === 'unanswered') {
        const signalIds = reply.slice(1);
        if (!signalIds.every((id): id is string => typeof id === 'string')) throw badReply(keys.unansweredSignals(input.agentId), openHook.name, reply);
        return { kind, signalIds };
      }
      const fields = pairsToRecord(reply[1], key, openHook.name);
      if (kind === 'corrupt') throw new StoreDataError(key, 'hook hash has no agent_id', { field: 'agent_id' });
      // A re-send may find a decision whose writer is still waiting for the replicas: answering it
      // before they have it would hand the agent a decision a failover could lose.
      if (kind === 'decided' && replicaAcks.enabled) await replicaAcks.after(key);
      const correlation = correlationFromHash(fields, key);
      switch (kind) {
        case 'joined':
          return { kind, correlation };
        case 'decided':
          return { kind, correlation, decision: parseStoredDecision(fields['decision'], input.hookId, key) };
        default:
          throw badReply(key, openHook.name, reply);
      }
    },

    async decide(hookId: string, decision: HookDecision, now: number, decideOptions: DecideHookOptions = {}): Promise<{ decision: HookDecision; first: boolean }> {
      // A decision evaluateHook parsed in this process is not parsed again (parseOnce).
      const checked = parseOnce(HookDecisionSchema, decision);
      if (!checked.success) throw new StoreInputError(`invalid decision for hook ${hookId}: ${describeIssues(checked.error.issues)}`);
      const valid = checked.data;
      if (valid.hook_id !== hookId) throw new StoreInputError(`decision is for hook ${valid.hook_id}, not ${hookId}`);
      if (isClusterClient(redis)) return decideSplit(hookId, valid, now, decideOptions);
      const key = keys.hook(hookId);
      const json = JSON.stringify(valid);
      const records = evaluationRecordsJson(valid, decideOptions.evaluation);
      const signalArgs = valid.signals.flatMap((signal) => {
        const rule = signal.context['rule'];
        const subject = signalSubjectJson({ payload: signal.payload, trigger: valid.trigger, context: decideOptions.evaluation?.context });
        return [signal.header.id, signal.header.intensity, signal.header.source, signal.header.type, typeof rule === 'string' ? rule.slice(0, 256) : '', mustAnswer(signal) ? '1' : '0', subject];
      });
      const reply = arrayReply(
        await decideHook.run(
          redis,
          [key, keys.signalLog, keys.hookDetail(hookId), ...valid.signals.map((signal) => keys.signal(signal.header.id))],
          [
            json,
            now,
            options.decisionTtlMs,
            options.signalTtlMs,
            options.signalLogMaxLen,
            new Date(now).toISOString(),
            valid.trigger,
            valid.config_version === undefined ? '' : valid.config_version,
            streamHead,
            streamTail,
            options.decisionStreamMaxLen,
            options.decisionStreamTtlMs,
            Math.max(0, Math.round(decideOptions.answerGraceMs ?? DEFAULT_ANSWER_GRACE_MS)),
            unansweredHead,
            unansweredTail,
            records.detail,
            decideOptions.evaluation === undefined ? '' : Math.round(decideOptions.evaluation.enqueuedAt),
            decideOptions.evaluation === undefined ? '' : Math.round(decideOptions.evaluation.pickedAt),
            decideOptions.traceparent ?? '',
            records.summary,
            ...signalArgs,
          ],
        ),
        key,
        decideHook.name,
      );
      const kind = stringAt(reply, 0, key, decideHook.name);
      // decide-hook routed the decision in the same step; waiting here holds the worker's
      // completion (and any retry) until the replicas have it.
      if (replicaAcks.enabled && (kind === 'first' || kind === 'stored')) await replicaAcks.after(key);
      switch (kind) {
        case 'missing':
          throw new HookNotFoundError(hookId);
        case 'mismatch':
          throw new StoreInputError(
            `decision for hook ${hookId} is for trigger ${valid.trigger}, the hook's is ${stringAt(reply, 1, key, decideHook.name)}`,
          );
        case 'first': {
          routed(stringAt(reply, 2, key, decideHook.name), key);
          return { decision: valid, first: true };
        }
        case 'stored': {
          const storedJson = stringAt(reply, 1, key, decideHook.name);
          const stored = parseStoredDecision(storedJson, hookId, key);
          routed(stringAt(reply, 2, key, decideHook.name), key);
          return { decision: stored, first: false };
        }
        default:
          throw badReply(key, decideHook.name, reply);
      }
    },

    async get(hookId: string): Promise<{ correlation: HookCorrelation; decision?: HookDecision } | null> {
      const key = keys.hook(hookId);
      const fields = await redis.hGetAll(key);
      if (Object.keys(fields).length === 0) return null;
      const correlation = correlationFromHash(fields, key);
      if (correlation.hook_id !== hookId) throw new StoreDataError(key, `hash is for hook ${correlation.hook_id}`, { field: 'hook_id' });
      if (correlation.status !== 'decided') return { correlation };
      return { correlation, decision: parseStoredDecision(fields['decision'], hookId, key) };
    },
  };
}
