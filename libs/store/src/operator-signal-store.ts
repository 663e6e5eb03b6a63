/**
 * Signals pushed to agents outside a decision (docs/spec/spectrum-and-signals.md#operator-signals),
 * on Redis: what operators send, and the aid a `post-*` hook's oracles produced after the hook
 * was answered (`sendHookAid`).
 *
 * `send` writes, in three steps of one hash tag each: the signal record (`<prefix>:signal:{<id>}`,
 * as decide-hook writes it but without hook id or trigger, and with the signal itself in field
 * `signal`), a `signal` entry in the signal log, and the signal id in the agent's pending set
 * (`<prefix>:operator-signals:{<agentId>}`, scored by the end of its delivery). Then it wakes the
 * agent's gateway through its feed (`{ kind: 'signal', agent_id }`). The record expires with the
 * delivery deadline; the agent answers it with an ordinary `signal_response` (respond-signal), so
 * the answer is checked and logged exactly like the answer to a hook's signal.
 *
 * `pending` is what a gateway pushes: the agent's unanswered signals whose delivery has not ended,
 * oldest first. It drops from the set what was answered, expired or vanished, so the set never
 * holds more than the live signals (plus, briefly, answered ones until the next read).
 */
import { HookTriggerSchema, SignalSchema, signalSubjectJson, type JsonObject, type Signal } from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import { notifyInbox, type InboxNotifyOptions } from './gateway-feed.js';
import { parseStored, parseStoredJson } from './lua.js';
import { describeIssues } from './validate.js';

/** Most pending signals one agent can hold: an operator flooding one agent is refused beyond it. */
export const MAX_PENDING_OPERATOR_SIGNALS = 100;

/** Options of {@link createOperatorSignalStore}. */
export interface OperatorSignalStoreOptions extends InboxNotifyOptions {
  signalLogMaxLen: number;
}

/** Outcome of {@link OperatorSignalStore.send}. */
export type OperatorSignalSendOutcome =
  /** Stored; `gatewayId` was woken to push it now, or null: the agent is offline and gets it when it connects. */
  | { outcome: 'sent'; gatewayId: string | null }
  /** The agent already has {@link MAX_PENDING_OPERATOR_SIGNALS} unanswered operator signals; nothing was stored. */
  | { outcome: 'full' };

/** The hook a late aid signal belongs to: a `post-*` hook already answered when its oracles finished. */
export interface HookAidOrigin {
  agentId: string;
  sessionId: string;
  hookId: string;
  trigger: string;
  /** The hook's context, for the subject of the log entries (what the aid is about); none when not known. */
  context?: JsonObject;
}

/**
 * Outcome of {@link OperatorSignalStore.sendHookAid}: as for `send`; `duplicate` when the hook's
 * late aid was already sent (or there was none); `no_push_channel` when the hook came from a
 * client that cannot take pushes (the Claude Code HTTP hook: it opens hooks with answers off).
 */
export type HookAidSendOutcome = OperatorSignalSendOutcome | { outcome: 'duplicate' } | { outcome: 'no_push_channel' };

/** Signals pushed to agents outside a decision: from operators, and the late aid of `post-*` hooks. */
export interface OperatorSignalStore {
  /** Stores `signal` for `agentId` until `expiresAt` (epoch ms) and wakes its gateway. */
  send(agentId: string, signal: Signal, expiresAt: number, now: number): Promise<OperatorSignalSendOutcome>;
  /**
   * Stores the aid `signals` an evaluation of `origin`'s hook produced after the hook was
   * answered, as pushes to its agent (same delivery, answers and log as an operator's signal,
   * with the hook id and trigger in the record and the log). At most once per hook.
   */
  sendHookAid(origin: HookAidOrigin, signals: readonly Signal[], expiresAt: number, now: number): Promise<HookAidSendOutcome>;
  /** The agent's operator signals still to deliver (unanswered, not expired), oldest first. */
  pending(agentId: string, now: number): Promise<Signal[]>;
}

/** Creates the Redis {@link OperatorSignalStore}. */
export function createOperatorSignalStore(options: OperatorSignalStoreOptions): OperatorSignalStore {
  const { redis, keys } = options;

  function checkedPushable(signal: Signal): Signal {
    const checked = SignalSchema.safeParse(signal);
    if (!checked.success) throw new StoreInputError(`invalid signal: ${describeIssues(checked.error.issues)}`);
    if (checked.data.header.intensity !== 'prompt' && checked.data.header.intensity !== 'aid') {
      throw new StoreInputError(`a pushed signal is prompt or aid, not ${checked.data.header.intensity}`);
    }
    return checked.data;
  }

  /**
   * Writes the records and log entries of `signals` for `agentId`, then their pending entries in
   * one MULTI, then wakes the agent's gateway. `origin` ties them to the hook they came from (late aid).
   */
  async function push(agentId: string, signals: readonly Signal[], expiresAt: number, now: number, sessionId: string, origin?: HookAidOrigin): Promise<OperatorSignalSendOutcome> {
    const pendingKey = keys.operatorSignals(agentId);
    await redis.zRemRangeByScore(pendingKey, '-inf', now);
    if ((await redis.zCard(pendingKey)) + signals.length > MAX_PENDING_OPERATOR_SIGNALS) return { outcome: 'full' };
    const ttlMs = Math.max(1, expiresAt - now);
    const pending = redis.multi();
    for (const [index, signal] of signals.entries()) {
      const { header } = signal;
      const record = keys.signal(header.id);
      const fields: Record<string, string> = {
        signal_id: header.id,
        agent_id: agentId,
        intensity: header.intensity,
        source: header.source,
        type: header.type,
        signal: JSON.stringify(signal),
      };
      // The session the agent had when it was sent, for the log; none when it was offline.
      if (sessionId !== '') fields['session_id'] = sessionId;
      if (origin !== undefined) {
        fields['hook_id'] = origin.hookId;
        fields['trigger'] = origin.trigger;
      }
      // One hash tag per step (a cluster cannot run them in one MULTI): the records first, so a
      // pending id always has a record (or is dropped by `pending` as vanished); a crash after
      // them loses a log line or the delivery, never a record the agent could answer.
      await redis.multi().hSet(record, fields).pExpire(record, ttlMs).exec();
      // The subject keeps what the operator wrote (message, suggestions), so the log shows it to every operator.
      const subject = signalSubjectJson({ payload: signal.payload, trigger: HookTriggerSchema.safeParse(origin?.trigger).data, context: origin?.context });
      await redis.xAdd(keys.signalLog, '*', {
        kind: 'signal', timestamp: header.timestamp, hook: origin?.trigger ?? '', intensity: header.intensity, source: header.source, consumed: '0',
        signal_id: header.id, hook_id: origin?.hookId ?? '', type: header.type, agent_id: agentId, session_id: sessionId,
        ...(subject === '' ? {} : { subject }),
      }, { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: options.signalLogMaxLen } });
      // Signals sent together share a deadline; a fraction of a millisecond keeps their order.
      pending.zAdd(pendingKey, { score: expiresAt + index / 1000, value: header.id });
    }
    await pending.pExpireAt(pendingKey, expiresAt, 'GT').exec();
    // A new set has no expiry, and PEXPIREAT … GT does not set one on a key without it.
    if ((await redis.pTTL(pendingKey)) < 0) await redis.pExpireAt(pendingKey, expiresAt);
    return { outcome: 'sent', gatewayId: await notifyInbox(options, agentId, 'signal') };
  }

  return {
    async send(agentId, signal, expiresAt, now) {
      const checked = checkedPushable(signal);
      const sessionId = (await redis.hGet(keys.presenceAgent(agentId), 'session_id')) ?? '';
      return push(agentId, [checked], expiresAt, now, sessionId);
    },

    async sendHookAid(origin, signals, expiresAt, now) {
      const checked = signals.map(checkedPushable);
      for (const signal of checked) {
        if (signal.header.intensity !== 'aid') throw new StoreInputError(`late signals of a hook are aid, not ${signal.header.intensity}`);
      }
      if (checked.length === 0) return { outcome: 'duplicate' };
      // A client without a socket would never take the push: it would only fill the agent's
      // pending set until it expired and crowd out what operators send.
      if ((await redis.hGet(keys.hook(origin.hookId), 'answers')) === '0') return { outcome: 'no_push_channel' };
      // One late delivery per hook: a re-run of a stalled job evaluates again with new signal ids,
      // and the agent must not get the same advice twice.
      const claimed = await redis.set(keys.lateAid(origin.hookId), '1', { NX: true, PX: Math.max(1, expiresAt - now) });
      if (claimed === null) return { outcome: 'duplicate' };
      return push(origin.agentId, checked, expiresAt, now, origin.sessionId, origin);
    },

    async pending(agentId, now) {
      const pendingKey = keys.operatorSignals(agentId);
      const ids = await redis.zRangeByScore(pendingKey, `(${now}`, '+inf');
      const out: Signal[] = [];
      const done: string[] = [];
      for (const id of ids) {
        const key = keys.signal(id);
        const [json, response] = await redis.hmGet(key, ['signal', 'response']);
        if (json === null || json === undefined || (response !== null && response !== undefined)) {
          done.push(id);
          continue;
        }
        out.push(parseStored(SignalSchema, parseStoredJson(json, key, 'signal'), key, 'signal'));
      }
      if (done.length > 0) await redis.zRem(pendingKey, done);
      await redis.zRemRangeByScore(pendingKey, '-inf', now);
      return out;
    },
  };
}
