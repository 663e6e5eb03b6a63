/**
 * HookStore on Redis: one hash per hook holds the correlation and, once decided, the decision.
 */
import {
  DEFAULT_ANSWER_GRACE_MS,
  HookCorrelationSchema,
  mustAnswer,
  HookDecisionSchema,
  RequestIdSchema,
  type HookCorrelation,
  type HookDecision,
} from '@ahp/protocol';
import type { DecideHookOptions, HookStore, OpenHookInput, OpenHookOutcome } from './contracts.js';
import { HookNotFoundError, StoreDataError, StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, arrayReply, badReply, epochField, pairsToRecord, parseStored, parseStoredJson, stringAt } from './lua.js';
import { AGENT_RATE_KIND, emissionIntervalUs } from './rate-limiter.js';
import type { RedisClient } from './redis-client.js';
import { DECIDE_HOOK_LUA } from './scripts/decide-hook.lua.js';
import { OPEN_HOOK_LUA } from './scripts/open-hook.lua.js';
import { describeIssues } from './validate.js';

const openHook = new LuaScript('open-hook', OPEN_HOOK_LUA);
const decideHook = new LuaScript('decide-hook', DECIDE_HOOK_LUA);

/** Options of {@link createHookStore}; {@link createRedisStores} fills them from its own. */
export interface HookStoreOptions {
  redis: RedisClient;
  keys: StoreKeys;
  decisionTtlMs: number;
  signalTtlMs: number;
  signalLogMaxLen: number;
  decisionStreamMaxLen: number;
  decisionStreamTtlMs: number;
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

  // The script builds the owner's stream name around the owner id; split a sample name to get the
  // parts, so the layout stays defined in keys.ts alone.
  const [streamHead, streamTail] = keys.gatewayDecisions('OWNER').split('OWNER') as [string, string];
  const [unansweredHead, unansweredTail] = keys.unansweredSignals('SESSION').split('SESSION') as [string, string];
  /** decide-hook routed the decision itself; an empty owner means it could not. */
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
      const key = keys.hook(input.hookId);
      const pendingTtlMs = Math.max(input.deadlineAt - input.now, 0) + options.decisionTtlMs;
      const reply = arrayReply(
        await openHook.run(
          redis,
          [key, keys.planGate(input.agentId), keys.rateLimit(AGENT_RATE_KIND, input.agentId), keys.planVerdict(input.agentId), keys.unansweredSignals(input.sessionId)],
          [
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
          input.trigger !== 'pre-tool-use' || input.planGate === 'open' ? '' : input.planGate === 'require' ? 'require' : 'gate',
          input.answersRequired === false ? '0' : '1',
          input.now - options.signalTtlMs,
          ],
        ),
        key,
        openHook.name,
      );
      const kind = stringAt(reply, 0, key, openHook.name);
      // A new hook's hash holds exactly what was just validated and written.
      if (kind === 'created') return { kind, correlation: checked.data };
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
        if (!signalIds.every((id): id is string => typeof id === 'string')) throw badReply(keys.unansweredSignals(input.sessionId), openHook.name, reply);
        return { kind, signalIds };
      }
      const fields = pairsToRecord(reply[1], key, openHook.name);
      if (kind === 'corrupt') throw new StoreDataError(key, 'hook hash has no agent_id', { field: 'agent_id' });
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
      const checked = HookDecisionSchema.safeParse(decision);
      if (!checked.success) throw new StoreInputError(`invalid decision for hook ${hookId}: ${describeIssues(checked.error.issues)}`);
      const valid = checked.data;
      if (valid.hook_id !== hookId) throw new StoreInputError(`decision is for hook ${valid.hook_id}, not ${hookId}`);
      const key = keys.hook(hookId);
      const json = JSON.stringify(valid);
      const signalArgs = valid.signals.flatMap((signal) => {
        const rule = signal.context['rule'];
        return [signal.header.id, signal.header.intensity, signal.header.source, signal.header.type, typeof rule === 'string' ? rule.slice(0, 256) : '', mustAnswer(signal) ? '1' : '0'];
      });
      const reply = arrayReply(
        await decideHook.run(
          redis,
          [key, keys.signalLog, ...valid.signals.map((signal) => keys.signal(signal.header.id))],
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
            ...signalArgs,
          ],
        ),
        key,
        decideHook.name,
      );
      const kind = stringAt(reply, 0, key, decideHook.name);
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
