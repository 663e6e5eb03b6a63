/**
 * Signals operators push to agents outside any hook (seed 001 §3.1), on Redis.
 *
 * `send` writes, in one MULTI: the signal record (`<prefix>:signal:{<id>}`, as decide-hook writes
 * it but without hook id or trigger, and with the signal itself in field `signal`), a `signal`
 * entry in the signal log, and the signal id in the agent's pending set
 * (`<prefix>:operator-signals:{<agentId>}`, scored by the end of its delivery). Then it wakes the
 * agent's gateway through its feed (`{ kind: 'signal', agent_id }`). The record expires with the
 * delivery deadline; the agent answers it with an ordinary `signal_response` (respond-signal), so
 * the answer is checked and logged exactly like the answer to a hook's signal.
 *
 * `pending` is what a gateway pushes: the agent's unanswered signals whose delivery has not ended,
 * oldest first. It drops from the set what was answered, expired or vanished, so the set never
 * holds more than the live signals (plus, briefly, answered ones until the next read).
 */
import { SignalSchema, type Signal } from '@ahp/protocol';
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

/** Signals operators push to agents. */
export interface OperatorSignalStore {
  /** Stores `signal` for `agentId` until `expiresAt` (epoch ms) and wakes its gateway. */
  send(agentId: string, signal: Signal, expiresAt: number, now: number): Promise<OperatorSignalSendOutcome>;
  /** The agent's operator signals still to deliver (unanswered, not expired), oldest first. */
  pending(agentId: string, now: number): Promise<Signal[]>;
}

/** Creates the Redis {@link OperatorSignalStore}. */
export function createOperatorSignalStore(options: OperatorSignalStoreOptions): OperatorSignalStore {
  const { redis, keys } = options;
  return {
    async send(agentId, signal, expiresAt, now) {
      const checked = SignalSchema.safeParse(signal);
      if (!checked.success) throw new StoreInputError(`invalid signal: ${describeIssues(checked.error.issues)}`);
      if (signal.header.intensity !== 'prompt' && signal.header.intensity !== 'aid') throw new StoreInputError(`an operator signal is prompt or aid, not ${signal.header.intensity}`);
      const pendingKey = keys.operatorSignals(agentId);
      await redis.zRemRangeByScore(pendingKey, '-inf', now);
      if ((await redis.zCard(pendingKey)) >= MAX_PENDING_OPERATOR_SIGNALS) return { outcome: 'full' };
      const sessionId = (await redis.hGet(keys.presenceAgent(agentId), 'session_id')) ?? '';
      const { header } = signal;
      const record = keys.signal(header.id);
      const ttlMs = Math.max(1, expiresAt - now);
      const fields: Record<string, string> = {
        signal_id: header.id,
        agent_id: agentId,
        intensity: header.intensity,
        source: header.source,
        type: header.type,
        signal: JSON.stringify(checked.data),
      };
      // The session the agent had when it was sent, for the log; none when it was offline.
      if (sessionId !== '') fields['session_id'] = sessionId;
      // Three steps, one hash tag each (a cluster cannot run them in one MULTI): the record first,
      // so a pending id always has a record (or is dropped by `pending` as vanished); a crash
      // after it loses the log line or the delivery, never a record the agent could answer.
      await redis.multi().hSet(record, fields).pExpire(record, ttlMs).exec();
      await redis.xAdd(keys.signalLog, '*', {
        kind: 'signal', timestamp: header.timestamp, hook: '', intensity: header.intensity, source: header.source, consumed: '0',
        signal_id: header.id, hook_id: '', type: header.type, agent_id: agentId, session_id: sessionId,
      }, { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: options.signalLogMaxLen } });
      await redis.multi().zAdd(pendingKey, { score: expiresAt, value: header.id }).pExpireAt(pendingKey, expiresAt, 'GT').exec();
      // A new set has no expiry, and PEXPIREAT … GT does not set one on a key without it.
      if ((await redis.pTTL(pendingKey)) < 0) await redis.pExpireAt(pendingKey, expiresAt);
      return { outcome: 'sent', gatewayId: await notifyInbox(options, agentId, 'signal') };
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
