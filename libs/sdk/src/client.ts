/**
 * The public face of the SDK: {@link connect} returns an {@link AhpClient} that asks the control
 * plane what to do at hook points, answers signals, takes part in its team's protocols (plans,
 * shutdown, messages, the idle loop) and reports what happens to its connection. It wires the
 * {@link Connection} (sockets, resume, liveness) to the {@link RequestManager} (pending requests,
 * re-send, deadlines) and the {@link TeamChannel} (inbox, requests), and turns wire frames into
 * typed results.
 */
import {
  ConsumptionActionSchema,
  EventFrameSchema,
  HookFrameSchema,
  SendFrameSchema,
  CancelFrameSchema,
  SignalResponseFrameSchema,
  actionsForIntensity,
  awaitingApproval,
  isActionValidFor,
  issueDetails,
} from '@ahp/protocol';
import type {
  InterventionPayload,
  AgentEvent,
  WelcomeAgent,
  BlockingDecision,
  ConsumptionAction,
  DecidedBy,
  HookDecision,
  HookDecisionError,
  HookFrame,
  HookTrigger,
  InboxMessage,
  Intensity,
  JsonObject,
  Modification,
  Plan,
  ProtocolState,
  RequestTarget,
  RequestType,
  SendableMessageType,
  Signal,
  SignalResponseFrame,
  SchemaIssue,
} from '@ahp/protocol';
import type { BackoffOptions } from './backoff.js';
import { resolveBackoffOptions } from './backoff.js';
import { Connection } from './connection.js';
import type { ConnectionState, SessionInfo, StateChange, TokenSource } from './connection.js';
import { AhpClientError } from './errors.js';
import { Emitter } from './events.js';
import type { Logger } from './logger.js';
import { silentLogger } from './logger.js';
import { RequestManager } from './request-manager.js';
import { redactUrl, resolveTransport } from './transport.js';
import type { TransportFactory, WebSocketConstructor } from './transport.js';
import { SDK_NAME, SDK_VERSION } from './version.js';
import { OPERATORS_REQUEST_SUFFIX, allMustApprove, planApprovalTargets } from './plan-approval.js';
import type { PlanApprover } from './plan-approval.js';
import { ToolCallTracker, defaultShutdownAnswer } from './shutdown-policy.js';
import { TeamChannel } from './team.js';
import type { IdleResult, RequestAnswer, RequestDecision, RequestHandler } from './team.js';

// --- options -------------------------------------------------------------------------------

/** Options of {@link connect}. Only `url` and `token` are required. */
export interface ClientOptions {
  /**
   * The gateway endpoint(s), `ws(s)://host/v1/agents`. With several, each reconnect attempt goes
   * to the next one (round-robin), so one dead gateway costs one attempt, not an outage.
   */
  url: string | readonly string[];
  /**
   * The agent's bearer token, or a function returning the current one; a function is called
   * before every connection attempt, so a rotated token is picked up on the next reconnect.
   */
  token: TokenSource;
  /**
   * Name and version the client announces in `hello` (shown in the console).
   * @defaultValue `{ name: '@ahp/sdk', version: SDK_VERSION }`
   */
  client?: { name: string; version: string };
  /** Reconnect backoff; see {@link BackoffOptions} for each default. */
  reconnect?: BackoffOptions;
  /**
   * How long `hook()` waits for its decision, across reconnects, before rejecting with
   * `E_TIMEOUT`. Per call: `HookOptions.deadlineMs`.
   * @defaultValue 30_000
   */
  hookDeadlineMs?: number;
  /**
   * How long other requests (`respond()`) wait for their ack.
   * @defaultValue 30_000
   */
  requestDeadlineMs?: number;
  /**
   * How long `connect()` keeps trying (with backoff, over all URLs) before rejecting with
   * `E_TIMEOUT`. Refusals that retrying cannot fix (HTTP 401, a "stop" close code) reject at once.
   * @defaultValue 30_000
   */
  connectTimeoutMs?: number;
  /**
   * From opening a socket to the gateway's `welcome`; a slower attempt is dropped and retried.
   * @defaultValue 10_000
   */
  handshakeTimeoutMs?: number;
  /**
   * A connection silent for longer than this many heartbeats (`welcome.heartbeat_ms`) is
   * presumed dead and replaced. The gateway pings every heartbeat, so 2 tolerates one lost ping.
   * @defaultValue 2
   */
  livenessFactor?: number;
  /**
   * Largest frame accepted from the gateway, in UTF-8 bytes. A decision may carry many signals,
   * so this is well above the 1 MiB the gateway accepts from clients.
   * @defaultValue 16 MiB
   */
  maxFrameBytes?: number;
  /** @defaultValue a logger that drops everything */
  logger?: Logger;
  /**
   * A WHATWG-style `WebSocket` constructor to use (the token then travels as `?token=`).
   * @defaultValue `ws` under Node, the global `WebSocket` elsewhere
   */
  WebSocket?: WebSocketConstructor;
  /** A complete transport, for custom stacks. Wins over `WebSocket`. */
  transport?: TransportFactory;
  /** Aborting it before `connect()` settles closes the client and rejects with `E_CLOSED`. */
  signal?: AbortSignal;
  /**
   * How a shutdown request addressed to this agent is answered while no `onRequest('shutdown', …)`
   * handler is registered. `idle`: approve when no tool call runs (see {@link AhpClient.trackToolCall}),
   * else refuse with the reason. A function: that handler, from the first request on. `hold`: keep
   * the request until a handler is registered (it expires if none ever is).
   * @defaultValue `'idle'`
   */
  shutdownPolicy?: 'idle' | 'hold' | RequestHandler<'shutdown'>;
  /**
   * The agent id of this agent's team lead, where `submitPlan()` sends plans by default.
   * @defaultValue the lead the gateway's `welcome` names (`agent.lead`, from the tokens file) when
   * it is another agent; none otherwise: plans go to the operators
   */
  lead?: string;
}

/** Per-call options of {@link AhpClient.hook}. */
export interface HookOptions {
  /**
   * How long to wait for the decision, across reconnects.
   * @defaultValue `ClientOptions.hookDeadlineMs`
   */
  deadlineMs?: number;
  /**
   * The hook id (a UUID): the idempotency key. Pass the same id to ask again about the same
   * hook point, e.g. after a process restart; the gateway answers with the first decision.
   * @defaultValue a new random UUID
   */
  hookId?: string;
  /**
   * Sent as `hook.deadline_ms`: after this long the gateway stops waiting for oracles and lets
   * the hook's failure policy decide. Keep it below `deadlineMs` so that decision arrives.
   * @defaultValue the gateway's `limits.hook_deadline_ms`
   */
  evaluationDeadlineMs?: number;
  /**
   * The agent run this hook belongs to, when one connection serves several (a CLI bridge).
   * @defaultValue the connection's session
   */
  sessionId?: string;
  /**
   * When a rule requires a person's approval of a `pre-tool-use` call, the decision is a block
   * that awaits a `tool_approval` request. By default `hook()` then waits for the request to be
   * decided (at most until its deadline), sends the same call again with
   * `context.approval = { request_id }` and resolves with that decision: allowed, allowed with
   * the person's modifications, or blocked (their feedback, or the expiry). `false` resolves with
   * the waiting block at once (`block.awaitingApproval` names the request).
   * @defaultValue true
   */
  waitForApproval?: boolean;
  /** Called each time this hook starts waiting for an approval (also emitted as the client event `awaiting_approval`). */
  onAwaitingApproval?: (info: AwaitingApprovalInfo) => void;
}

/** A `pre-tool-use` hook waits for a person's decision on a tool approval request. */
export interface AwaitingApprovalInfo {
  /** The hook whose decision said to wait (the first one, or a re-sent one). */
  readonly hookId: string;
  readonly requestId: string;
  /** ISO 8601: the request expires undecided at this time. */
  readonly deadline: string;
  /** Why approval is needed (the rule's message), for a "waiting for approval" display. */
  readonly reason: string;
}

/** Per-call options of {@link AhpClient.respond}. */
export interface RespondOptions {
  /** @defaultValue `ClientOptions.requestDeadlineMs` */
  deadlineMs?: number;
  /**
   * When the agent consumed the signal.
   * @defaultValue now
   */
  consumedAt?: Date;
}

// --- results and events ----------------------------------------------------------------------

/** Why a hook was blocked, flattened from the first blocking signal (or from the failure policy). */
export interface HookBlock {
  /** For people and for the model: why the operation is denied. */
  readonly reason: string;
  /** Whether the agent can lift the block itself by following `resolutionPath`. */
  readonly resolvable: boolean;
  /** Steps that would lift the block; empty when there are none. */
  readonly resolutionPath: readonly string[];
  /** The oracle that blocked, or `failure_policy` when no oracle answered and the hook fails closed. */
  readonly source: string;
  /** The blocking signal (absent for a failure-policy block); answer it with `respond()`. */
  readonly signal?: Signal;
  /** Set when the block waits for a person's decision on a tool approval (see `HookOptions.waitForApproval`). */
  readonly awaitingApproval?: { readonly requestId: string; readonly deadline: string };
}

interface HookResultBase {
  readonly hookId: string;
  readonly trigger: HookTrigger;
  /** The strongest intensity among the signals; `null` when no oracle intervened. */
  readonly intensity: Intensity | null;
  /** Every signal of the decision; answer each with `respond()`. */
  readonly signals: readonly Signal[];
  /** Parameter changes to apply before running the operation (from control signals). */
  readonly modifications: readonly Modification[];
  /** Messages of the prompt signals, in order. */
  readonly warnings: readonly string[];
  readonly decidedBy: DecidedBy;
  /** Why the failure policy decided (`decidedBy: 'failure_policy'`). */
  readonly error?: HookDecisionError;
  /** The decision as it came off the wire. */
  readonly decision: HookDecision;
}

/**
 * The decision for one hook, typed for use: `allowed` discriminates, and a blocked result always
 * carries `block` (`if (!result.allowed) console.log(result.block.reason)`).
 */
export type HookResult =
  | (HookResultBase & { readonly allowed: true; readonly block?: undefined })
  | (HookResultBase & { readonly allowed: false; readonly block: HookBlock });

/** The payload of the `goaway` event. */
export interface GoawayInfo {
  readonly reason: string;
  /** What the gateway asked for; the client adds jitter and moves to the next URL. */
  readonly reconnectAfterMs: number;
  /** The URL being left. */
  readonly url: string | undefined;
}

/**
 * Events of {@link AhpClient.on}, for observation. Messages and requests are consumed through
 * `idle()`, `onRequest()` and the promises of `submitPlan()` / `requestShutdown()`, not here.
 */
export interface ClientEvents {
  /** Every state transition; `closed` carries the reason. */
  state: StateChange;
  /** Every `welcome`: the first one, and each reconnect (`resumed` says whether the session survived). */
  session: SessionInfo;
  /** The gateway announced it is closing this connection; the client moves on by itself. */
  goaway: GoawayInfo;
  /** A request this agent sent or must decide changed state (also delivered again after a reconnect). */
  request_update: ProtocolState;
  /** A `pre-tool-use` hook waits for a person's approval (see `HookOptions.waitForApproval`). */
  awaiting_approval: AwaitingApprovalInfo;
}

/** Per-call options of {@link AhpClient.submitPlan} and {@link AhpClient.requestShutdown}. */
export interface OpenRequestOptions {
  /**
   * The request id: pass the same one again (e.g. after a restart) to wait for the same request
   * instead of opening a second one.
   * @defaultValue `req_` + a random UUID
   */
  requestId?: string;
  /**
   * Sent as `deadline_ms`: after this long the request expires undecided and the promise
   * resolves with `status: 'expired'`.
   * @defaultValue none: the request waits until it is decided
   */
  deadlineMs?: number;
}

/** Options of {@link AhpClient.requestIntervention}: who should look (default: the operators) and the request id. */
export interface RequestInterventionOptions extends OpenRequestOptions {
  /**
   * Who decides: an agent id (the team's lead) or a {@link RequestTarget}.
   * @defaultValue `{ kind: 'operators' }` (any operator, in the console)
   */
  target?: string | RequestTarget;
}

/** Options of {@link AhpClient.submitPlan}. */
export interface SubmitPlanOptions extends RequestInterventionOptions {
  /**
   * Who approves (docs/spec/teams.md#plan-approval: the lead): `lead`, `operators`, or `both` — one request to each, both
   * must approve; the first refusal or expiry decides and the other request is cancelled. The
   * operators' request id is the lead's plus `.operators`. An explicit `target` wins.
   * @defaultValue `lead` when `ClientOptions.lead` names another agent, else `operators`
   */
  approver?: PlanApprover;
}

/** Options of {@link AhpClient.requestShutdown}. */
export interface RequestShutdownOptions extends OpenRequestOptions {
  /** Why the teammate should stop; shown to it. */
  reason?: string;
}

/** Options of {@link AhpClient.send}. */
export interface SendOptions {
  /** @defaultValue `'message'` */
  type?: SendableMessageType;
  metadata?: JsonObject;
}

/** Options of {@link AhpClient.idle}. */
export interface IdleOptions {
  /**
   * Resolve with `{ kind: 'timeout' }` after this long without a message.
   * @defaultValue wait until a message arrives, a shutdown is approved, or the client closes
   */
  timeoutMs?: number;
}

/** Handles a signal pushed by the gateway (outside a hook decision). */
export type SignalHandler = (signal: Signal) => void | Promise<void>;

// --- helpers -----------------------------------------------------------------------------------

const DEFAULTS = {
  hookDeadlineMs: 30_000,
  requestDeadlineMs: 30_000,
  connectTimeoutMs: 30_000,
  handshakeTimeoutMs: 10_000,
  livenessFactor: 2,
  maxFrameBytes: 16 * 1024 * 1024,
} as const;

/** Signals remembered for client-side action checks in `respond(signalId, …)`. */
const MAX_KNOWN_SIGNALS = 4_096;

/**
 * Waiting for an approval lasts until the request's deadline plus this much: the gateways expire
 * requests on a periodic sweep, and the worker expires a due one when the call is re-sent.
 */
const APPROVAL_GRACE_MS = 2_000;
/** Re-sends of one tool call while it waits for approvals (a new request each time another hook used the approval first, or a still-pending one after a reconnect). */
const MAX_APPROVAL_ROUNDS = 20;
/** Longest single timer (setTimeout's limit); a longer wait is taken in steps. */
const MAX_TIMER_MS = 2_147_483_647;

function checkDuration(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive integer of milliseconds, got ${String(value)}`);
  return value;
}

/** A fresh request id: `req_` and a random UUID, unguessable so nobody can claim it first. */
function newRequestId(): string {
  return `req_${globalThis.crypto.randomUUID()}`;
}

function checkUrls(url: string | readonly string[]): readonly string[] {
  const urls = typeof url === 'string' ? [url] : [...url];
  if (urls.length === 0) throw new TypeError('url: at least one gateway URL is required');
  for (const candidate of urls) {
    let parsed: URL;
    try {
      parsed = new URL(candidate);
    } catch {
      throw new TypeError(`url: not a valid URL: ${redactUrl(candidate)}`);
    }
    if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
      throw new TypeError(`url: must use ws: or wss:, got ${parsed.protocol} in ${redactUrl(candidate)}`);
    }
  }
  return Object.freeze(urls);
}

function blockOf(decision: HookDecision): HookBlock {
  const waiting = awaitingApproval(decision);
  if (waiting !== undefined && waiting.signal.payload.level === 'blocking') return blockFromPayload(waiting.signal.payload, waiting.signal);
  for (const signal of decision.signals) {
    const payload = signal.payload;
    if (payload.level === 'blocking') return blockFromPayload(payload, signal);
  }
  // Blocked without a blocking signal: the failure policy failed closed.
  const error = decision.error;
  return {
    reason: error === undefined ? 'blocked' : error.message === '' ? error.code : error.message,
    resolvable: false,
    resolutionPath: [],
    source: 'failure_policy',
  };
}

function blockFromPayload(payload: BlockingDecision, signal: Signal): HookBlock {
  const resolution = payload.resolution;
  return {
    reason: payload.reason,
    resolvable: payload.resolvable,
    resolutionPath: payload.resolution_path,
    source: signal.header.source,
    signal,
    ...(resolution?.kind === 'await_approval' ? { awaitingApproval: { requestId: resolution.request_id, deadline: resolution.deadline } } : {}),
  };
}

/** Turns a wire decision into a {@link HookResult}. */
export function toHookResult(decision: HookDecision): HookResult {
  const base: HookResultBase = {
    hookId: decision.hook_id,
    trigger: decision.trigger,
    intensity: decision.intensity,
    signals: decision.signals,
    modifications: decision.modifications,
    warnings: decision.warnings,
    decidedBy: decision.decided_by,
    ...(decision.error === undefined ? {} : { error: decision.error }),
    decision,
  };
  return decision.allowed ? { ...base, allowed: true } : { ...base, allowed: false, block: blockOf(decision) };
}

function invalidFrame(message: string, issues: readonly SchemaIssue[]): AhpClientError {
  return new AhpClientError('E_INVALID_FRAME', message, { details: issueDetails(issues) });
}

// --- the client ------------------------------------------------------------------------------

/**
 * A connected agent. Obtain one with {@link connect}. Every method returns a promise that
 * rejects with an {@link AhpClientError}; branch on its `code`.
 *
 * Requests survive reconnects: a hook pending when a gateway dies is re-sent, with the same id,
 * to the next gateway after the session resumes, and resolves once.
 */
export class AhpClient {
  readonly #connection: Connection;
  readonly #requests: RequestManager;
  readonly #events: Emitter<ClientEvents>;
  readonly #signals: Emitter<{ signal: Signal }>;
  readonly #known = new Map<string, Intensity>();
  readonly #logger: Logger;
  readonly #hookDeadlineMs: number;
  readonly #requestDeadlineMs: number;
  readonly #team: TeamChannel;
  readonly #tools = new ToolCallTracker();
  readonly #lead: string | undefined;

  private constructor(options: ClientOptions, urls: readonly string[], transport: TransportFactory) {
    this.#logger = options.logger ?? silentLogger;
    this.#hookDeadlineMs = checkDuration('hookDeadlineMs', options.hookDeadlineMs, DEFAULTS.hookDeadlineMs);
    this.#requestDeadlineMs = checkDuration('requestDeadlineMs', options.requestDeadlineMs, DEFAULTS.requestDeadlineMs);
    if (options.lead !== undefined && (typeof options.lead !== 'string' || options.lead === '')) throw new TypeError('lead: the lead agent id must be a non-empty string');
    this.#lead = options.lead;
    this.#requests = new RequestManager({ logger: this.#logger });
    this.#events = new Emitter<ClientEvents>({ logger: this.#logger });
    this.#team = new TeamChannel({
      send: (frame) => this.#requests.send(frame, { deadlineMs: this.#requestDeadlineMs }),
      selfId: () => this.#connection.session?.agent.id,
      shutdownApproved: (request) => {
        this.#logger.info('shutdown approved; disconnecting', { requestId: request.request_id });
        void this.close();
      },
      fallbacks: shutdownFallback(options.shutdownPolicy, this.#tools),
      logger: this.#logger,
    });
    this.#signals = new Emitter<{ signal: Signal }>({ logger: this.#logger, hold: ['signal'] });
    const livenessFactor = options.livenessFactor ?? DEFAULTS.livenessFactor;
    if (!Number.isFinite(livenessFactor) || livenessFactor <= 0) throw new TypeError(`livenessFactor must be > 0, got ${livenessFactor}`);
    this.#connection = new Connection(
      {
        urls,
        token: options.token,
        client: options.client ?? { name: SDK_NAME, version: SDK_VERSION },
        transport,
        backoff: resolveBackoffOptions(options.reconnect),
        handshakeTimeoutMs: checkDuration('handshakeTimeoutMs', options.handshakeTimeoutMs, DEFAULTS.handshakeTimeoutMs),
        livenessFactor,
        maxFrameBytes: checkDuration('maxFrameBytes', options.maxFrameBytes, DEFAULTS.maxFrameBytes),
        logger: this.#logger,
      },
      {
        ready: (session, send) => {
          this.#requests.attach({ send, maxInFlight: session.limits.max_in_flight, maxFrameBytes: session.limits.max_frame_bytes });
          this.#events.emit('session', session);
        },
        unready: () => this.#requests.detach(),
        reply: (frame) => {
          if (this.#requests.settle(frame) === 'requeued' && frame.type === 'error') {
            this.#connection.drain(frame.error.retry_after_ms ?? 0, 'gateway shutting down');
          }
        },
        unreadableReply: (id, error) => {
          this.#requests.fail(id, error);
        },
        push: (frame) => {
          switch (frame.type) {
            case 'signal':
              this.#remember(frame.signal);
              this.#signals.emit('signal', frame.signal);
              return;
            case 'request_update':
              this.#team.onRequestState(frame.request);
              this.#events.emit('request_update', frame.request);
              return;
            case 'inbox':
              this.#team.onInboxMessage(frame.message);
              return;
          }
        },
        goaway: (frame) => {
          this.#events.emit('goaway', { reason: frame.reason, reconnectAfterMs: frame.reconnect_after_ms, url: this.#connection.session?.url });
        },
        state: (change) => {
          if (change.state === 'closed') {
            const error = change.error ?? new AhpClientError('E_CLOSED', 'the client was closed');
            this.#requests.close(error);
            this.#team.close(error);
          }
          this.#events.emit('state', change);
        },
      },
    );
  }

  /** See {@link connect}. */
  static async connect(options: ClientOptions): Promise<AhpClient> {
    if (typeof options !== 'object' || options === null) throw new TypeError('connect() needs an options object');
    const urls = checkUrls(options.url);
    const token = options.token;
    if (!(typeof token === 'function' || (typeof token === 'string' && token !== ''))) {
      throw new TypeError('token: a non-empty string or a function returning one is required');
    }
    const connectTimeoutMs = checkDuration('connectTimeoutMs', options.connectTimeoutMs, DEFAULTS.connectTimeoutMs);
    const signal = options.signal;
    if (signal?.aborted === true) throw new AhpClientError('E_CLOSED', 'connect() was aborted', { cause: signal.reason });

    let transport: TransportFactory;
    try {
      transport = await resolveTransport({
        ...(options.transport === undefined ? {} : { transport: options.transport }),
        ...(options.WebSocket === undefined ? {} : { WebSocket: options.WebSocket }),
      });
    } catch (error) {
      throw new AhpClientError('E_DISCONNECTED', error instanceof Error ? error.message : 'no WebSocket implementation', { cause: error });
    }
    const client = new AhpClient(options, urls, transport);
    await client.#firstWelcome(connectTimeoutMs, signal);
    return client;
  }

  /** Where the connection is: `connecting`, `open`, `closing` or `closed`. */
  get state(): ConnectionState {
    return this.#connection.state;
  }

  /** The current (or last) session id; resumed automatically after a reconnect. */
  get sessionId(): string | undefined {
    return this.#connection.session?.sessionId;
  }

  /** Who the gateway says this client is (from the token). */
  get agent(): WelcomeAgent | undefined {
    return this.#connection.session?.agent;
  }

  /** Everything the latest `welcome` said. */
  get session(): SessionInfo | undefined {
    return this.#connection.session;
  }

  /**
   * Asks what to do at a hook point and resolves with the decision. Validated client-side first
   * (`E_INVALID_FRAME` without a round trip). Survives reconnects: the hook keeps its id, and the
   * gateway answers a re-sent id with its first decision, so an operation is never evaluated
   * twice. Rejects with `E_TIMEOUT` after `deadlineMs`, with the gateway's error code, or with
   * `E_CLOSED` / the close error when the client ends first. While a plan this client submitted
   * awaits approval, a `pre-tool-use` hook rejects at once with `E_PLAN_PENDING` (the gateway
   * enforces the same for plans submitted by an earlier run).
   */
  async hook(trigger: HookTrigger, context: JsonObject = {}, options: HookOptions = {}): Promise<HookResult> {
    const deadlineMs = checkDuration('deadlineMs', options.deadlineMs, this.#hookDeadlineMs);
    const planPending = trigger === 'pre-tool-use' ? this.#team.pendingPlanApproval : undefined;
    if (planPending !== undefined) {
      // The gateway refuses it too (E_PLAN_PENDING); failing here saves the round trip.
      throw new AhpClientError('E_PLAN_PENDING', `tool calls wait until plan approval ${planPending} is decided`, {
        details: { request_id: planPending },
      });
    }
    const frame: HookFrame = {
      type: 'hook',
      id: options.hookId ?? globalThis.crypto.randomUUID(),
      trigger,
      context,
      ...(options.sessionId === undefined ? {} : { session_id: options.sessionId }),
      ...(options.evaluationDeadlineMs === undefined ? {} : { deadline_ms: options.evaluationDeadlineMs }),
    };
    const checked = HookFrameSchema.safeParse(frame);
    if (!checked.success) throw invalidFrame(`invalid hook: ${checked.error.issues[0]?.message ?? 'schema mismatch'}`, checked.error.issues);
    const reply = await this.#requests.send(frame, { deadlineMs });
    for (const signal of reply.decision.signals) this.#remember(signal);
    if (trigger !== 'pre-tool-use' || options.waitForApproval === false) return toHookResult(reply.decision);
    return toHookResult(await this.#awaitApprovals(checked.data, reply.decision, deadlineMs, options.onAwaitingApproval));
  }

  /**
   * The second round of a tool call that waits for a person: wait for the request to settle (its
   * response, a state push, or simply a reconnect, after which the server is asked again), then
   * send the same call again as a new hook presenting the request, and repeat while the answer is
   * still a wait (the request is still pending, or another hook used the approval first).
   */
  async #awaitApprovals(frame: HookFrame, first: HookDecision, deadlineMs: number, callback: HookOptions['onAwaitingApproval']): Promise<HookDecision> {
    let decision = first;
    for (let round = 0; round < MAX_APPROVAL_ROUNDS; round += 1) {
      const waiting = awaitingApproval(decision);
      if (waiting === undefined) return decision;
      const info: AwaitingApprovalInfo = {
        hookId: decision.hook_id,
        requestId: waiting.request_id,
        deadline: waiting.deadline,
        reason: waiting.signal.payload.level === 'blocking' ? waiting.signal.payload.reason : '',
      };
      this.#logger.info('tool call waits for approval', { hookId: info.hookId, requestId: info.requestId, deadline: info.deadline });
      try {
        callback?.(info);
      } catch (error) {
        this.#logger.warn('onAwaitingApproval threw', { requestId: info.requestId, error: String(error) });
      }
      this.#events.emit('awaiting_approval', info);
      await this.#untilSettled(waiting.request_id, waiting.deadline);
      const again: HookFrame = { ...frame, id: globalThis.crypto.randomUUID(), context: { ...frame.context, approval: { request_id: waiting.request_id } } };
      const reply = await this.#requests.send(again, { deadlineMs });
      for (const signal of reply.decision.signals) this.#remember(signal);
      decision = reply.decision;
    }
    return decision;
  }

  /**
   * Waits until a tool approval this agent's call is waiting on (`block.awaitingApproval` of a
   * `hook()` with `waitForApproval: false`) may have been decided: resolves when the request
   * settled, when `deadline` (plus a grace) passed, or after a reconnect (a decision may have been
   * missed). Then present the request again (`context.approval`); the server's answer is the
   * truth, and still-pending is simply a wait again. For frameworks that pause a run on an
   * approval and resume it later. Rejects when the client closes.
   */
  untilApprovalDecided(requestId: string, deadline: string): Promise<void> {
    return this.#untilSettled(requestId, deadline);
  }

  /**
   * Resolves when request `requestId` settled, when its deadline (plus a grace) passed, or when
   * the client reconnected (a response may have been missed: the re-sent call asks the server).
   * Rejects when the client closes.
   */
  #untilSettled(requestId: string, deadline: string): Promise<void> {
    const watch = this.#team.watch(requestId);
    return new Promise<void>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (): void => {
        clearTimeout(timer);
        watch.cancel();
        offSession();
        offState();
        resolve();
      };
      const arm = (): void => {
        const left = Date.parse(deadline) + APPROVAL_GRACE_MS - Date.now();
        timer = setTimeout(left > MAX_TIMER_MS ? arm : done, Math.min(Math.max(left, 0), MAX_TIMER_MS));
      };
      const offSession = this.#events.on('session', () => done());
      const offState = this.#events.on('state', (change) => {
        if (change.state !== 'closed') return;
        clearTimeout(timer);
        watch.cancel();
        offSession();
        offState();
        reject(change.error ?? new AhpClientError('E_CLOSED', 'the client was closed'));
      });
      watch.settled.then(done, (error: unknown) => {
        clearTimeout(timer);
        offSession();
        offState();
        reject(error);
      });
      arm();
    });
  }

  /**
   * Reports how the agent consumed a signal; resolves when the gateway acknowledged it. When the
   * signal is known (passed as an object, or seen in a decision or push of this client), an
   * action that does not fit its intensity — e.g. `dismiss` on a block — rejects with
   * `E_INVALID_ACTION` and nothing is sent; for an unknown signal id the gateway decides.
   * Re-sending the same answer is safe: the gateway acknowledges it again.
   */
  async respond(
    signal: Signal | string,
    action: ConsumptionAction,
    details?: JsonObject,
    options: RespondOptions = {},
  ): Promise<void> {
    const deadlineMs = checkDuration('deadlineMs', options.deadlineMs, this.#requestDeadlineMs);
    const signalId = typeof signal === 'string' ? signal : signal.header.id;
    const intensity = typeof signal === 'string' ? this.#known.get(signal) : signal.header.intensity;
    if (!ConsumptionActionSchema.safeParse(action).success) {
      throw new AhpClientError('E_INVALID_ACTION', `"${String(action)}" is not a consumption action`, {
        details: { signal_id: signalId, action: String(action) },
      });
    }
    if (intensity !== undefined && !isActionValidFor(intensity, action)) {
      const allowed = actionsForIntensity(intensity);
      throw new AhpClientError('E_INVALID_ACTION', `"${action}" cannot answer a ${intensity} signal; use one of ${allowed.join(', ')}`, {
        details: { signal_id: signalId, intensity, action, allowed: [...allowed] },
      });
    }
    const frame: SignalResponseFrame = {
      type: 'signal_response',
      id: globalThis.crypto.randomUUID(),
      response: {
        signal_id: signalId,
        consumed_at: (options.consumedAt ?? new Date()).toISOString(),
        action,
        ...(details === undefined ? {} : { details }),
      },
    };
    const checked = SignalResponseFrameSchema.safeParse(frame);
    if (!checked.success) {
      throw invalidFrame(`invalid signal response: ${checked.error.issues[0]?.message ?? 'schema mismatch'}`, checked.error.issues);
    }
    await this.#requests.send(frame, { deadlineMs });
  }

  // --- teams: requests, messages, the idle loop ---------------------------------------------

  /**
   * Submits a plan (docs/spec/plans.md#plans) for approval and resolves with the decision: `approved`, or
   * `rejected` with the reviewer's feedback, or `expired`. It goes to the team's lead when the
   * client knows one (`ClientOptions.lead`), else to the operators; `approver` picks `lead`,
   * `operators` or `both`. Until it is decided, `pre-tool-use` hooks of this client reject with
   * `E_PLAN_PENDING`; after a rejection or expiry the gateway refuses them with `E_PLAN_REQUIRED`
   * until a plan of this agent is approved (docs/spec/teams.md#plan-gate). The decision also arrives after a reconnect or a gateway restart; rejects
   * only when the request cannot be opened (e.g. `E_FORBIDDEN` for a target outside the team,
   * `E_INVALID_FRAME` for a lead route without a lead) or the client closes.
   */
  async submitPlan(plan: Plan, options: SubmitPlanOptions = {}): Promise<RequestDecision> {
    const targets = planApprovalTargets(options, { lead: this.lead, self: this.agent });
    const requestId = options.requestId ?? newRequestId();
    const request = (id: string, target: RequestTarget) => ({
      request_id: id,
      type: 'plan_approval' as const,
      target,
      payload: { plan },
      ...(options.deadlineMs === undefined ? {} : { deadline_ms: options.deadlineMs }),
    });
    const [first, second] = targets;
    if (first === undefined || second === undefined) return this.#team.openAndWait(request(requestId, first ?? { kind: 'operators' }));
    // Both: one after the other, so a second request that cannot be opened withdraws a first that surely exists.
    const toLead = await this.#team.open(request(requestId, first));
    const operatorsId = `${requestId}${OPERATORS_REQUEST_SUFFIX}`;
    let toOperators: { readonly decided: Promise<RequestDecision> };
    try {
      toOperators = await this.#team.open(request(operatorsId, second));
    } catch (error) {
      await this.cancelRequest(requestId).catch((cancelError: unknown) => this.#logger.warn('could not withdraw the lead plan approval', { requestId, error: String(cancelError) }));
      throw error;
    }
    return allMustApprove(
      [
        { requestId, decision: toLead.decided },
        { requestId: operatorsId, decision: toOperators.decided },
      ],
      (id) => this.cancelRequest(id),
      this.#logger,
    );
  }

  /**
   * The team lead's agent id, where plans go by default: `ClientOptions.lead` when set, else the
   * lead the latest `welcome` names (`agent.lead`), unless that is this agent itself.
   */
  get lead(): string | undefined {
    if (this.#lead !== undefined) return this.#lead;
    const agent = this.agent;
    return agent?.lead !== undefined && agent.lead !== agent.id ? agent.lead : undefined;
  }

  /**
   * Asks a person to look at this agent after a circuit breaker stopped it (docs/spec/circuit-breakers.md#intervention-requests: past
   * `MAX_ITER` iterations a human must intervene) and resolves with the decision: `approved` means
   * continue, with `feedback` as guidance; `rejected` means stay stopped; `expired` nobody came.
   * Addressed to the operators (the console's approval queue) unless `target` names the team's lead.
   */
  requestIntervention(payload: InterventionPayload, options: RequestInterventionOptions = {}): Promise<RequestDecision> {
    const target = options.target ?? { kind: 'operators' };
    return this.#team.openAndWait({
      request_id: options.requestId ?? newRequestId(),
      type: 'intervention',
      target: typeof target === 'string' ? { kind: 'agent', agent: target } : target,
      payload,
      ...(options.deadlineMs === undefined ? {} : { deadline_ms: options.deadlineMs }),
    });
  }

  /**
   * Lead only: asks teammate `agent` to shut down and resolves with its answer (`approved`: it
   * stops and disconnects; `rejected` with its reason), or `expired`.
   */
  requestShutdown(agent: string, options: RequestShutdownOptions = {}): Promise<RequestDecision> {
    return this.#team.openAndWait({
      request_id: options.requestId ?? newRequestId(),
      type: 'shutdown',
      target: { kind: 'agent', agent },
      payload: options.reason === undefined ? {} : { reason: options.reason },
      ...(options.deadlineMs === undefined ? {} : { deadline_ms: options.deadlineMs }),
    });
  }

  /**
   * Handles requests of `type` addressed to this agent: a teammate's `shutdown` handler decides
   * whether to stop, a lead's `plan_approval` handler reviews plans. Requests that arrive before
   * a handler is registered wait for it — except shutdown requests, which the default policy
   * answers (`ClientOptions.shutdownPolicy`) unless a handler is registered by the time they are
   * dispatched. The handler's answer is sent; approving a shutdown then ends the idle loop and
   * disconnects. Returns the unsubscribe function.
   */
  onRequest<T extends RequestType>(type: T, handler: RequestHandler<T>): () => void {
    return this.#team.onRequest(type, handler);
  }

  /**
   * Runs `run` as the tool call `name` and resolves with its result: while it runs, the default
   * shutdown policy refuses a shutdown with the reason. Wrap the whole call, hooks included
   * (`runAgentLoop` does), so that an approved shutdown cannot let a tool start: while this
   * agent's approval of a shutdown is in flight the call waits, and once it is approved the call
   * rejects with `E_CLOSED` without running.
   */
  trackToolCall<T>(name: string, run: () => Promise<T>): Promise<T> {
    // An approval of this agent's shutdown may be on its way: a tool must not start under it.
    const approving = this.#team.approvingShutdown;
    return approving === undefined ? this.#startToolCall(name, run) : approving.then(() => this.#startToolCall(name, run));
  }

  #startToolCall<T>(name: string, run: () => Promise<T>): Promise<T> {
    const approved = this.#team.shutdownApproved;
    if (approved !== undefined) return Promise.reject(new AhpClientError('E_CLOSED', `this agent approved shutdown ${approved.request_id}; ${name} does not start`));
    return this.#tools.track(name, run);
  }

  /** The shutdown request this agent approved (the client is closing or closed), or undefined. */
  get shutdownApproved(): ProtocolState | undefined {
    return this.#team.shutdownApproved;
  }

  /** Names of the tool calls running now (see {@link trackToolCall}). */
  get runningToolCalls(): readonly string[] {
    return this.#tools.running;
  }

  /**
   * Answers a request addressed to this agent (one it has received) and resolves with the
   * request's state afterwards. Rejects with `E_NOT_FOUND` for a request this client has not
   * received, `E_CONFLICT` when it was decided differently already, `E_FORBIDDEN` when it is not
   * addressed to this agent.
   */
  answerRequest(requestId: string, answer: RequestAnswer): Promise<ProtocolState> {
    const state = this.#team.stateOf(requestId);
    if (state === undefined) {
      return Promise.reject(new AhpClientError('E_NOT_FOUND', `request ${requestId} has not reached this client`, { details: { request_id: requestId } }));
    }
    return this.#team.answer(requestId, state.type, answer);
  }

  /**
   * Withdraws a pending request this agent opened (a plan it no longer wants approved, an
   * intervention it no longer needs) and resolves with its state, `cancelled`; the promise of
   * `submitPlan()` / `requestIntervention()` for it resolves `cancelled` too. Rejects with
   * `E_FORBIDDEN` for someone else's request and `E_CONFLICT` when it was settled first.
   */
  async cancelRequest(requestId: string): Promise<ProtocolState> {
    const checked = CancelFrameSchema.safeParse({ type: 'cancel', id: globalThis.crypto.randomUUID(), request_id: requestId });
    if (!checked.success) throw invalidFrame(`invalid cancel: ${checked.error.issues[0]?.message ?? 'schema mismatch'}`, checked.error.issues);
    const reply = await this.#requests.send(checked.data, { deadlineMs: this.#requestDeadlineMs });
    if (reply.result?.kind !== 'request') throw new AhpClientError('E_PROTOCOL', 'the gateway acknowledged a cancel without the request state');
    // The request_update push follows; settling the local waiters now saves the wait for it.
    this.#team.onRequestState(reply.result.request);
    return reply.result.request;
  }

  /** Lead helper: approves or rejects a teammate's plan, with feedback (docs/spec/teams.md#plan-approval). */
  reviewPlan(requestId: string, approve: boolean, feedback?: string): Promise<ProtocolState> {
    return this.#team.answer(requestId, 'plan_approval', { approve, ...(feedback === undefined ? {} : { feedback }) });
  }

  /**
   * Puts a message in a teammate's durable inbox and resolves with the message as stored. The
   * teammate gets it now if connected, else when it connects. Only agents of this agent's team
   * can be addressed (`E_FORBIDDEN`).
   */
  async send(to: string, content: string, options: SendOptions = {}): Promise<InboxMessage> {
    const frame = {
      type: 'send' as const,
      id: globalThis.crypto.randomUUID(),
      message: { to, content, type: options.type ?? 'message', ...(options.metadata === undefined ? {} : { metadata: options.metadata }) },
    };
    const checked = SendFrameSchema.safeParse(frame);
    if (!checked.success) throw invalidFrame(`invalid message: ${checked.error.issues[0]?.message ?? 'schema mismatch'}`, checked.error.issues);
    const reply = await this.#requests.send(checked.data, { deadlineMs: this.#requestDeadlineMs });
    if (reply.result?.kind !== 'message') throw new AhpClientError('E_PROTOCOL', 'the gateway acknowledged a message without returning it');
    return reply.result.message;
  }

  /**
   * The idle loop: waits, by push, for the next message for the application (`message` or
   * `idle_notification`; protocol messages are routed to their requests and handlers instead)
   * and resolves with it, acknowledged — a message is never returned twice, also not across
   * reconnects. Resolves `{ kind: 'shutdown' }` once this agent approved a shutdown (the client
   * then disconnects), `{ kind: 'timeout' }` after `timeoutMs`; rejects when the client closes.
   */
  idle(options: IdleOptions = {}): Promise<IdleResult> {
    const timeoutMs = options.timeoutMs === undefined ? undefined : checkDuration('timeoutMs', options.timeoutMs, 0);
    return this.#team.idle(timeoutMs);
  }

  /**
   * Reports an observability event (a control signal acted on, plan progress, a verification
   * result) to the agent's timeline; resolves once the gateway recorded it.
   */
  async report(event: AgentEvent): Promise<void> {
    const frame = { type: 'event' as const, id: globalThis.crypto.randomUUID(), event };
    const checked = EventFrameSchema.safeParse(frame);
    if (!checked.success) throw invalidFrame(`invalid event: ${checked.error.issues[0]?.message ?? 'schema mismatch'}`, checked.error.issues);
    await this.#requests.send(checked.data, { deadlineMs: this.#requestDeadlineMs });
  }

  /**
   * Subscribes to signals the gateway pushes outside hook decisions. Signals that arrive before
   * the first handler subscribes are held and delivered to it. A throwing or rejecting handler is
   * logged. Returns the unsubscribe function.
   */
  onSignal(handler: SignalHandler): () => void {
    return this.#signals.on('signal', handler);
  }

  /** Subscribes to a client event (see {@link ClientEvents}); returns the unsubscribe function. */
  on<K extends keyof ClientEvents>(event: K, handler: (payload: ClientEvents[K]) => void | Promise<void>): () => void {
    return this.#events.on(event, handler);
  }

  /**
   * Closes for good: pending requests reject with `E_CLOSED` at once, the socket closes with
   * 1000 (which tells the gateway the agent left on purpose), and nothing reconnects. Resolves
   * when the socket is closed. Idempotent.
   */
  async close(): Promise<void> {
    const error = new AhpClientError('E_CLOSED', 'the client was closed');
    this.#requests.close(error);
    this.#team.close(error);
    await this.#connection.close(error);
    this.#events.clear();
    this.#signals.clear();
  }

  #remember(signal: Signal): void {
    const id = signal.header.id;
    this.#known.delete(id);
    this.#known.set(id, signal.header.intensity);
    if (this.#known.size > MAX_KNOWN_SIGNALS) {
      const oldest = this.#known.keys().next();
      if (oldest.done !== true) this.#known.delete(oldest.value);
    }
  }

  /** Starts the connection and settles with its first `welcome`, its final error, the timeout or the abort. */
  #firstWelcome(timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const cleanups: (() => void)[] = [];
      let settled = false;
      const settle = (error?: AhpClientError): void => {
        if (settled) return;
        settled = true;
        for (const cleanup of cleanups) cleanup();
        if (error === undefined) resolve();
        else reject(error);
      };
      cleanups.push(
        this.on('state', (change) => {
          if (change.state === 'open') settle();
          else if (change.state === 'closed') settle(change.error ?? new AhpClientError('E_CLOSED', 'the client was closed'));
        }),
      );
      const timer = setTimeout(() => {
        const last = this.#connection.lastClose;
        const error = new AhpClientError('E_TIMEOUT', `no gateway welcomed this client within ${timeoutMs} ms`, {
          details: {
            phase: 'connect',
            timeout_ms: timeoutMs,
            ...(last === undefined ? {} : { last_close_code: last.code, ...(last.httpStatus === undefined ? {} : { last_http_status: last.httpStatus }) }),
          },
          ...(last?.error === undefined ? {} : { cause: last.error }),
        });
        settle(error);
        void this.#shutdown(error);
      }, timeoutMs);
      cleanups.push(() => clearTimeout(timer));
      if (signal !== undefined) {
        const onAbort = (): void => {
          const error = new AhpClientError('E_CLOSED', 'connect() was aborted', { cause: signal.reason });
          settle(error);
          void this.#shutdown(error);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        cleanups.push(() => signal.removeEventListener('abort', onAbort));
      }
      this.#connection.start();
    });
  }

  async #shutdown(error: AhpClientError): Promise<void> {
    this.#requests.close(error);
    this.#team.close(error);
    await this.#connection.close(error);
  }
}

/** The fallback of shutdown requests no handler takes, per `ClientOptions.shutdownPolicy`. */
function shutdownFallback(policy: ClientOptions['shutdownPolicy'], tools: ToolCallTracker): Partial<Record<RequestType, RequestHandler>> {
  if (policy === 'hold') return {};
  const handler: RequestHandler<'shutdown'> = typeof policy === 'function' ? policy : (request) => defaultShutdownAnswer(request, tools.running);
  // Dispatched by type: this handler only ever sees shutdown requests.
  return { shutdown: handler as unknown as RequestHandler };
}

/**
 * Connects an agent to the control plane and resolves once the gateway has welcomed it (the
 * session id, agent identity and limits are known by then). Keeps retrying with backoff over
 * all URLs until `connectTimeoutMs`; rejects at once with `E_UNAUTHORIZED` (HTTP 401 or close
 * 4401), `E_FORBIDDEN`, `E_UNSUPPORTED_VERSION` or `E_DISCONNECTED` when retrying cannot help.
 * Invalid options throw a `TypeError`.
 *
 * @example
 * ```ts
 * const client = await connect({ url: 'wss://ahp.example.com/v1/agents', token: process.env.AHP_TOKEN! });
 * const result = await client.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'rm -rf build' } } });
 * if (!result.allowed) console.log(result.block.reason);
 * ```
 */
export function connect(options: ClientOptions): Promise<AhpClient> {
  return AhpClient.connect(options);
}
