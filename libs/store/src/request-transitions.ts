/**
 * One request's transitions on Redis: read it (state and revision), write the next state with the
 * cas-request script, which refuses the write when the revision moved meanwhile, and record
 * entries that change nothing (refused answers, prompt fallbacks). Under Redis Cluster the write
 * splits (docs/deploy.md §8): cas-request-core decides on the request's tag and stores the
 * follow-ups it owes with the state; they run right after, and again on the next read if the
 * writer died in between.
 */
import { InboxMessageSchema, LIMITS, TimestampSchema, clipText, type InboxMessage, type ProtocolState, type RequestActor, type RequestHistoryEntry } from '@ahp/protocol';
import { StoreDataError } from './errors.js';
import { notifyInbox, type InboxNotifyOptions } from './gateway-feed.js';
import { DEFAULT_INBOX_SEND_DEDUP_MS, sentRecordArgs } from './inbox-store.js';
import { LuaScript, arrayReply, badReply, parseStored, parseStoredJson, stringAt } from './lua.js';
import { isClusterClient } from './redis-client.js';
import { NO_REPLICA_ACKS, type ReplicaAcks } from './replica-acks.js';
import type { RequestEvent } from './request-events.js';
import { settledMessage } from './request-messages.js';
import { parseRecord, type StoredRequest } from './request-records.js';
import { CAS_REQUEST_CORE_LUA, CAS_REQUEST_LUA, REQUEST_FOLLOWUPS_DONE_LUA, REQUEST_FOLLOWUPS_SWEPT_LUA, RESERVE_PENDING_LUA } from './scripts/cas-request.lua.js';
import { INBOX_ACK_LUA } from './scripts/inbox-ack.lua.js';
import { INBOX_SEND_LUA } from './scripts/inbox-send.lua.js';
import { RECORD_REFUSAL_CORE_LUA, RECORD_REFUSAL_LUA } from './scripts/record-refusal.lua.js';

const casRequest = new LuaScript('cas-request', CAS_REQUEST_LUA);
const recordRefusal = new LuaScript('record-refusal', RECORD_REFUSAL_LUA);
const casRequestCore = new LuaScript('cas-request-core', CAS_REQUEST_CORE_LUA);
const followUpsDone = new LuaScript('request-followups-done', REQUEST_FOLLOWUPS_DONE_LUA);
const followUpsSwept = new LuaScript('request-followups-swept', REQUEST_FOLLOWUPS_SWEPT_LUA);
const recordRefusalCore = new LuaScript('record-refusal-core', RECORD_REFUSAL_CORE_LUA);
const inboxSend = new LuaScript('inbox-send', INBOX_SEND_LUA);
const inboxAck = new LuaScript('inbox-ack', INBOX_ACK_LUA);
const reservePending = new LuaScript('reserve-pending', RESERVE_PENDING_LUA);

/**
 * Cluster mode: how old a place in a sender's pending index must be before a sender at its limit
 * may drop it for lack of a request hash. A writer reserves the place, then writes the request at
 * once; one that died in between leaves a place nobody fills, which this frees.
 */
const ORPHAN_RESERVATION_MS = 60_000;
/** Places {@link ORPHAN_RESERVATION_MS} old checked at most per refused create. */
const ORPHAN_CHECK_BATCH = 50;

/**
 * Attempts of one transition before giving up. After create, every write settles the request, so
 * a loser re-reads a settled request and stops: two attempts always suffice unless something
 * outside this store rewrites request hashes.
 */
const MAX_ATTEMPTS = 5;

/** History entries beyond which refused answers go to the audit stream only (see record-refusal). */
const HISTORY_MAX_LEN = 100;

/**
 * Under Redis Cluster, what a transition's follow-ups need beyond the state stored with them
 * (cas-request-core's `followups` field): the revision they belong to, whether it created the
 * request or the status it left, its time and the inbox message it delivers.
 */
interface FollowUpPlan {
  rev: string;
  created: boolean;
  previous_status: string;
  at: string;
  deliver?: InboxMessage;
}

/** A {@link FollowUpPlan} read back; its message is checked with the protocol's schema. */
const FollowUpPlanParser = {
  safeParse(value: unknown) {
    const plan = value as Partial<Record<keyof FollowUpPlan, unknown>> | null;
    if (typeof plan !== 'object' || plan === null) return { success: false as const, error: { issues: [{ path: [], message: 'not an object' }] } };
    const problems: { path: PropertyKey[]; message: string }[] = [];
    if (typeof plan.rev !== 'string' || !/^[1-9]\d{0,15}$/.test(plan.rev)) problems.push({ path: ['rev'], message: 'not a revision' });
    if (typeof plan.created !== 'boolean') problems.push({ path: ['created'], message: 'not a boolean' });
    if (typeof plan.previous_status !== 'string') problems.push({ path: ['previous_status'], message: 'not a string' });
    if (!TimestampSchema.safeParse(plan.at).success) problems.push({ path: ['at'], message: 'not a timestamp' });
    const deliver = plan.deliver === undefined ? undefined : InboxMessageSchema.safeParse(plan.deliver);
    if (deliver !== undefined && !deliver.success) problems.push(...deliver.error.issues.map((issue) => ({ path: ['deliver', ...issue.path], message: issue.message })));
    if (problems.length > 0) return { success: false as const, error: { issues: problems } };
    return { success: true as const, data: { ...(plan as FollowUpPlan), ...(deliver?.success ? { deliver: deliver.data } : {}) } };
  },
};

/** What the transitions need: where to write, how long settled requests stay, the audit stream's length. */
export interface RequestTransitionOptions extends InboxNotifyOptions {
  /** How long a settled request stays readable. */
  retentionMs: number;
  /** Approximate length kept by the audit stream (`XADD MAXLEN ~`). */
  eventsMaxLen: number;
  /** Replicas a request change must reach before it is delivered (Cluster) or the call returns. @defaultValue off */
  replicaAcks?: ReplicaAcks;
}

/** One change of a request, as {@link RequestTransitions.write} stores it. */
export interface Transition {
  /** The revision read; '0' to create. */
  expectedRev: string;
  previous?: ProtocolState;
  next: ProtocolState;
  teams: readonly string[];
  incarnation: string;
  event: RequestEvent;
  actor: RequestActor;
  at: string;
  deliver?: InboxMessage;
  /**
   * Creating a pending request: the most pending requests its sender may have. Counted in the
   * same script as the write (under Redis Cluster, reserved on the sender's tag first), so
   * concurrent creates never pass it.
   */
  maxPending?: number;
}

export type TransitionResult = { kind: 'ok' } | { kind: 'stale'; current: StoredRequest | null } | { kind: 'full'; count: number };

/** See the module comment. */
export interface RequestTransitions {
  /** The stored request; under Redis Cluster, follow-ups it still holds run first. */
  read(requestId: string): Promise<StoredRequest | null>;
  /** Writes one transition; `stale` with the current request when the revision moved. */
  write(t: Transition): Promise<TransitionResult>;
  /** Settles a request read at `stored` (decide, cancel, expire), delivering its response message. */
  settle(stored: StoredRequest, next: ProtocolState, actor: RequestActor, at: string): Promise<TransitionResult>;
  /** Appends an entry that changes nothing to the history and the audit stream; whether the request still existed. */
  note(state: ProtocolState, actor: RequestActor, at: string, why: string, event?: 'refused' | 'prompt_fallback'): Promise<boolean>;
  /** Tells the gateway feed of `agentId` that its inbox has something. */
  notify(agentId: string): Promise<void>;
  /** Runs `attempt` until it returns a result rather than losing a compare-and-set race. */
  retrying<T>(requestId: string, attempt: () => Promise<T | 'retry'>): Promise<T>;
  /** Cluster mode: removes `requestId` from the follow-ups sweep set unless a later transition (a higher score) re-added it. */
  forgetFollowUps(requestId: string, score: number): Promise<void>;
}

/** The sender and status of a state JSON a script returned, as far as it tells them (only to decide on a reservation). */
function storedStateOf(raw: unknown): { sender?: unknown; status?: unknown } | undefined {
  if (typeof raw !== 'string' || raw === '') return undefined;
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null ? (value as { sender?: unknown; status?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

/** Creates the transitions of the request store; see the module comment. */
export function createRequestTransitions(options: RequestTransitionOptions): RequestTransitions {
  const { redis, keys } = options;
  const replicaAcks = options.replicaAcks ?? NO_REPLICA_ACKS;

  /** The stored request; under Redis Cluster, follow-ups it still holds run first (see {@link writeSplit}). */
  async function read(requestId: string): Promise<StoredRequest | null> {
    if (!isClusterClient(redis)) return parseRecord(keys, requestId, await redis.hmGet(keys.request(requestId), ['state', 'rev', 'teams', 'incarnation']));
    const fields = await redis.hmGet(keys.request(requestId), ['state', 'rev', 'teams', 'incarnation', 'followups']);
    const stored = parseRecord(keys, requestId, fields.slice(0, 4));
    const pending = fields[4];
    if (stored !== null && typeof pending === 'string' && pending !== '') await replayFollowUps(stored, pending);
    return stored;
  }

  /** Every index a request is in, its status index aside. */
  function baseIndexes(state: ProtocolState, teams: readonly string[]): string[] {
    const agents = new Set([state.sender, ...(state.target.kind === 'agent' ? [state.target.agent] : [])]);
    return [keys.requestsAll, ...[...agents].map(keys.requestsByAgent), ...teams.map(keys.requestsByTeam), keys.requestsByTarget(state.target)];
  }

  async function notify(agentId: string): Promise<void> {
    await notifyInbox(options, agentId);
  }

  /**
   * Every write a transition makes besides the request's own hash and history, computed from the
   * state it writes and what the transition adds (create or previous status, time): cas-request's
   * arguments on one Redis, the follow-ups under Redis Cluster (first run and replays alike).
   */
  function effectsOf(next: ProtocolState, teams: readonly string[], incarnation: string, previousStatus: string | undefined, at: string) {
    const id = next.request_id;
    const settled = next.status !== 'pending';
    const statusIndex = keys.requestsByStatus(next.status);
    const settledAtMs = Date.parse(at);
    return {
      adds: previousStatus === undefined ? [...baseIndexes(next, teams), statusIndex, ...(settled ? [] : [keys.requestsPendingBySender(next.sender)])] : [statusIndex],
      removes:
        previousStatus === undefined || previousStatus === next.status
          ? []
          : [keys.requestsByStatus(previousStatus), ...(previousStatus === 'pending' ? [keys.requestsPendingBySender(next.sender)] : [])],
      score: Date.parse(next.created_at),
      withdrawFrom: settled && next.target.kind === 'agent' ? next.target.agent : undefined,
      deadline: !settled && next.deadline !== undefined ? Date.parse(next.deadline) : undefined,
      gate: next.type === 'plan_approval' && !settled ? ('add' as const) : ('remove' as const),
      verdict: planVerdict(next),
      settledAtMs,
      retention: settled ? { score: settledAtMs + options.retentionMs, member: JSON.stringify([id, incarnation, ...baseIndexes(next, teams), statusIndex]) } : undefined,
    };
  }

  /**
   * Cluster mode: cas-request's writes outside the request's tag, after cas-request-core decided.
   * Each is idempotent (set adds and removes, an inbox message sent once per message id, the
   * withdrawal an acknowledgement), so a replay after a crash repeats them harmlessly; the audit
   * line is appended on the first run only (`audit`), so a crash can lose that line, never add
   * one twice. Last, the stored follow-ups are removed (unless a newer transition replaced them).
   */
  async function runFollowUps(state: ProtocolState, teams: readonly string[], incarnation: string, plan: FollowUpPlan, planJson: string, audit?: Record<string, string>): Promise<void> {
    const id = state.request_id;
    const key = keys.request(id);
    const e = effectsOf(state, teams, incarnation, plan.created ? undefined : plan.previous_status, plan.at);
    if (plan.deliver !== undefined) {
      const to = plan.deliver.to;
      // No inbox limits here: a request's own messages are never refused (bounded by pending requests per sender).
      const json = JSON.stringify(plan.deliver);
      await inboxSend.run(redis, [keys.inbox(to), keys.inboxIds(to), keys.inboxSent(to, plan.deliver.id)], [plan.deliver.id, json, DEFAULT_INBOX_SEND_DEDUP_MS, ...sentRecordArgs(plan.deliver)]);
    }
    if (e.withdrawFrom !== undefined) {
      const messageId = await redis.hGet(key, 'request_message_id');
      if (typeof messageId === 'string' && messageId !== '') await inboxAck.run(redis, [keys.inbox(e.withdrawFrom), keys.inboxIds(e.withdrawFrom)], [messageId]);
    }
    if (e.gate === 'add') await redis.sAdd(keys.planGate(state.sender), id);
    else await redis.sRem(keys.planGate(state.sender), id);
    if (e.verdict !== '') await redis.hSet(keys.planVerdict(state.sender), { status: e.verdict, request_id: id, at: String(e.settledAtMs) });
    if (e.deadline !== undefined) await redis.zAdd(keys.requestDeadlines, { score: e.deadline, value: id });
    else await redis.zRem(keys.requestDeadlines, id);
    await Promise.all([...e.adds.map((index) => redis.zAdd(index, { score: e.score, value: id })), ...e.removes.map((index) => redis.zRem(index, id))]);
    if (e.retention !== undefined) await redis.zAdd(keys.requestRetention, { score: e.retention.score, value: e.retention.member });
    if (audit !== undefined) {
      await redis.xAdd(keys.requestEvents, '*', audit, { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: options.eventsMaxLen } });
    }
    await followUpsDone.run(redis, [key], [planJson]);
    await followUpsSwept.run(redis, [keys.requestFollowUps], [id, Date.parse(plan.at)]);
    if (plan.deliver !== undefined) await notify(plan.deliver.to);
  }

  /** Cluster mode: replays the follow-ups a request hash still holds (a crash interrupted them). */
  async function replayFollowUps(stored: StoredRequest, planJson: string): Promise<void> {
    const key = keys.request(stored.state.request_id);
    const plan = parseStored(FollowUpPlanParser, parseStoredJson(planJson, key, 'followups'), key, 'followups');
    // Written with the state in one step: follow-ups of another revision are of no state there is.
    if (plan.rev !== stored.rev) throw new StoreDataError(key, `follow-ups are for revision ${plan.rev}, the request is at ${stored.rev}`, { field: 'followups' });
    await runFollowUps(stored.state, stored.teams, stored.incarnation, plan, planJson);
  }

  /** The per-sender cap that applies to `t`: only a create of a pending request counts. */
  function capOf(t: Transition): number | undefined {
    return t.maxPending !== undefined && t.previous === undefined && t.expectedRev === '0' && t.next.status === 'pending' ? t.maxPending : undefined;
  }

  /**
   * Cluster mode: takes the request's place in its sender's pending index if the sender is under
   * `max` (reserve-pending). At the limit, places older than {@link ORPHAN_RESERVATION_MS} whose
   * request does not exist (a writer died between reserving and writing) are dropped, and the
   * reservation is tried once more.
   */
  async function reserve(state: ProtocolState, max: number): Promise<'held' | 'reserved' | { full: number }> {
    const index = keys.requestsPendingBySender(state.sender);
    const args = [state.request_id, Date.parse(state.created_at), max];
    for (let attempt = 0; ; attempt++) {
      const reply = arrayReply(await reservePending.run(redis, [index], args), index, reservePending.name);
      const kind = stringAt(reply, 0, index, reservePending.name);
      if (kind === 'held' || kind === 'reserved') return kind;
      if (kind !== 'full') throw badReply(index, reservePending.name, reply);
      const count = Number(stringAt(reply, 1, index, reservePending.name));
      if (attempt > 0) return { full: count };
      // The oldest few only: a refused create must stay cheap however large the cap.
      const old = await redis.zRange(index, '-inf', Date.now() - ORPHAN_RESERVATION_MS, { BY: 'SCORE', LIMIT: { offset: 0, count: ORPHAN_CHECK_BATCH } });
      const exists = await Promise.all(old.map((id) => redis.exists(keys.request(id))));
      const orphans = old.filter((_, i) => exists[i] === 0);
      if (orphans.length === 0) return { full: count };
      await redis.zRem(index, orphans);
    }
  }

  /** Runs cas-request for one transition; on success notifies the recipient of the delivered message. */
  async function write(t: Transition): Promise<TransitionResult> {
    const { next } = t;
    const id = next.request_id;
    const key = keys.request(id);
    const settled = next.status !== 'pending';
    const e = effectsOf(next, t.teams, t.incarnation, t.previous?.status, t.at);
    const { adds, removes, withdrawFrom } = e;
    const history: RequestHistoryEntry = {
      at: t.at,
      actor: t.actor,
      event: t.event,
      status: next.status,
      ...(settled && next.feedback !== undefined ? { feedback: next.feedback } : {}),
    };
    const args = [
      t.expectedRev,
      id,
      JSON.stringify(next),
      next.status,
      next.type,
      e.score,
      JSON.stringify(history),
      t.event,
      t.at,
      JSON.stringify(t.actor),
      options.eventsMaxLen,
      e.deadline ?? '',
      e.gate,
      JSON.stringify(t.teams),
      settled ? options.retentionMs : '',
      e.retention?.score ?? '',
      e.retention?.member ?? '',
      adds.length,
      removes.length,
      t.deliver?.id ?? '',
      t.deliver === undefined ? '' : JSON.stringify(t.deliver),
      withdrawFrom === undefined ? '0' : '1',
      t.incarnation,
      e.verdict,
      e.settledAtMs,
    ];
    // Under Cluster the cap is reserve-pending's, and cas-request-core's ARGV[26] is the follow-ups.
    if (isClusterClient(redis)) return writeSplit(t, args);
    args.push(capOf(t) ?? '');
    const reply = arrayReply(
      await casRequest.run(
        redis,
        [
          key,
          keys.requestHistory(id),
          keys.requestEvents,
          keys.requestDeadlines,
          keys.requestRetention,
          keys.planGate(next.sender),
          keys.planVerdict(next.sender),
          ...adds,
          ...removes,
          ...(t.deliver === undefined ? [] : [keys.inbox(t.deliver.to), keys.inboxIds(t.deliver.to)]),
          ...(withdrawFrom === undefined ? [] : [keys.inbox(withdrawFrom), keys.inboxIds(withdrawFrom)]),
        ],
        args,
      ),
      key,
      casRequest.name,
    );
    // One script wrote and delivered the change; waiting holds this caller's answer until the replicas have it.
    if (replicaAcks.enabled && reply[0] === 'ok') await replicaAcks.after(key);
    return transitionResult(reply, t);
  }

  /**
   * Cluster mode (docs/deploy.md §8): cas-request-core decides on the request's tag and stores the
   * follow-ups with the state; they run right after. A 'stale' answer whose request still holds
   * follow-ups (its writer died before finishing them) runs them first.
   */
  async function writeSplit(t: Transition, args: (string | number)[]): Promise<TransitionResult> {
    const { next } = t;
    const id = next.request_id;
    const key = keys.request(id);
    const plan: FollowUpPlan = {
      rev: String(Number(t.expectedRev) + 1),
      created: t.previous === undefined,
      previous_status: t.previous?.status ?? '',
      at: t.at,
      ...(t.deliver === undefined ? {} : { deliver: t.deliver }),
    };
    const planJson = JSON.stringify(plan);
    const max = capOf(t);
    let reserved = max === undefined ? 'held' : await reserve(next, max);
    if (typeof reserved === 'object') {
      // A request already stored under the id is answered as on one Redis (stale), not refused.
      if ((await redis.exists(key)) === 0) return { kind: 'full', count: reserved.full };
      reserved = 'held';
    }
    // Written ahead: if this process dies after the compare-and-set, expireDue finds the request
    // here and runs what it still owes, even if nobody reads the request again.
    await redis.zAdd(keys.requestFollowUps, { score: Date.parse(t.at), value: id });
    const reply = arrayReply(await casRequestCore.run(redis, [key, keys.requestHistory(id)], [...args, planJson]), key, casRequestCore.name);
    if (reserved === 'reserved' && stringAt(reply, 0, key, casRequestCore.name) !== 'ok') {
      // The id was taken: the place this call reserved is not a pending request of this sender,
      // unless the request under the id is one (a concurrent create of the same request).
      const current = reply[0] === 'stale' ? storedStateOf(reply[2]) : undefined;
      if (current?.status !== 'pending' || current.sender !== next.sender) await redis.zRem(keys.requestsPendingBySender(next.sender), id);
    }
    if (stringAt(reply, 0, key, casRequestCore.name) === 'ok') {
      const rev = stringAt(reply, 1, key, casRequestCore.name);
      // The follow-ups deliver the change (inbox messages, the plan gate): replicated first.
      if (replicaAcks.enabled) await replicaAcks.after(key);
      await runFollowUps(next, t.teams, t.incarnation, plan, planJson, {
        event: t.event, request_id: id, type: next.type, status: next.status, at: t.at, actor: JSON.stringify(t.actor), rev, state: JSON.stringify(next),
      });
      return { kind: 'ok' };
    }
    const result = await transitionResult(reply, t);
    const pending = reply[4];
    if (result.kind === 'stale' && result.current !== null && typeof pending === 'string' && pending !== '') {
      await replayFollowUps({ ...result.current, incarnation: await incarnationOf(id) }, pending);
    }
    // Nothing written by this call is owed (removed only now: the same-time entry may be a
    // concurrent writer's, whose follow-ups the replay above has just run).
    await followUpsSwept.run(redis, [keys.requestFollowUps], [id, Date.parse(t.at)]);
    return result;
  }

  async function incarnationOf(requestId: string): Promise<string> {
    return (await redis.hGet(keys.request(requestId), 'incarnation')) ?? '';
  }

  /** The answer of cas-request or cas-request-core. */
  async function transitionResult(reply: unknown[], t: Transition): Promise<TransitionResult> {
    const id = t.next.request_id;
    const key = keys.request(id);
    switch (stringAt(reply, 0, key, casRequest.name)) {
      case 'ok':
        if (t.deliver !== undefined) await notify(t.deliver.to);
        return { kind: 'ok' };
      case 'stale': {
        const rev = stringAt(reply, 1, key, casRequest.name);
        if (rev === '0') return { kind: 'stale', current: null };
        const fields = [stringAt(reply, 2, key, casRequest.name), rev, stringAt(reply, 3, key, casRequest.name), ''];
        return { kind: 'stale', current: parseRecord(keys, id, fields) };
      }
      case 'full':
        return { kind: 'full', count: Number(stringAt(reply, 1, key, casRequest.name)) };
      case 'corrupt':
        throw new StoreDataError(key, 'request hash has no revision', { field: 'rev' });
      default:
        throw badReply(key, casRequest.name, reply);
    }
  }

  /**
   * What settling `state` tells the sender's plan gate (cas-request ARGV[24]): the outcome of a
   * settled plan approval, except a cancellation (the sender withdrew it: that neither approves
   * nor rejects, and must not erase an earlier rejection).
   */
  function planVerdict(state: ProtocolState): string {
    if (state.type !== 'plan_approval') return '';
    return state.status === 'approved' || state.status === 'rejected' || state.status === 'expired' ? state.status : '';
  }

  /** Settles a request read at `stored` (decide, cancel, expire). */
  function settle(stored: StoredRequest, next: ProtocolState, actor: RequestActor, at: string): Promise<TransitionResult> {
    return write({
      expectedRev: stored.rev,
      previous: stored.state,
      next,
      teams: stored.teams,
      incarnation: stored.incarnation,
      // A settled state is never pending, so its status names its event.
    event: next.status as Exclude<RequestEvent, 'created' | 'refused'>,
      actor,
      at,
      deliver: settledMessage(next, at),
    });
  }

  /**
   * Appends an entry that changes nothing to the request's history and the audit stream: a
   * refused answer, or a permission prompt that stopped waiting. Returns whether the request
   * still existed.
   */
  async function note(state: ProtocolState, actor: RequestActor, at: string, why: string, event: 'refused' | 'prompt_fallback' = 'refused'): Promise<boolean> {
    const id = state.request_id;
    // Within the history entry's limit: an entry that does not parse would fail every read of the request.
    const feedback = clipText(why, LIMITS.maxText);
    const entry: RequestHistoryEntry = { at, actor, event, status: state.status, feedback };
    if (isClusterClient(redis)) {
      // The history entry on the request's tag, then the audit line (a crash in between loses that line).
      const recorded = await recordRefusalCore.run(redis, [keys.request(id), keys.requestHistory(id)], [JSON.stringify(entry), HISTORY_MAX_LEN]);
      if (recorded === 1) {
        await redis.xAdd(keys.requestEvents, '*', { event, request_id: id, type: state.type, status: state.status, at, actor: JSON.stringify(actor), feedback }, {
          TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: options.eventsMaxLen },
        });
      }
      return recorded === 1;
    }
    const recorded = await recordRefusal.run(redis, [keys.request(id), keys.requestHistory(id), keys.requestEvents], [
      JSON.stringify(entry),
      HISTORY_MAX_LEN,
      id,
      state.type,
      state.status,
      at,
      JSON.stringify(actor),
      options.eventsMaxLen,
      feedback,
      event,
    ]);
    return recorded === 1;
  }

  /** Runs `attempt` until it returns a result rather than losing a compare-and-set race. */
  async function retrying<T>(requestId: string, attempt: () => Promise<T | 'retry'>): Promise<T> {
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      const result = await attempt();
      if (result !== 'retry') return result;
    }
    throw new StoreDataError(keys.request(requestId), `revision changed ${MAX_ATTEMPTS} times in a row; something else writes request hashes`, { field: 'rev' });
  }

  return {
    read,
    write,
    settle,
    note,
    notify,
    retrying,
    async forgetFollowUps(requestId: string, score: number) {
      await followUpsSwept.run(redis, [keys.requestFollowUps], [requestId, score]);
    },
  };
}
