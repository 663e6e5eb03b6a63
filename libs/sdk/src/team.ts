/**
 * The agent's side of the team protocols (docs/spec/teams.md): the one consumer of its inbox, the requests it
 * opened and waits for, the requests addressed to it, and the idle loop.
 *
 * Every inbox message reaches exactly one place: a protocol response (`*_response`) settles the
 * request it answers, a protocol request (`*_request`) goes to the handler registered for its
 * type, and every other message goes to the application through {@link TeamChannel.idle}. The
 * state of a request comes from the `request_update` push the gateway sends just before the
 * message, so a handler sees the full request (the plan to review) and a waiter the full decision.
 *
 * Delivery is at least once (a message stays in the inbox until acknowledged), so messages are
 * deduplicated by id: a message handed to the application is acknowledged and never handed over
 * again, also when the gateway delivers it again because the acknowledgement was lost. A message
 * is acknowledged only once it was used — returned by `idle()`, its response settled, its request
 * answered — so a crash before that leaves it in the inbox for the next run.
 */
import {
  RequestFrameSchema,
  ResponseFrameSchema,
  isProtocolMessage,
  issueDetails,
  isTerminalStatus,
  requestIdOf,
  responseTypeFor,
} from '@ahp/protocol/wire';
import type {
  AckFrame,
  InboxAckFrame,
  InboxMessage,
  JsonObject,
  OpenRequest,
  ProtocolState,
  RequestFrame,
  RequestStatus,
  RequestType,
  ResponseFrame,
} from '@ahp/protocol/wire';
import { backoffDelay, resolveBackoffOptions } from './backoff.js';
import { AhpClientError } from './errors.js';
import type { Logger } from './logger.js';

/** How a request ended, as {@link TeamChannel.openAndWait} resolves it. */
export interface RequestDecision {
  readonly requestId: string;
  readonly type: RequestType;
  /** `approved`, `rejected`, `expired` (nobody decided in time) or `cancelled`. */
  readonly status: Exclude<RequestStatus, 'pending'>;
  /** Shorthand for `status === 'approved'`. */
  readonly approved: boolean;
  /** What the decider said ("LGTM", or why not). */
  readonly feedback?: string;
  /** The agent or operator who decided; absent when the request expired. */
  readonly decidedBy?: string;
  /** For an approved tool approval: the input to run instead of the original. */
  readonly modifiedInput?: JsonObject;
  /** The final state as the gateway sent it. */
  readonly request: ProtocolState;
  /** A plan submitted to lead and operators together (`approver: 'both'`): the decisions of both requests known when it settled. */
  readonly parts?: readonly RequestDecision[];
}

/** An answer to a request addressed to this agent. */
export interface RequestAnswer {
  readonly approve: boolean;
  readonly feedback?: string;
  /** Only when approving a tool approval: the input to run instead. */
  readonly modifiedInput?: JsonObject;
}

/** A pending request addressed to this agent, narrowed to its type. */
export type IncomingRequest<T extends RequestType = RequestType> = Extract<ProtocolState, { type: T }>;

/**
 * Handles a request addressed to this agent and returns the answer, which is sent for it; take
 * as long as needed (await a model, a person). A throwing handler leaves the request unanswered:
 * it is delivered again after the next reconnect.
 */
export type RequestHandler<T extends RequestType = RequestType> = (request: IncomingRequest<T>) => RequestAnswer | Promise<RequestAnswer>;

/** What {@link TeamChannel.idle} returns. */
export type IdleResult =
  /** A message for the application (a `message` or an `idle_notification`); already acknowledged. */
  | { readonly kind: 'message'; readonly message: InboxMessage }
  /** This agent approved a shutdown request: stop working; the client disconnects by itself. */
  | { readonly kind: 'shutdown'; readonly request: ProtocolState }
  /** `timeoutMs` passed without a message. */
  | { readonly kind: 'timeout' };

/** What the channel needs from the client: sending managed frames and knowing who it is. */
export interface TeamChannelDeps {
  /** Sends a frame through the request manager (re-sent across reconnects, bounded by the client's request deadline) and resolves with its `ack`. */
  send(frame: RequestFrame | ResponseFrame | InboxAckFrame): Promise<AckFrame>;
  /** The agent id from the latest `welcome`. */
  selfId(): string | undefined;
  /** Called once after this agent approved a shutdown and its answer was acknowledged. */
  shutdownApproved(request: ProtocolState): void;
  /**
   * Answers requests of a type no handler is registered for, instead of holding them until one
   * is (the default shutdown policy). Applied a moment after the request arrived, so a handler
   * registered right after `connect()` still gets the requests delivered with the `welcome`.
   */
  fallbacks?: Partial<Record<RequestType, RequestHandler>>;
  logger: Logger;
}

/**
 * Waits between attempts of an answer that failed with a retryable error: full jitter from
 * 200 ms, doubling up to 5 s — and never less than the gateway's `retry_after_ms`.
 */
const ANSWER_RETRY_BACKOFF = resolveBackoffOptions({ initialDelayMs: 200, maxDelayMs: 5_000 });

/** Message ids remembered for deduplication; older ones are forgotten first. */
const MAX_REMEMBERED_MESSAGES = 10_000;
/** Request states remembered; older ones are forgotten first (those still awaited are re-read). */
const MAX_REMEMBERED_STATES = 1_000;

interface OpenedRequest {
  readonly open: OpenRequest;
  readonly waiters: { resolve(decision: RequestDecision): void; reject(error: AhpClientError): void }[];
}

/** Someone waiting for a request it did not open to settle (a tool approval a rule opened for this agent). */
interface Watcher {
  resolve(status: Exclude<RequestStatus, 'pending'>): void;
  reject(error: AhpClientError): void;
}

const SETTLED_STATUSES: ReadonlySet<string> = new Set(['approved', 'rejected', 'expired', 'cancelled']);

interface IdleWaiter {
  resolve(result: IdleResult): void;
  reject(error: AhpClientError): void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

function newId(): string {
  return globalThis.crypto.randomUUID();
}

/** Adds `key` as the newest entry of an insertion-ordered map, dropping the oldest beyond `max`. */
function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
}

/** The decision a final request state stands for. */
export function toRequestDecision(state: ProtocolState): RequestDecision {
  if (state.status === 'pending') throw new TypeError(`request ${state.request_id} is still pending`);
  return {
    requestId: state.request_id,
    type: state.type,
    status: state.status,
    approved: state.status === 'approved',
    ...(state.feedback === undefined ? {} : { feedback: state.feedback }),
    ...(state.decided_by === undefined ? {} : { decidedBy: state.decided_by }),
    ...(state.modified_input === undefined ? {} : { modifiedInput: state.modified_input }),
    request: state,
  };
}

/** See the module comment. One per client; it outlives reconnects. */
export class TeamChannel {
  readonly #deps: TeamChannelDeps;
  readonly #logger: Logger;
  /** Latest state per request id. */
  readonly #states = new Map<string, ProtocolState>();
  /** Requests this client opened and still waits for. */
  readonly #opened = new Map<string, OpenedRequest>();
  /** Requests this client learnt of (from a decision) and waits for. */
  readonly #watchers = new Map<string, Set<Watcher>>();
  /** How requests settled, from `*_response` messages whose state never came (for watchers that start late). */
  readonly #settledByMessage = new Map<string, Exclude<RequestStatus, 'pending'>>();
  /** Unacknowledged `*_request` message ids per request addressed to this agent. */
  readonly #incoming = new Map<string, Set<string>>();
  /** Requests handed to a handler (or held for one), so a re-delivery does not dispatch them twice. */
  readonly #dispatched = new Set<string>();
  readonly #handlers = new Map<RequestType, RequestHandler>();
  readonly #held = new Map<RequestType, IncomingRequest[]>();
  /** `pending`: being used; `done`: used and acknowledged (a re-delivery is acknowledged again). */
  readonly #seen = new Map<string, 'pending' | 'done'>();
  readonly #queue: InboxMessage[] = [];
  readonly #idleWaiters: IdleWaiter[] = [];
  #shutdown: ProtocolState | undefined;
  /**
   * Settles when this agent's approval of a shutdown, sent but not yet acknowledged, is: no tool
   * call may start in that window (the lead can hear of the approval before this agent does).
   */
  #approvingShutdown: Promise<void> | undefined;
  /** Wakes the answers waiting to retry, so that closing the client ends them at once. */
  readonly #pauses = new Set<() => void>();
  #closed: AhpClientError | undefined;

  constructor(deps: TeamChannelDeps) {
    this.#deps = deps;
    this.#logger = deps.logger;
  }

  /** The shutdown request this agent approved, once its answer was acknowledged. */
  get shutdownApproved(): ProtocolState | undefined {
    return this.#shutdown;
  }

  /** While an approval of this agent's shutdown is in flight: a promise that settles with it. */
  get approvingShutdown(): Promise<void> | undefined {
    return this.#approvingShutdown;
  }

  /** The first plan approval this client submitted that is not decided yet (its tool calls are gated). */
  get pendingPlanApproval(): string | undefined {
    for (const [requestId, opened] of this.#opened) {
      if (opened.open.type === 'plan_approval') return requestId;
    }
    return undefined;
  }

  // --- pushes --------------------------------------------------------------------------------

  /** A `request_update` push, or the state an `ack` returned. */
  onRequestState(state: ProtocolState): void {
    const known = this.#states.get(state.request_id);
    // A final state never goes back to pending (an older push arriving late).
    if (known !== undefined && isTerminalStatus(known.status) && !isTerminalStatus(state.status)) return;
    remember(this.#states, state.request_id, state, MAX_REMEMBERED_STATES);
    if (isTerminalStatus(state.status)) this.#settle(state);
  }

  /** An `inbox` push. */
  onInboxMessage(message: InboxMessage): void {
    const seen = this.#seen.get(message.id);
    if (seen === 'done') {
      // Delivered again: our acknowledgement was lost. Acknowledge again, use nothing twice.
      void this.#ack([message.id]);
      return;
    }
    if (seen === 'pending') return;
    remember(this.#seen, message.id, 'pending', MAX_REMEMBERED_MESSAGES);
    const requestId = isProtocolMessage(message) ? requestIdOf(message) : null;
    if (requestId === null) {
      this.#toApplication(message);
    } else if (message.type.endsWith('_response')) {
      void this.#onResponseMessage(message, requestId);
    } else {
      this.#onRequestMessage(message, requestId);
    }
  }

  // --- requests this agent opens -------------------------------------------------------------

  /**
   * Opens a request and resolves with its final state, however long that takes (its deadline,
   * sent as `deadline_ms`, bounds it on the gateway's side). Re-opening the same `request_id`
   * (e.g. after a restart) is safe: it resolves with the stored request's outcome.
   */
  async openAndWait(open: OpenRequest): Promise<RequestDecision> {
    return (await this.open(open)).decided;
  }

  /**
   * Opens a request and resolves once the gateway has stored it, with the promise of its final
   * state; rejects when it cannot be opened. For callers that must know a request exists before
   * they act on another (the two requests of a plan submitted to lead and operators).
   */
  async open(open: OpenRequest): Promise<{ readonly decided: Promise<RequestDecision> }> {
    if (this.#closed !== undefined) throw this.#closed;
    const frame: RequestFrame = { type: 'request', id: newId(), request: open };
    const checked = RequestFrameSchema.safeParse(frame);
    if (!checked.success) {
      throw new AhpClientError('E_INVALID_FRAME', `invalid request: ${checked.error.issues[0]?.message ?? 'schema mismatch'}`, {
        details: issueDetails(checked.error.issues),
      });
    }
    let opened = this.#opened.get(open.request_id);
    if (opened === undefined) {
      opened = { open, waiters: [] };
      this.#opened.set(open.request_id, opened);
    }
    const decided = new Promise<RequestDecision>((resolve, reject) => opened.waiters.push({ resolve, reject }));
    try {
      this.#stateFromAck(await this.#deps.send(frame));
    } catch (error) {
      this.#opened.delete(open.request_id);
      const clientError = asClientError(error);
      for (const waiter of opened.waiters) waiter.reject(clientError);
      // This call reports the failure by throwing; its own waiter's rejection needs no handler.
      decided.catch(() => undefined);
      throw clientError;
    }
    return { decided };
  }

  // --- requests addressed to this agent -------------------------------------------------------

  /** Registers the handler of one request type (replacing an earlier one); held requests go to it now. */
  onRequest<T extends RequestType>(type: T, handler: RequestHandler<T>): () => void {
    // Requests are dispatched by their type, so this handler only ever sees requests of type T.
    const stored = handler as unknown as RequestHandler;
    this.#handlers.set(type, stored);
    const held = this.#held.get(type) ?? [];
    this.#held.delete(type);
    for (const request of held) {
      // Held for a while: it may have been settled meanwhile (expired, cancelled).
      const latest = this.#states.get(request.request_id) ?? request;
      if (latest.status === 'pending') this.#runHandler(latest, stored);
      else void this.#ackIncoming(request.request_id);
    }
    return () => {
      if (this.#handlers.get(type) === stored) this.#handlers.delete(type);
    };
  }

  /**
   * Answers a request addressed to this agent and resolves with the request's state afterwards.
   * The request's messages are acknowledged once the gateway has the answer — also when it turns
   * out someone else decided first, since nothing is left to answer then.
   */
  async answer(requestId: string, type: RequestType, answer: RequestAnswer): Promise<ProtocolState> {
    if (this.#closed !== undefined) throw this.#closed;
    // Marked before the first await: a tool call asked for from now on waits for the outcome.
    if (type !== 'shutdown' || !answer.approve) return this.#answer(requestId, type, answer);
    const answering = this.#answer(requestId, type, answer);
    const settled = answering.then(
      () => undefined,
      () => undefined,
    );
    this.#approvingShutdown = settled;
    void settled.then(() => {
      if (this.#approvingShutdown === settled) this.#approvingShutdown = undefined;
    });
    return answering;
  }

  async #answer(requestId: string, type: RequestType, answer: RequestAnswer): Promise<ProtocolState> {
    const frame: ResponseFrame = {
      type: 'response',
      id: newId(),
      response: {
        request_id: requestId,
        type: responseTypeFor(type),
        approve: answer.approve,
        ...(answer.feedback === undefined ? {} : { feedback: answer.feedback }),
        ...(answer.modifiedInput === undefined ? {} : { modified_input: answer.modifiedInput }),
      },
    };
    const checked = ResponseFrameSchema.safeParse(frame);
    if (!checked.success) {
      throw new AhpClientError('E_INVALID_FRAME', `invalid answer: ${checked.error.issues[0]?.message ?? 'schema mismatch'}`, {
        details: issueDetails(checked.error.issues),
      });
    }
    const reply = await this.#sendAnswer(requestId, frame);
    const state = this.#stateFromAck(reply);
    if (state === undefined) throw new AhpClientError('E_PROTOCOL', 'the gateway acknowledged an answer without the request state');
    await this.#ackIncoming(requestId);
    const self = this.#deps.selfId();
    if (state.type === 'shutdown' && state.status === 'approved' && state.target.kind === 'agent' && state.target.agent === self && this.#shutdown === undefined) {
      this.#shutdown = state;
      for (const waiter of this.#idleWaiters.splice(0)) this.#resolveIdle(waiter, { kind: 'shutdown', request: state });
      this.#deps.shutdownApproved(state);
    }
    return state;
  }

  /**
   * Sends an answer until the gateway takes it (KI-2 in docs/reliability.md). A retryable failure —
   * `E_UNAVAILABLE` while Redis restarts, `E_RATE_LIMITED`, `E_SHUTTING_DOWN`, no reply in time —
   * is retried with backoff (at least the gateway's `retry_after_ms`) under a new frame id, which
   * is safe because answers are idempotent: the same answer again is acknowledged, a contrary one
   * refused. It stops when the gateway accepts, when it refuses for good (the request is final:
   * decided otherwise, expired, not ours), when the request's deadline would pass before the next
   * attempt, or when the client closes; the last error is thrown then.
   */
  async #sendAnswer(requestId: string, frame: ResponseFrame): Promise<AckFrame> {
    for (let attempt = 0; ; attempt++) {
      let clientError: AhpClientError;
      try {
        return await this.#deps.send(attempt === 0 ? frame : { ...frame, id: newId() });
      } catch (error) {
        clientError = asClientError(error);
      }
      const delayMs = clientError.retryable && clientError.code !== 'E_CLOSED' && this.#closed === undefined ? this.#answerRetryDelay(requestId, attempt, clientError) : undefined;
      if (delayMs === undefined) {
        // A final refusal (decided by someone else, expired, not ours): the request messages are
        // of no further use. A retryable failure keeps them for the next delivery.
        if (!clientError.retryable && clientError.code !== 'E_CLOSED') void this.#ackIncoming(requestId);
        throw clientError;
      }
      this.#logger.warn({ requestId, code: clientError.code, attempt: attempt + 1, delayMs }, 'answering a request failed; retrying');
      await this.#pause(delayMs);
      if (this.#closed !== undefined) throw this.#closed;
    }
  }

  /** The wait before retry number `attempt` of an answer, or undefined when the request's deadline comes first. */
  #answerRetryDelay(requestId: string, attempt: number, error: AhpClientError): number | undefined {
    const delayMs = Math.max(error.retryAfterMs ?? 0, backoffDelay(attempt, ANSWER_RETRY_BACKOFF));
    const deadline = this.#states.get(requestId)?.deadline;
    if (deadline !== undefined && Date.now() + delayMs >= Date.parse(deadline)) return undefined;
    return delayMs;
  }

  /** Resolves after `ms`, or at once when the client closes. */
  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#pauses.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#pauses.add(wake);
    });
  }

  /** The latest known state of a request (from a push or an ack). */
  stateOf(requestId: string): ProtocolState | undefined {
    return this.#states.get(requestId);
  }

  // --- the idle loop -------------------------------------------------------------------------

  /**
   * Waits for the next message for the application, by push (no polling). Messages that arrived
   * while nobody waited are returned first, oldest first. Resolves `shutdown` once this agent
   * approved a shutdown, and `timeout` after `timeoutMs` when given.
   */
  idle(timeoutMs?: number): Promise<IdleResult> {
    if (this.#closed !== undefined) return Promise.reject(this.#closed);
    if (this.#shutdown !== undefined) return Promise.resolve({ kind: 'shutdown', request: this.#shutdown });
    const next = this.#queue.shift();
    if (next !== undefined) return Promise.resolve(this.#handOver(next));
    return new Promise<IdleResult>((resolve, reject) => {
      const waiter: IdleWaiter = { resolve, reject, timer: undefined };
      if (timeoutMs !== undefined) {
        waiter.timer = setTimeout(() => {
          const index = this.#idleWaiters.indexOf(waiter);
          if (index >= 0) this.#idleWaiters.splice(index, 1);
          resolve({ kind: 'timeout' });
        }, timeoutMs);
      }
      this.#idleWaiters.push(waiter);
    });
  }

  // --- requests this agent learnt of -------------------------------------------------------------

  /**
   * Waits until a request this client did not open itself settles — a `tool_approval` a rule
   * opened on this agent's behalf, named by a hook decision. Resolves with the final status as soon
   * as it is known: from a `request_update`, from the `*_response` in the inbox, or at once when
   * either already arrived. `cancel` stops waiting (the promise then never settles); the promise
   * rejects when the client closes.
   */
  watch(requestId: string): { settled: Promise<Exclude<RequestStatus, 'pending'>>; cancel(): void } {
    let watcher: Watcher | undefined;
    const settled = new Promise<Exclude<RequestStatus, 'pending'>>((resolve, reject) => {
      if (this.#closed !== undefined) {
        reject(this.#closed);
        return;
      }
      const known = this.#states.get(requestId);
      const status = known !== undefined && known.status !== 'pending' ? known.status : this.#settledByMessage.get(requestId);
      if (status !== undefined) {
        resolve(status);
        return;
      }
      watcher = { resolve, reject };
      let set = this.#watchers.get(requestId);
      if (set === undefined) {
        set = new Set();
        this.#watchers.set(requestId, set);
      }
      set.add(watcher);
    });
    return {
      settled,
      cancel: () => {
        if (watcher === undefined) return;
        const set = this.#watchers.get(requestId);
        set?.delete(watcher);
        if (set?.size === 0) this.#watchers.delete(requestId);
      },
    };
  }

  /** Final: rejects every waiter (opened requests, watchers, idle loops) with `error`. Idempotent. */
  close(error: AhpClientError): void {
    if (this.#closed !== undefined) return;
    this.#closed = error;
    for (const wake of [...this.#pauses]) wake();
    for (const opened of this.#opened.values()) for (const waiter of opened.waiters) waiter.reject(error);
    this.#opened.clear();
    for (const set of this.#watchers.values()) for (const watcher of set) watcher.reject(error);
    this.#watchers.clear();
    for (const waiter of this.#idleWaiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
  }

  // --- internals -----------------------------------------------------------------------------

  #stateFromAck(reply: AckFrame): ProtocolState | undefined {
    if (reply.result?.kind !== 'request') return undefined;
    this.onRequestState(reply.result.request);
    return reply.result.request;
  }

  /** Resolves whoever waits for a request that reached its final state. */
  #settle(state: ProtocolState): void {
    if (state.status !== 'pending') this.#notifyWatchers(state.request_id, state.status);
    const opened = this.#opened.get(state.request_id);
    if (opened === undefined) return;
    this.#opened.delete(state.request_id);
    const decision = toRequestDecision(state);
    for (const waiter of opened.waiters) waiter.resolve(decision);
  }

  #notifyWatchers(requestId: string, status: Exclude<RequestStatus, 'pending'>): void {
    const set = this.#watchers.get(requestId);
    this.#watchers.delete(requestId);
    for (const watcher of set ?? []) watcher.resolve(status);
  }

  async #onResponseMessage(message: InboxMessage, requestId: string): Promise<void> {
    const status = message.metadata?.['status'];
    if (typeof status === 'string' && SETTLED_STATUSES.has(status) && this.#states.get(requestId)?.status !== status) {
      // A response to a request this client did not open (a rule opened it for a hook): the
      // message says how it settled, which is all a hook waiting for it needs.
      const settled = status as Exclude<RequestStatus, 'pending'>;
      remember(this.#settledByMessage, requestId, settled, MAX_REMEMBERED_STATES);
      this.#notifyWatchers(requestId, settled);
    }
    const opened = this.#opened.get(requestId);
    const known = this.#states.get(requestId);
    if (opened !== undefined && (known === undefined || !isTerminalStatus(known.status))) {
      // The decision arrived without its state (the gateway could not read it): ask again with
      // the same request id, which answers with the current state.
      try {
        this.#stateFromAck(await this.#deps.send({ type: 'request', id: newId(), request: opened.open }));
      } catch (error) {
        this.#logger.warn({ requestId, error: String(error) }, 'could not read the state of a decided request');
        this.#seen.delete(message.id);
        return;
      }
    }
    await this.#ack([message.id]);
  }

  #onRequestMessage(message: InboxMessage, requestId: string): void {
    const state = this.#states.get(requestId);
    if (state === undefined) {
      // Without the request's state there is nothing to hand a handler; the message stays in
      // the inbox and comes again (with its state) on the next connection.
      this.#logger.warn({ requestId, messageId: message.id }, 'request message without its request state; leaving it for the next delivery');
      this.#seen.delete(message.id);
      return;
    }
    if (state.status !== 'pending') {
      void this.#ack([message.id]);
      return;
    }
    let ids = this.#incoming.get(requestId);
    if (ids === undefined) {
      ids = new Set();
      this.#incoming.set(requestId, ids);
    }
    ids.add(message.id);
    if (this.#dispatched.has(requestId)) return;
    this.#dispatched.add(requestId);
    const handler = this.#handlers.get(state.type);
    if (handler === undefined) {
      const held = this.#held.get(state.type) ?? [];
      held.push(state);
      this.#held.set(state.type, held);
      if (this.#deps.fallbacks?.[state.type] !== undefined) setTimeout(() => this.#fallBack(state.type), 0);
      return;
    }
    this.#runHandler(state, handler);
  }

  /** Hands the held requests of `type` to its fallback, unless a handler took them meanwhile. */
  #fallBack(type: RequestType): void {
    const fallback = this.#deps.fallbacks?.[type];
    if (fallback === undefined || this.#closed !== undefined || this.#handlers.has(type)) return;
    const held = this.#held.get(type) ?? [];
    this.#held.delete(type);
    for (const request of held) {
      const latest = this.#states.get(request.request_id) ?? request;
      if (latest.status === 'pending') this.#runHandler(latest, fallback);
      else void this.#ackIncoming(request.request_id);
    }
  }

  #runHandler(request: IncomingRequest, handler: RequestHandler): void {
    void (async () => {
      let answer: RequestAnswer;
      try {
        answer = await handler(request);
      } catch (error) {
        this.#logger.error({ requestId: request.request_id, error: String(error) }, 'request handler failed; the request stays unanswered');
        this.#release(request.request_id);
        return;
      }
      try {
        await this.answer(request.request_id, request.type, answer);
      } catch (error) {
        this.#logger.warn({ requestId: request.request_id, error: String(error) }, 'answering a request failed');
        if (asClientError(error).retryable) this.#release(request.request_id);
      }
    })();
  }

  /** Forgets a request's unanswered messages, so that their next delivery dispatches it again. */
  #release(requestId: string): void {
    for (const id of this.#incoming.get(requestId) ?? []) this.#seen.delete(id);
    this.#incoming.delete(requestId);
    this.#dispatched.delete(requestId);
  }

  /** Acknowledges a request's messages once it needs no answer from this agent any more. */
  async #ackIncoming(requestId: string): Promise<void> {
    const ids = this.#incoming.get(requestId);
    this.#incoming.delete(requestId);
    this.#dispatched.delete(requestId);
    if (ids !== undefined && ids.size > 0) await this.#ack([...ids]);
  }

  #toApplication(message: InboxMessage): void {
    const waiter = this.#idleWaiters.shift();
    if (waiter === undefined) this.#queue.push(message);
    else this.#resolveIdle(waiter, this.#handOver(message));
  }

  #handOver(message: InboxMessage): IdleResult {
    void this.#ack([message.id]);
    return { kind: 'message', message };
  }

  #resolveIdle(waiter: IdleWaiter, result: IdleResult): void {
    clearTimeout(waiter.timer);
    waiter.resolve(result);
  }

  /** Acknowledges messages; they count as used from now on. Failures are logged: the gateway delivers them again and they are acknowledged then. */
  async #ack(messageIds: string[]): Promise<void> {
    for (const id of messageIds) remember(this.#seen, id, 'done', MAX_REMEMBERED_MESSAGES);
    try {
      await this.#deps.send({ type: 'inbox_ack', id: newId(), message_ids: messageIds });
    } catch (error) {
      if (this.#closed === undefined) this.#logger.warn({ count: messageIds.length, error: String(error) }, 'acknowledging inbox messages failed');
    }
  }
}

function asClientError(error: unknown): AhpClientError {
  return error instanceof AhpClientError ? error : new AhpClientError('E_PROTOCOL', String(error), { cause: error });
}
