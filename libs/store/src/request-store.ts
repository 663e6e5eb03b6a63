/**
 * RequestStore on Redis: the pending requests and their state machine
 * (docs/spec/teams.md#request-state-machine, docs/spec/teams.md#matching-responses), shared by every gateway.
 *
 * Each transition reads the request (state and revision), runs the protocol's pure transition
 * function in TypeScript (`applyResponse`, `cancelRequest`, `expireRequest`) and writes the result
 * with the cas-request script, which refuses the write if the revision moved meanwhile. The loser
 * of a race re-reads and re-applies: the request is settled by then, so the pure function answers
 * `already_decided`, `conflict` or `not_pending` without writing. The state machine lives in one
 * place (the protocol library) and the Lua only makes read-decide-write atomic.
 *
 * Inbox messages each transition writes (in the same script, so they exist exactly when the change
 * does), followed by a notice to the recipient's gateway feed:
 *
 * | transition                              | recipient          | message `type`      | `from`                 | `content`        | `metadata` |
 * |-----------------------------------------|--------------------|---------------------|------------------------|------------------|------------|
 * | created, target `{ kind: 'agent' }`     | the target agent   | `<type>_request`    | sender                 | summary¹         | `request_id`, `payload`², `deadline`? |
 * | created, target `{ kind: 'operators' }` | nobody (the console tails the audit stream) | | | | |
 * | approved / rejected                     | the sender         | `<type>_response`   | `decided_by`           | feedback or `''` | `request_id`, `approve`, `status`, `decided_by`, `feedback`?, `modified_input`?² |
 * | expired                                 | the sender         | `<type>_response`   | `system`               | `'expired'`      | `request_id`, `approve: false`, `status: 'expired'`, `feedback: 'expired'` |
 * | cancelled, target `{ kind: 'agent' }`   | the target agent   | `<type>_response`   | sender                 | `'cancelled'`    | `request_id`, `approve: false`, `status: 'cancelled'`, `decided_by`, `feedback: 'cancelled'` |
 * | cancelled, target `{ kind: 'operators' }` | nobody (the console follows the request) | | | | |
 *
 * A cancellation is the sender's own act, answered by the `ack` of its `cancel` frame, so the sender
 * gets no message about it; the addressee does, since it may be acting on the request already.
 *
 * ¹ shutdown: the reason, or "Please shut down."; plan_approval: the plan's title; tool_approval:
 *   "Approve a call of tool <tool>.".
 * ² Copied whole. The only value that can fail to fit is a JSON object nested within a level of
 *   the protocol's depth limit (metadata adds one level): it is then left out and
 *   `payload_omitted: true` / `modified_input_omitted: true` says so; the request holds it.
 *
 * Every settling transition (approved, rejected, expired, cancelled) also withdraws the
 * `<type>_request` message from the target's inbox if it is still unacknowledged, so an agent that
 * comes back online never acts on a request that is over. Refused answers (a contrary decision, a
 * response of the wrong type) produce no message; they are recorded in the history and the audit
 * stream. Message ids are random UUIDs; `sent_at` is the transition time.
 *
 * Retention: a pending request never expires (only its deadline ends it). A settled one keeps its
 * hash and history for `retentionMs` (default 7 days), then Redis expires them; `expireDue` purges
 * its index entries once that time has passed.
 */
import { randomUUID } from 'node:crypto';
import {
  IdSchema,
  InboxMessageSchema,
  PresenceEntrySchema,
  ProtocolResponseSchema,
  ProtocolStateSchema,
  RequestHistoryEntrySchema,
  TimestampSchema,
  applyResponse,
  cancelRequest,
  expireRequest,
  requestMessageType,
  responseTypeFor,
  type InboxMessage,
  type ProtocolResponse,
  type ProtocolState,
  type RequestActor,
  type RequestHistoryEntry,
} from '@ahp/protocol';
import type { DecideRequestOutcome, RequestStore } from './contracts.js';
import { RequestForbiddenError, StoreDataError, StoreInputError } from './errors.js';
import { notifyInbox, type InboxNotifyOptions } from './gateway-feed.js';
import { isRequestActor, type RequestEvent } from './request-events.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, arrayReply, badReply, parseStored, parseStoredJson, stringAt } from './lua.js';
import { DEFAULT_INBOX_SEND_DEDUP_MS } from './inbox-store.js';
import { isClusterClient, type RedisClient } from './redis-client.js';
import { NO_REPLICA_ACKS, type ReplicaAcks } from './replica-acks.js';
import { CAS_REQUEST_CORE_LUA, CAS_REQUEST_LUA, REQUEST_FOLLOWUPS_DONE_LUA, REQUEST_FOLLOWUPS_SWEPT_LUA } from './scripts/cas-request.lua.js';
import { INBOX_ACK_LUA } from './scripts/inbox-ack.lua.js';
import { INBOX_SEND_LUA } from './scripts/inbox-send.lua.js';
import { PURGE_REQUEST_CORE_LUA, PURGE_REQUEST_LUA } from './scripts/purge-request.lua.js';
import { RECORD_REFUSAL_CORE_LUA, RECORD_REFUSAL_LUA } from './scripts/record-refusal.lua.js';
import { describeIssues } from './validate.js';
import { redactRequestText, redactResponseText } from './free-text.js';

const casRequest = new LuaScript('cas-request', CAS_REQUEST_LUA);
const recordRefusal = new LuaScript('record-refusal', RECORD_REFUSAL_LUA);
const purgeRequest = new LuaScript('purge-request', PURGE_REQUEST_LUA);
const casRequestCore = new LuaScript('cas-request-core', CAS_REQUEST_CORE_LUA);
const followUpsDone = new LuaScript('request-followups-done', REQUEST_FOLLOWUPS_DONE_LUA);
const followUpsSwept = new LuaScript('request-followups-swept', REQUEST_FOLLOWUPS_SWEPT_LUA);
const recordRefusalCore = new LuaScript('record-refusal-core', RECORD_REFUSAL_CORE_LUA);
const purgeRequestCore = new LuaScript('purge-request-core', PURGE_REQUEST_CORE_LUA);
const inboxSend = new LuaScript('inbox-send', INBOX_SEND_LUA);
const inboxAck = new LuaScript('inbox-ack', INBOX_ACK_LUA);

/** The id that stands for the store itself: `from` of an expiry response, the actor of an expiry. */
export const SYSTEM_ACTOR_ID = 'system';

/**
 * Attempts of one transition before giving up. After create, every write settles the request, so
 * a loser re-reads a settled request and stops: two attempts always suffice unless something
 * outside this store rewrites request hashes.
 */
const MAX_ATTEMPTS = 5;

/** History entries beyond which refused answers go to the audit stream only (see record-refusal). */
const HISTORY_MAX_LEN = 100;

/**
 * Under Redis Cluster, how old a transition must be before `expireDue` runs its follow-ups for it:
 * long enough that the writer itself has finished them unless it died.
 */
const FOLLOW_UPS_SWEEP_AFTER_MS = 30_000;

/** Largest `limit` of `list` and `expireDue`. */
const MAX_LIMIT = 1000;

/** Where a team is looked up for the `team` index and filter. */
export type TeamResolver = (agentId: string) => string | undefined | Promise<string | undefined>;

/** Options of {@link createRequestStore}; {@link createRedisStores} fills them from its own. */
export interface RequestStoreOptions extends InboxNotifyOptions {
  /** How long a settled request stays readable. */
  retentionMs: number;
  /** Approximate length kept by the audit stream (`XADD MAXLEN ~`). */
  eventsMaxLen: number;
  /** The team of a party, resolved once when the request is created. */
  teamOf: TeamResolver;
  /** Replicas a request change must reach before it is delivered (Cluster) or the call returns. @defaultValue off */
  replicaAcks?: ReplicaAcks;
}

/** A request as stored: state, revision and what was fixed at creation. */
interface StoredRequest {
  state: ProtocolState;
  rev: string;
  teams: string[];
  incarnation: string;
}

/** A team resolver reading the agent's presence entry: the identity it connected with. Unknown (offline) agents have no team. */
export function teamFromPresence(redis: RedisClient, keys: StoreKeys): TeamResolver {
  return async (agentId) => {
    const key = keys.presenceAgent(agentId);
    const raw = await redis.hGet(key, 'entry');
    if (raw === null || raw === undefined) return undefined;
    return parseStored(PresenceEntrySchema, parseStoredJson(raw, key, 'entry'), key, 'entry').agent.team;
  };
}

/**
 * The teams recorded with a request when it was created (its sender's first, then an agent
 * target's); `null` when the request is not stored (any more).
 */
export async function readRequestTeams(redis: RedisClient, keys: StoreKeys, requestId: string): Promise<string[] | null> {
  const key = keys.request(requestId);
  const raw = await redis.hGet(key, 'teams');
  if (raw === null || raw === undefined) return null;
  return parseStored(TeamsParser, parseStoredJson(raw, key, 'teams'), key, 'teams');
}

function checkActor(actor: RequestActor): RequestActor {
  if (!isRequestActor(actor)) throw new StoreInputError(`invalid actor ${JSON.stringify(actor)}: { kind: agent | operator | system, id }`);
  return actor;
}

function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new StoreInputError(`limit must be an integer from 1 to ${MAX_LIMIT}, got ${limit}`);
  return limit;
}

function iso(now: number): string {
  if (!Number.isFinite(now)) throw new StoreInputError(`now must be epoch milliseconds, got ${now}`);
  return new Date(now).toISOString();
}

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

/** A list of team ids read back. */
const TeamsParser = {
  safeParse(value: unknown) {
    if (Array.isArray(value) && value.every((team) => IdSchema.safeParse(team).success)) return { success: true as const, data: value as string[] };
    return { success: false as const, error: { issues: [{ path: [], message: 'not a list of team ids' }] } };
  },
};

/**
 * An inbox message, checked. When the bulky metadata value `optionalKey` makes it invalid (see the
 * module comment, note ²), the message is built again without it and says so.
 */
function fitMessage(base: Omit<InboxMessage, 'metadata'>, metadata: InboxMessage['metadata'], optionalKey: string): InboxMessage {
  const full = InboxMessageSchema.safeParse({ ...base, metadata });
  if (full.success) return full.data;
  const { [optionalKey]: _omitted, ...rest } = metadata;
  const reduced = InboxMessageSchema.safeParse({ ...base, metadata: { ...rest, [`${optionalKey}_omitted`]: true } });
  if (!reduced.success) throw new StoreInputError(`cannot build the inbox message of request ${String(metadata.request_id)}: ${describeIssues(reduced.error.issues)}`);
  return reduced.data;
}

/** One line saying what a request asks: the text of its `<type>_request` inbox message and of its notifications. */
export function requestSummary(state: ProtocolState): string {
  switch (state.type) {
    case 'shutdown':
      return state.payload.reason ?? 'Please shut down.';
    case 'plan_approval':
      return state.payload.plan.title;
    case 'tool_approval':
      return `Approve a call of tool ${state.payload.tool}.`;
    case 'intervention':
      return `Stopped (${state.payload.reason}): ${state.payload.summary}`;
  }
}

/** The `<type>_request` message for the target agent of a new request. */
function requestMessage(state: ProtocolState, target: string, at: string): InboxMessage {
  return fitMessage(
    { id: randomUUID(), from: state.sender, to: target, type: requestMessageType(state.type), content: requestSummary(state), sent_at: at },
    { request_id: state.request_id, payload: state.payload, ...(state.deadline === undefined ? {} : { deadline: state.deadline }) },
    'payload',
  );
}

/**
 * The `<type>_response` message a settled request leaves: for its sender, or, for a cancelled one,
 * for the agent it was addressed to (none when operators were: they follow the request itself).
 */
function settledMessage(state: ProtocolState, at: string): InboxMessage | undefined {
  if (state.status !== 'cancelled') return responseMessage(state, state.sender, at);
  return state.target.kind === 'agent' ? responseMessage(state, state.target.agent, at) : undefined;
}

/** The `<type>_response` message telling `to` how a request settled. */
function responseMessage(state: ProtocolState, to: string, at: string): InboxMessage {
  const feedback = state.status === 'expired' || state.status === 'cancelled' ? state.status : state.feedback;
  return fitMessage(
    {
      id: randomUUID(),
      from: state.decided_by ?? SYSTEM_ACTOR_ID,
      to,
      type: responseTypeFor(state.type),
      content: feedback ?? '',
      sent_at: at,
    },
    {
      request_id: state.request_id,
      approve: state.status === 'approved',
      status: state.status,
      ...(state.decided_by === undefined ? {} : { decided_by: state.decided_by }),
      ...(feedback === undefined ? {} : { feedback }),
      ...(state.modified_input === undefined ? {} : { modified_input: state.modified_input }),
    },
    'modified_input',
  );
}

/**
 * Creates the Redis RequestStore. See {@link RequestStore} for the guarantees and the module
 * comment for the inbox messages and retention.
 *
 * Beyond the interface:
 * - `create` validates the state with ProtocolStateSchema and requires `pending`
 *   (StoreInputError). The same request id again with the same sender, type and target returns
 *   the stored request (`created: false`) whatever its status; otherwise `conflict`. Teams of the
 *   sender and of an agent target are resolved once, with `teamOf`.
 * - `decide` validates the response and the actor (StoreInputError, also for a response naming
 *   another request). Authorising the actor is the caller's job. A decision after the deadline
 *   expires the request and returns `not_pending` with the expired state. Contrary and mistyped
 *   answers are recorded as `refused` in the history (up to 100 entries) and the audit stream.
 * - `cancel` throws RequestForbiddenError when the actor is not the sender of a pending request.
 * - `expireDue(now, limit = 100)` expires up to `limit` due requests, then purges the index
 *   entries of up to `limit` settled requests past their retention. Run it periodically on every
 *   gateway: compare-and-set makes a double expiry impossible, and the purge is idempotent.
 * - `list` defaults to 50 results (at most 1000) and reads the smallest index among the filters,
 *   checking every filter against each state it loads.
 * - Under Redis Cluster, cas-request splits (docs/deploy.md §8): cas-request-core writes the
 *   state, history and the follow-ups it owes on the request's tag; the follow-ups (indexes,
 *   deadline and retention sets, plan gate and verdict, inbox messages, audit line) run after it,
 *   and are run again by whoever reads the request next, or by `expireDue` 30 s later, if the
 *   writer died in between. Only the audit line is written by the first run alone.
 * - The feed notice follows the write; if it fails the call throws although the change stands.
 *   Retrying is safe and repairs it: `created: false` notifies the target again, and
 *   `already_decided` the sender. (Without a retry the message is still delivered when the
 *   recipient's gateway next reads its inbox, at the latest on reconnect.)
 * - The sender is taken to be an agent: `created` is recorded with actor `{ kind: 'agent', id:
 *   sender }`, and the response of a settled request goes to the inbox named `sender`.
 * - Every read-back is parsed with its protocol schema; a value that does not parse throws
 *   StoreDataError naming the key.
 */
export function createRequestStore(options: RequestStoreOptions): RequestStore {
  const { redis, keys } = options;
  const replicaAcks = options.replicaAcks ?? NO_REPLICA_ACKS;

  function parseRecord(requestId: string, fields: (string | null | undefined)[]): StoredRequest | null {
    const key = keys.request(requestId);
    const [stateJson, rev, teamsJson, incarnation] = fields;
    if (stateJson == null && rev == null) return null;
    if (stateJson == null) throw new StoreDataError(key, 'request hash has no state', { field: 'state' });
    if (rev == null || !/^[1-9]\d{0,15}$/.test(rev)) throw new StoreDataError(key, `revision ${JSON.stringify(rev)} is not a positive integer`, { field: 'rev' });
    const state = parseStored(ProtocolStateSchema, parseStoredJson(stateJson, key, 'state'), key, 'state');
    if (state.request_id !== requestId) throw new StoreDataError(key, `state is for request ${state.request_id}`, { field: 'state' });
    const teams = parseStored(TeamsParser, parseStoredJson(teamsJson ?? '', key, 'teams'), key, 'teams');
    return { state, rev, teams, incarnation: incarnation ?? '' };
  }

  /** The stored request; under Redis Cluster, follow-ups it still holds run first (see {@link writeSplit}). */
  async function read(requestId: string): Promise<StoredRequest | null> {
    if (!isClusterClient(redis)) return parseRecord(requestId, await redis.hmGet(keys.request(requestId), ['state', 'rev', 'teams', 'incarnation']));
    const fields = await redis.hmGet(keys.request(requestId), ['state', 'rev', 'teams', 'incarnation', 'followups']);
    const stored = parseRecord(requestId, fields.slice(0, 4));
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

  interface Transition {
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
  }

  type TransitionResult = { kind: 'ok' } | { kind: 'stale'; current: StoredRequest | null };

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
      adds: previousStatus === undefined ? [...baseIndexes(next, teams), statusIndex] : [statusIndex],
      removes: previousStatus === undefined || previousStatus === next.status ? [] : [keys.requestsByStatus(previousStatus)],
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
      await inboxSend.run(redis, [keys.inbox(to), keys.inboxIds(to), keys.inboxSent(to, plan.deliver.id)], [plan.deliver.id, JSON.stringify(plan.deliver), DEFAULT_INBOX_SEND_DEDUP_MS]);
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
    if (isClusterClient(redis)) return writeSplit(t, args);
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
    // Written ahead: if this process dies after the compare-and-set, expireDue finds the request
    // here and runs what it still owes, even if nobody reads the request again.
    await redis.zAdd(keys.requestFollowUps, { score: Date.parse(t.at), value: id });
    const reply = arrayReply(await casRequestCore.run(redis, [key, keys.requestHistory(id)], [...args, planJson]), key, casRequestCore.name);
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
        return { kind: 'stale', current: parseRecord(id, fields) };
      }
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
    const entry: RequestHistoryEntry = { at, actor, event, status: state.status, feedback: why };
    if (isClusterClient(redis)) {
      // The history entry on the request's tag, then the audit line (a crash in between loses that line).
      const recorded = await recordRefusalCore.run(redis, [keys.request(id), keys.requestHistory(id)], [JSON.stringify(entry), HISTORY_MAX_LEN]);
      if (recorded === 1) {
        await redis.xAdd(keys.requestEvents, '*', { event, request_id: id, type: state.type, status: state.status, at, actor: JSON.stringify(actor), feedback: why }, {
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
      why,
      event,
    ]);
    return recorded === 1;
  }

  async function refuse(state: ProtocolState, actor: RequestActor, at: string, why: string): Promise<void> {
    await note(state, actor, at, why);
  }

  /** Runs `attempt` until it returns a result rather than losing a compare-and-set race. */
  async function retrying<T>(requestId: string, attempt: () => Promise<T | 'retry'>): Promise<T> {
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      const result = await attempt();
      if (result !== 'retry') return result;
    }
    throw new StoreDataError(keys.request(requestId), `revision changed ${MAX_ATTEMPTS} times in a row; something else writes request hashes`, { field: 'rev' });
  }

  async function expireOne(requestId: string, now: string): Promise<ProtocolState | null> {
    return retrying(requestId, async () => {
      const stored = await read(requestId);
      const result = stored === null ? undefined : expireRequest(stored.state, now);
      if (stored === null || result?.outcome === 'not_pending') {
        // Settling removes a request from the deadline set in the same script; a member left here
        // (data changed by hand) would otherwise take a slot of every later batch.
        await redis.zRem(keys.requestDeadlines, requestId);
        return null;
      }
      if (result?.outcome !== 'expired') return null;
      const written = await settle(stored, result.state, { kind: 'system', id: SYSTEM_ACTOR_ID }, now);
      return written.kind === 'ok' ? result.state : 'retry';
    });
  }

  async function purgeDue(now: number, limit: number): Promise<void> {
    const members = await redis.zRange(keys.requestRetention, '-inf', now, { BY: 'SCORE', LIMIT: { offset: 0, count: limit } });
    await Promise.all(
      members.map(async (member) => {
        const parsed = parseStoredJson(member, keys.requestRetention, 'member');
        const [id, incarnation, ...indexes] = Array.isArray(parsed) ? (parsed as unknown[]) : [];
        if (typeof id !== 'string' || typeof incarnation !== 'string' || !indexes.every((index) => typeof index === 'string')) {
          throw new StoreDataError(keys.requestRetention, `member ${member.slice(0, 200)} is not [id, incarnation, ...index keys]`, { field: 'member' });
        }
        if (!isClusterClient(redis)) {
          await purgeRequest.run(redis, [keys.request(id), keys.requestHistory(id), keys.requestRetention, ...(indexes as string[])], [id, incarnation, member]);
          return;
        }
        // The data on the request's tag, then its index entries, the retention member last: a crash
        // before that leaves the member, and the next purge runs again (each step is idempotent).
        const outcome = await purgeRequestCore.run(redis, [keys.request(id), keys.requestHistory(id)], [id, incarnation, member]);
        if (outcome === 'purged') await Promise.all((indexes as string[]).map((index) => redis.zRem(index, id)));
        await redis.zRem(keys.requestRetention, member);
      }),
    );
  }

  /**
   * Cluster mode: runs the follow-ups of transitions whose writer has not removed them from the
   * sweep set after {@link FOLLOW_UPS_SWEEP_AFTER_MS} (it died between the parts). Reading the
   * request runs what it still holds; a member whose request owes nothing (done, or purged) is
   * removed unless a later transition re-added it.
   */
  async function sweepFollowUps(now: number, limit: number): Promise<void> {
    const due = await redis.zRangeWithScores(keys.requestFollowUps, '-inf', now - FOLLOW_UPS_SWEEP_AFTER_MS, { BY: 'SCORE', LIMIT: { offset: 0, count: limit } });
    await Promise.all(
      due.map(async ({ value: id, score }) => {
        if (IdSchema.safeParse(id).success) await read(id);
        await followUpsSwept.run(redis, [keys.requestFollowUps], [id, score]);
      }),
    );
  }

  function matches(stored: StoredRequest, filter: Parameters<RequestStore['list']>[0]): boolean {
    const { state } = stored;
    const targetAgent = state.target.kind === 'agent' ? state.target.agent : undefined;
    if (filter.status !== undefined && state.status !== filter.status) return false;
    if (filter.type !== undefined && state.type !== filter.type) return false;
    if (filter.agent !== undefined && state.sender !== filter.agent && targetAgent !== filter.agent) return false;
    if (filter.team !== undefined && !stored.teams.includes(filter.team)) return false;
    if (filter.target !== undefined && (filter.target === 'operators' ? state.target.kind !== 'operators' : targetAgent !== filter.target)) return false;
    return true;
  }

  return {
    async create(state: ProtocolState, now: number) {
      const checked = ProtocolStateSchema.safeParse(state);
      if (!checked.success) throw new StoreInputError(`invalid request: ${describeIssues(checked.error.issues)}`);
      const valid = redactRequestText(checked.data);
      if (valid.status !== 'pending') throw new StoreInputError(`a new request is pending, not ${valid.status}`);
      const at = iso(now);
      const parties = [valid.sender, ...(valid.target.kind === 'agent' ? [valid.target.agent] : [])];
      const teams = [...new Set((await Promise.all(parties.map((party) => options.teamOf(party)))).filter((team) => team !== undefined))];
      const written = await write({
        expectedRev: '0',
        next: valid,
        teams,
        incarnation: randomUUID(),
        event: 'created',
        actor: { kind: 'agent', id: valid.sender },
        at,
        ...(valid.target.kind === 'agent' ? { deliver: requestMessage(valid, valid.target.agent, at) } : {}),
      });
      if (written.kind === 'ok') return { created: true, state: valid };
      const current = written.current;
      // Only a revision other than 0 makes a create stale, so a request exists here.
      if (current === null) throw badReply(keys.request(valid.request_id), casRequest.name, written);
      const same =
        current.state.sender === valid.sender &&
        current.state.type === valid.type &&
        JSON.stringify(current.state.target) === JSON.stringify(valid.target);
      if (!same) return { outcome: 'conflict' };
      if (current.state.status === 'pending' && current.state.target.kind === 'agent') await notify(current.state.target.agent);
      return { created: false, state: current.state };
    },

    async get(requestId: string) {
      const key = keys.request(requestId);
      const [fields, rawHistory] = await Promise.all([
        redis.hmGet(key, ['state', 'rev', 'teams', 'incarnation']),
        redis.lRange(keys.requestHistory(requestId), 0, -1),
      ]);
      const stored = parseRecord(requestId, fields);
      if (stored === null) return null;
      const historyKey = keys.requestHistory(requestId);
      const history = rawHistory.map((raw, index) => parseStored(RequestHistoryEntrySchema, parseStoredJson(raw, historyKey, String(index)), historyKey, String(index)));
      return { state: stored.state, history };
    },

    async decide(requestId: string, response: ProtocolResponse, actor: RequestActor, now: number): Promise<DecideRequestOutcome> {
      const checked = ProtocolResponseSchema.safeParse(response);
      if (!checked.success) throw new StoreInputError(`invalid response: ${describeIssues(checked.error.issues)}`);
      const valid = redactResponseText(checked.data);
      const by = checkActor(actor);
      const at = iso(now);
      return retrying(requestId, async (): Promise<DecideRequestOutcome | 'retry'> => {
        const stored = await read(requestId);
        if (stored === null) return { outcome: 'not_found' };
        const result = applyResponse(stored.state, valid, { decidedBy: by.id, now: at });
        switch (result.outcome) {
          case 'request_mismatch':
            throw new StoreInputError(`the response is for request ${result.received}, not ${result.expected}`);
          case 'type_mismatch':
            await refuse(stored.state, by, at, `${result.received} does not answer a ${stored.state.type} request (expected ${result.expected})`);
            return { outcome: 'type_mismatch', state: stored.state, expected: result.expected };
          case 'conflict':
            await refuse(stored.state, by, at, `approve=${String(valid.approve)} after the request was ${stored.state.status} by ${stored.state.decided_by ?? '?'}`);
            return { outcome: 'conflict', state: stored.state };
          case 'already_decided':
            await notify(stored.state.sender);
            return { outcome: 'already_decided', state: stored.state };
          case 'not_pending':
            return { outcome: 'not_pending', state: stored.state };
          case 'expired': {
            const written = await settle(stored, result.state, { kind: 'system', id: SYSTEM_ACTOR_ID }, at);
            return written.kind === 'ok' ? { outcome: 'not_pending', state: result.state } : 'retry';
          }
          case 'applied': {
            const written = await settle(stored, result.state, by, at);
            return written.kind === 'ok' ? { outcome: 'applied', state: result.state } : 'retry';
          }
        }
      });
    },

    async cancel(requestId: string, actor: RequestActor, now: number): Promise<DecideRequestOutcome> {
      const by = checkActor(actor);
      const at = iso(now);
      return retrying(requestId, async (): Promise<DecideRequestOutcome | 'retry'> => {
        const stored = await read(requestId);
        if (stored === null) return { outcome: 'not_found' };
        const result = cancelRequest(stored.state, by.id, at);
        switch (result.outcome) {
          case 'forbidden':
            throw new RequestForbiddenError(stored.state, by.id);
          case 'not_pending':
            return { outcome: 'not_pending', state: stored.state };
          case 'cancelled': {
            const written = await settle(stored, result.state, by, at);
            return written.kind === 'ok' ? { outcome: 'applied', state: result.state } : 'retry';
          }
        }
      });
    },

    async recordPromptFallback(requestId: string, feedback: string, now: number): Promise<boolean> {
      const stored = await read(requestId);
      if (stored === null) return false;
      return note(stored.state, { kind: 'system', id: SYSTEM_ACTOR_ID }, iso(now), feedback.slice(0, 4096), 'prompt_fallback');
    },

    async expireDue(now: number, limit = 100): Promise<ProtocolState[]> {
      const batch = checkLimit(limit);
      const at = iso(now);
      const due = await redis.zRange(keys.requestDeadlines, '-inf', now, { BY: 'SCORE', LIMIT: { offset: 0, count: batch } });
      const expired = await Promise.all(due.map((requestId) => expireOne(requestId, at)));
      await purgeDue(now, batch);
      if (isClusterClient(redis)) await sweepFollowUps(now, batch);
      return expired.filter((state) => state !== null);
    },

    async list(filter) {
      const limit = checkLimit(filter.limit ?? 50);
      const candidates = [
        ...(filter.agent === undefined ? [] : [keys.requestsByAgent(filter.agent)]),
        ...(filter.team === undefined ? [] : [keys.requestsByTeam(filter.team)]),
        ...(filter.target === undefined ? [] : [keys.requestsByTarget(filter.target === 'operators' ? { kind: 'operators' } : { kind: 'agent', agent: filter.target })]),
        ...(filter.status === undefined ? [] : [keys.requestsByStatus(filter.status)]),
      ];
      let index = candidates[0] ?? keys.requestsAll;
      if (candidates.length > 1) {
        const sizes = await Promise.all(candidates.map((candidate) => redis.zCard(candidate)));
        index = candidates[sizes.indexOf(Math.min(...sizes))] ?? index;
      }
      // Pages of ids newest first; a request settled or purged between two pages may be seen twice or
      // not at all, as with any paged listing of live data. `seen` keeps the answer free of duplicates.
      const page = Math.min(Math.max(limit * 2, 50), MAX_LIMIT);
      const found: ProtocolState[] = [];
      const seen = new Set<string>();
      for (let offset = 0; found.length < limit; offset += page) {
        const ids = await redis.zRange(index, offset, offset + page - 1, { REV: true });
        const records = await Promise.all(ids.map((id) => read(id)));
        for (const record of records) {
          if (record === null || seen.has(record.state.request_id) || !matches(record, filter)) continue;
          seen.add(record.state.request_id);
          found.push(record.state);
          if (found.length === limit) break;
        }
        if (ids.length < page) break;
      }
      return found;
    },

    async pendingPlanApproval(agentId: string): Promise<ProtocolState | null> {
      const ids = await redis.sMembers(keys.planGate(agentId));
      const records = await Promise.all(ids.map((id) => read(id)));
      const pending = records
        .flatMap((record) => (record === null ? [] : [record.state]))
        .filter((state) => state.type === 'plan_approval' && state.status === 'pending' && state.sender === agentId)
        .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
      return pending[0] ?? null;
    },
  };
}
