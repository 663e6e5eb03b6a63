/**
 * Hook calls: `hook()` validates the frame, sends it through the request manager (which re-sends
 * it across reconnects) and, for a `pre-tool-use` call that must wait for a person, waits for the
 * tool approval to be decided and asks again presenting it.
 */
import { HookFrameSchema, awaitingApproval } from '@ahp/protocol/wire';
import type { HookDecision, HookFrame, HookTrigger, JsonObject, Signal } from '@ahp/protocol/wire';
import type { AwaitingApprovalInfo, ClientEvents } from './client-events.js';
import { checkDuration } from './client-options.js';
import { AhpClientError } from './errors.js';
import type { Emitter } from './events.js';
import { toHookResult } from './hook-result.js';
import type { HookResult } from './hook-result.js';
import type { Logger } from './logger.js';
import { checkOutgoing } from './outgoing-frame.js';
import type { RequestManager } from './request-manager.js';
import type { TeamChannel } from './team.js';

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

/**
 * Waiting for an approval lasts until the request's deadline plus this much: the gateways expire
 * requests on a periodic sweep, and the worker expires a due one when the call is re-sent.
 */
const APPROVAL_GRACE_MS = 2_000;
/** Re-sends of one tool call while it waits for approvals (a new request each time another hook used the approval first, or a still-pending one after a reconnect). */
const MAX_APPROVAL_ROUNDS = 20;
/** Longest single timer (setTimeout's limit); a longer wait is taken in steps. */
const MAX_TIMER_MS = 2_147_483_647;

/** What {@link HookCalls} needs from the client. */
export interface HookCallsDeps {
  readonly requests: RequestManager;
  /** Knows whether a plan approval is pending and when a request settles. */
  readonly team: TeamChannel;
  /** The client's events: `awaiting_approval` is emitted, `session` and `state` end a wait. */
  readonly events: Emitter<ClientEvents>;
  /** Keeps each signal of a decision for the action check of a later `respond()`. */
  readonly remember: (signal: Signal) => void;
  readonly hookDeadlineMs: number;
  readonly logger: Logger;
}

/** See the module comment. */
export class HookCalls {
  readonly #deps: HookCallsDeps;

  constructor(deps: HookCallsDeps) {
    this.#deps = deps;
  }

  /** See {@link AhpClient.hook}. */
  async hook(trigger: HookTrigger, context: JsonObject = {}, options: HookOptions = {}): Promise<HookResult> {
    const deadlineMs = checkDuration('deadlineMs', options.deadlineMs, this.#deps.hookDeadlineMs);
    const planPending = trigger === 'pre-tool-use' ? this.#deps.team.pendingPlanApproval : undefined;
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
    const checked = checkOutgoing(HookFrameSchema, frame, 'hook');
    const reply = await this.#deps.requests.send(frame, { deadlineMs });
    for (const signal of reply.decision.signals) this.#deps.remember(signal);
    if (trigger !== 'pre-tool-use' || options.waitForApproval === false) return toHookResult(reply.decision);
    return toHookResult(await this.#awaitApprovals(checked, reply.decision, deadlineMs, options.onAwaitingApproval));
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
      this.#deps.logger.info({ hookId: info.hookId, requestId: info.requestId, deadline: info.deadline }, 'tool call waits for approval');
      try {
        callback?.(info);
      } catch (error) {
        this.#deps.logger.warn({ requestId: info.requestId, error: String(error) }, 'onAwaitingApproval threw');
      }
      this.#deps.events.emit('awaiting_approval', info);
      await this.#untilSettled(waiting.request_id, waiting.deadline);
      const again: HookFrame = { ...frame, id: globalThis.crypto.randomUUID(), context: { ...frame.context, approval: { request_id: waiting.request_id } } };
      const reply = await this.#deps.requests.send(again, { deadlineMs });
      for (const signal of reply.decision.signals) this.#deps.remember(signal);
      decision = reply.decision;
    }
    return decision;
  }

  /** See {@link AhpClient.untilApprovalDecided}. */
  untilApprovalDecided(requestId: string, deadline: string): Promise<void> {
    return this.#untilSettled(requestId, deadline);
  }

  /**
   * Resolves when request `requestId` settled, when its deadline (plus a grace) passed, or when
   * the client reconnected (a response may have been missed: the re-sent call asks the server).
   * Rejects when the client closes.
   */
  #untilSettled(requestId: string, deadline: string): Promise<void> {
    const watch = this.#deps.team.watch(requestId);
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
      const offSession = this.#deps.events.on('session', () => done());
      const offState = this.#deps.events.on('state', (change) => {
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
}
