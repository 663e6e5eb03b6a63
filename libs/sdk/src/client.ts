/**
 * The public face of the SDK: {@link connect} returns an {@link AhpClient} that asks the control
 * plane what to do at hook points, answers signals, takes part in its team's protocols (plans,
 * shutdown, messages, the idle loop) and reports what happens to its connection. The class is a
 * thin composition; each part does one job:
 * - {@link ClientLink}: the connection (sockets, resume, liveness), pending requests, events;
 * - {@link HookCalls}: hooks, and the wait of a tool call for a person's approval;
 * - {@link SignalAnswers}: pushed signals and the answers to signals;
 * - {@link TeamRequests}: plans, interventions and shutdowns, opened, answered or withdrawn;
 * - {@link AgentMessages}: messages to teammates, timeline events, the idle loop;
 * - {@link TeamChannel}: the request states, the inbox and the handlers of incoming requests.
 */
import type {
  AgentEvent,
  ConsumptionAction,
  HookTrigger,
  InboxMessage,
  InterventionPayload,
  JsonObject,
  Plan,
  ProtocolState,
  RequestType,
  Signal,
  WelcomeAgent,
} from '@ahp/protocol/wire';
import { AgentMessages } from './agent-messages.js';
import type { IdleOptions, SendOptions } from './agent-messages.js';
import type { ClientEvents } from './client-events.js';
import { ClientLink } from './client-link.js';
import { checkConnectOptions, resolveClientSettings } from './client-options.js';
import type { ClientOptions } from './client-options.js';
import type { ConnectionState, SessionInfo } from './connection.js';
import { AhpClientError } from './errors.js';
import { HookCalls } from './hook-calls.js';
import type { HookOptions } from './hook-calls.js';
import type { HookResult } from './hook-result.js';
import { ToolCallTracker, shutdownFallback, trackUnlessShutDown } from './shutdown-policy.js';
import { SignalAnswers } from './signal-answers.js';
import type { RespondOptions, SignalHandler } from './signal-answers.js';
import { TeamRequests } from './team-requests.js';
import type { RequestInterventionOptions, RequestShutdownOptions, SubmitPlanOptions } from './team-requests.js';
import { TeamChannel } from './team.js';
import type { IdleResult, RequestAnswer, RequestDecision, RequestHandler } from './team.js';
import { resolveTransport } from './transport.js';
import type { TransportFactory } from './transport.js';

/**
 * A connected agent. Obtain one with {@link connect}. Every method returns a promise that
 * rejects with an {@link AhpClientError}; branch on its `code`.
 *
 * Requests survive reconnects: a hook pending when a gateway dies is re-sent, with the same id,
 * to the next gateway after the session resumes, and resolves once.
 */
export class AhpClient {
  readonly #link: ClientLink;
  readonly #team: TeamChannel;
  readonly #hooks: HookCalls;
  readonly #signals: SignalAnswers;
  readonly #requests: TeamRequests;
  readonly #messages: AgentMessages;
  readonly #tools = new ToolCallTracker();

  private constructor(options: ClientOptions, urls: readonly string[], transport: TransportFactory) {
    const settings = resolveClientSettings(options);
    const { logger, requestDeadlineMs } = settings;
    this.#link = new ClientLink(
      {
        urls,
        token: options.token,
        client: settings.client,
        transport,
        backoff: settings.backoff,
        handshakeTimeoutMs: settings.handshakeTimeoutMs,
        livenessFactor: settings.livenessFactor,
        maxFrameBytes: settings.maxFrameBytes,
        logger,
      },
      {
        signal: (signal) => this.#signals.deliver(signal),
        requestState: (state) => this.#team.onRequestState(state),
        inboxMessage: (message) => this.#team.onInboxMessage(message),
        ending: (error) => this.#team.close(error),
      },
    );
    const requests = this.#link.requests;
    this.#team = new TeamChannel({
      send: (frame) => requests.send(frame, { deadlineMs: requestDeadlineMs }),
      selfId: () => this.#link.connection.session?.agent.id,
      shutdownApproved: (request) => {
        logger.info({ requestId: request.request_id }, 'shutdown approved; disconnecting');
        void this.close();
      },
      fallbacks: shutdownFallback(options.shutdownPolicy, this.#tools),
      logger,
    });
    this.#signals = new SignalAnswers({ requests, requestDeadlineMs, logger });
    this.#hooks = new HookCalls({
      requests,
      team: this.#team,
      events: this.#link.events,
      remember: (signal) => this.#signals.remember(signal),
      hookDeadlineMs: settings.hookDeadlineMs,
      logger,
    });
    this.#requests = new TeamRequests({ team: this.#team, requests, requestDeadlineMs, lead: settings.lead, agent: () => this.agent, logger });
    this.#messages = new AgentMessages({ team: this.#team, requests, requestDeadlineMs });
  }

  /** See {@link connect}. */
  static async connect(options: ClientOptions): Promise<AhpClient> {
    const { urls, connectTimeoutMs } = checkConnectOptions(options);
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
    await client.#link.start(connectTimeoutMs, signal);
    return client;
  }

  /** Where the connection is: `connecting`, `open`, `closing` or `closed`. */
  get state(): ConnectionState {
    return this.#link.connection.state;
  }

  /** The current (or last) session id; resumed automatically after a reconnect. */
  get sessionId(): string | undefined {
    return this.#link.connection.session?.sessionId;
  }

  /** Who the gateway says this client is (from the token). */
  get agent(): WelcomeAgent | undefined {
    return this.#link.connection.session?.agent;
  }

  /** Everything the latest `welcome` said. */
  get session(): SessionInfo | undefined {
    return this.#link.connection.session;
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
  hook(trigger: HookTrigger, context: JsonObject = {}, options: HookOptions = {}): Promise<HookResult> {
    return this.#hooks.hook(trigger, context, options);
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
    return this.#hooks.untilApprovalDecided(requestId, deadline);
  }

  /**
   * Reports how the agent consumed a signal; resolves when the gateway acknowledged it. When the
   * signal is known (passed as an object, or seen in a decision or push of this client), an
   * action that does not fit its intensity — e.g. `dismiss` on a block — rejects with
   * `E_INVALID_ACTION` and nothing is sent; for an unknown signal id the gateway decides.
   * Re-sending the same answer is safe: the gateway acknowledges it again.
   */
  respond(signal: Signal | string, action: ConsumptionAction, details?: JsonObject, options: RespondOptions = {}): Promise<void> {
    return this.#signals.respond(signal, action, details, options);
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
  submitPlan(plan: Plan, options: SubmitPlanOptions = {}): Promise<RequestDecision> {
    return this.#requests.submitPlan(plan, options);
  }

  /**
   * The team lead's agent id, where plans go by default: `ClientOptions.lead` when set, else the
   * lead the latest `welcome` names (`agent.lead`), unless that is this agent itself.
   */
  get lead(): string | undefined {
    return this.#requests.lead;
  }

  /**
   * Asks a person to look at this agent after a circuit breaker stopped it (docs/spec/circuit-breakers.md#intervention-requests: past
   * `MAX_ITER` iterations a human must intervene) and resolves with the decision: `approved` means
   * continue, with `feedback` as guidance; `rejected` means stay stopped; `expired` nobody came.
   * Addressed to the operators (the console's approval queue) unless `target` names the team's lead.
   */
  requestIntervention(payload: InterventionPayload, options: RequestInterventionOptions = {}): Promise<RequestDecision> {
    return this.#requests.requestIntervention(payload, options);
  }

  /**
   * Lead only: asks teammate `agent` to shut down and resolves with its answer (`approved`: it
   * stops and disconnects; `rejected` with its reason), or `expired`.
   */
  requestShutdown(agent: string, options: RequestShutdownOptions = {}): Promise<RequestDecision> {
    return this.#requests.requestShutdown(agent, options);
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
    return trackUnlessShutDown(this.#team, this.#tools, name, run);
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
    return this.#requests.answerRequest(requestId, answer);
  }

  /**
   * Withdraws a pending request this agent opened (a plan it no longer wants approved, an
   * intervention it no longer needs) and resolves with its state, `cancelled`; the promise of
   * `submitPlan()` / `requestIntervention()` for it resolves `cancelled` too. Rejects with
   * `E_FORBIDDEN` for someone else's request and `E_CONFLICT` when it was settled first.
   */
  cancelRequest(requestId: string): Promise<ProtocolState> {
    return this.#requests.cancelRequest(requestId);
  }

  /** Lead helper: approves or rejects a teammate's plan, with feedback (docs/spec/teams.md#plan-approval). */
  reviewPlan(requestId: string, approve: boolean, feedback?: string): Promise<ProtocolState> {
    return this.#requests.reviewPlan(requestId, approve, feedback);
  }

  /**
   * Puts a message in a teammate's durable inbox and resolves with the message as stored. The
   * teammate gets it now if connected, else when it connects. Only agents of this agent's team
   * can be addressed (`E_FORBIDDEN`).
   */
  send(to: string, content: string, options: SendOptions = {}): Promise<InboxMessage> {
    return this.#messages.send(to, content, options);
  }

  /**
   * The idle loop: waits, by push, for the next message for the application (`message` or
   * `idle_notification`; protocol messages are routed to their requests and handlers instead)
   * and resolves with it, acknowledged — a message is never returned twice, also not across
   * reconnects. Resolves `{ kind: 'shutdown' }` once this agent approved a shutdown (the client
   * then disconnects), `{ kind: 'timeout' }` after `timeoutMs`; rejects when the client closes.
   */
  idle(options: IdleOptions = {}): Promise<IdleResult> {
    return this.#messages.idle(options);
  }

  /**
   * Reports an observability event (a control signal acted on, plan progress, a verification
   * result) to the agent's timeline; resolves once the gateway recorded it.
   */
  report(event: AgentEvent): Promise<void> {
    return this.#messages.report(event);
  }

  /**
   * Subscribes to signals the gateway pushes outside hook decisions. Signals that arrive before
   * the first handler subscribes are held and delivered to it. A throwing or rejecting handler is
   * logged. Returns the unsubscribe function.
   */
  onSignal(handler: SignalHandler): () => void {
    return this.#signals.on(handler);
  }

  /** Subscribes to a client event (see {@link ClientEvents}); returns the unsubscribe function. */
  on<K extends keyof ClientEvents>(event: K, handler: (payload: ClientEvents[K]) => void | Promise<void>): () => void {
    return this.#link.events.on(event, handler);
  }

  /**
   * Closes for good: pending requests reject with `E_CLOSED` at once, the socket closes with
   * 1000 (which tells the gateway the agent left on purpose), and nothing reconnects. Resolves
   * when the socket is closed. Idempotent.
   */
  async close(): Promise<void> {
    await this.#link.stop(new AhpClientError('E_CLOSED', 'the client was closed'));
    this.#link.events.clear();
    this.#signals.clear();
  }
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
