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
 * The parts, one job each: `request-transitions.ts` (read and compare-and-set write of one
 * request, its follow-ups under Redis Cluster), `request-messages.ts` (the inbox messages each
 * transition writes, with their table), `request-deadlines.ts` (expiry and the retention purge),
 * `request-listing.ts` (reads and listings), `request-records.ts` (the stored shape and its
 * parsers). This module opens, decides and cancels requests with the protocol's pure functions.
 *
 * Retention: a pending request never expires (only its deadline ends it). A settled one keeps its
 * hash and history for `retentionMs` (default 7 days), then Redis expires them; `expireDue` purges
 * its index entries once that time has passed.
 */
import { randomUUID } from 'node:crypto';
import { ProtocolResponseSchema, ProtocolStateSchema, applyResponse, cancelRequest, silentLogger, type Logger, type ProtocolResponse, type ProtocolState, type RequestActor } from '@ahp/protocol';
import type { DecideRequestOutcome, RequestStore } from './contracts.js';
import { RequestForbiddenError, StoreInputError, TooManyRequestsError } from './errors.js';
import { redactResponseText, redactedRequest } from './free-text.js';
import { badReply } from './lua.js';
import { createRequestDeadlines } from './request-deadlines.js';
import { createRequestListing } from './request-listing.js';
import { SYSTEM_ACTOR_ID, requestMessage } from './request-messages.js';
import { checkActor, iso, type TeamResolver } from './request-records.js';
import { createRequestTransitions, type RequestTransitionOptions } from './request-transitions.js';
import { describeIssues } from './validate.js';

/** Options of {@link createRequestStore}; {@link createRedisStores} fills them from its own. */
export interface RequestStoreOptions extends RequestTransitionOptions {
  /** The team of a party, resolved once when the request is created. */
  teamOf: TeamResolver;
  /** Where a stored request that does not parse is reported when a list or the sweep skips it. @defaultValue silent */
  logger?: Logger;
  /**
   * Most pending requests one sender may have, whoever opened them (its `request` frames, the
   * tool approvals rules open for it); `create` refuses another with TooManyRequestsError (a
   * re-sent request that is already stored is answered as before). Counted by the script that
   * writes the request (under Redis Cluster, reserved on the sender's tag just before), so
   * concurrent creates never pass it.
   * @defaultValue no limit (the gateway and the worker set AHP_AGENT_MAX_PENDING_REQUESTS)
   */
  maxPendingPerSender?: number;
}

/**
 * Creates the Redis RequestStore. See {@link RequestStore} for the guarantees, the module comment
 * for retention and `request-messages.ts` for the inbox messages.
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
 * - `create` redacts the request's free text, then checks it again (free-text.ts): redaction can
 *   make text longer, and a stored request that does not parse would fail every read of it.
 * - `list` and `expireDue` skip a stored request that does not parse and report it on `logger`
 *   with its key; `expireDue` tries it again an hour later (CORRUPT_REQUEST_RETRY_MS). One corrupt
 *   record never stops the others being listed, decided or expired.
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
 *   StoreDataError naming the key (`get`, `decide`, `cancel`, `pendingPlanApproval`).
 */
export function createRequestStore(options: RequestStoreOptions): RequestStore {
  const transitions = createRequestTransitions(options);
  const { read, write, settle, note, notify, retrying } = transitions;
  const logger = options.logger ?? silentLogger;
  const maxPending = options.maxPendingPerSender;
  if (maxPending !== undefined && (!Number.isInteger(maxPending) || maxPending < 1)) throw new StoreInputError(`maxPendingPerSender must be a positive integer, got ${maxPending}`);

  async function refuse(state: ProtocolState, actor: RequestActor, at: string, why: string): Promise<void> {
    await note(state, actor, at, why);
  }

  return {
    async create(state: ProtocolState, now: number) {
      const checked = ProtocolStateSchema.safeParse(state);
      if (!checked.success) throw new StoreInputError(`invalid request: ${describeIssues(checked.error.issues)}`);
      // Redacted first, then checked again (free-text.ts): the stored request must parse on every read.
      const valid = redactedRequest(checked.data);
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
        ...(maxPending === undefined ? {} : { maxPending }),
      });
      if (written.kind === 'ok') return { created: true, state: valid };
      if (written.kind === 'full') throw new TooManyRequestsError(valid.sender, maxPending ?? written.count);
      const current = written.current;
      // Only a revision other than 0 makes a create stale, so a request exists here.
      if (current === null) throw badReply(options.keys.request(valid.request_id), 'cas-request', written);
      const same =
        current.state.sender === valid.sender &&
        current.state.type === valid.type &&
        JSON.stringify(current.state.target) === JSON.stringify(valid.target);
      if (!same) return { outcome: 'conflict' };
      if (current.state.status === 'pending' && current.state.target.kind === 'agent') await notify(current.state.target.agent);
      return { created: false, state: current.state };
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

    ...createRequestListing(options.redis, options.keys, transitions, logger),
    ...createRequestDeadlines(options.redis, options.keys, transitions, logger),
  };
}
