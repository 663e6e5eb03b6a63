/**
 * Holding a coding agent's permission prompt open while an operator decides (docs/claude-code.md,
 * "PermissionRequest"). When the agent is about to ask its user to approve a call (Claude Code's
 * PermissionRequest, Codex's, Copilot's permissionRequest) and a `require_approval` rule makes
 * the call wait for an operator, the hook is not denied at once: it waits for the decision, up to
 * the hook's time budget, and answers with it.
 *
 * What makes it survive more than one process: the wait is for the tool approval request in
 * Redis (the RequestStore), not for anything in this gateway's memory. The decision may be taken
 * on any gateway; this one learns it from the request audit stream every gateway tails (the live
 * feed) and, should that lag, by reading the request every {@link POLL_MS}. A prompt re-sent
 * after this gateway died (`ahp hook` re-sends on a lost connection) is a new hook whose worker
 * finds the same request by the call's digest, and waits for it again.
 *
 * Once the request is settled the hook is evaluated again presenting it (`context.approval`), so
 * the worker turns the operator's decision into the answer exactly as for a retried call: used
 * once, edited input as a control, a rejection with its feedback. When nobody decides in time,
 * the rule's `prompt_fallback` answers (`dialog`: the agent's own prompt; `deny`), and the
 * request's history records it (`prompt_fallback`), so a later decision shows as coming after it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { awaitingApproval, promptFallbackOf, type AwaitingApproval, type HookDecision, type PromptFallback } from '@ahp/protocol';
import type { RequestStore } from '@ahp/store';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { LiveFeedService } from '../fleet/live-feed.service.js';
import { DrainState } from '../lifecycle/drain-state.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { REQUEST_STORE } from '../store/store.tokens.js';

/** How often a held prompt reads its request, in case the live feed missed or delays its change. */
export const POLL_MS = 1000;

/** Below this much time left, a prompt is not held (nor evaluated again): the fallback answers at once. */
export const MIN_HOLD_MS = 500;

/** Most evaluations of one held prompt: a settled request that another hook used first opens a new one. */
const MAX_ROUNDS = 4;

/**
 * Most prompts one agent may have held on one gateway at once. Each holds a connection and reads
 * its request every {@link POLL_MS}; beyond this a prompt is answered at once with the wait
 * reason (deny, retry the identical call), as when holding is off.
 */
export const MAX_HELD_PER_AGENT = 16;

/** Header with which a hook asks to be held for less than AHP_PERMISSION_WAIT_MS (milliseconds). */
export const WAIT_HEADER = 'x-ahp-wait-ms';

/**
 * Header (`1`) with which a hook says it sends the prompt again when this gateway goes away
 * (`ahp hook`): a gateway shutting down then answers 503 instead of the fallback, and the prompt
 * is held again by the gateway that answers next.
 */
export const RESEND_HEADER = 'x-ahp-resend';

/**
 * What a hook's HTTP exchange tells a hold: the wait it asks for ({@link WAIT_HEADER}) and a
 * signal aborted when the client goes away before its answer (its timeout: nobody is left to answer).
 */
export function holdOptionsOf(request: IncomingMessage, response: ServerResponse): { waitHeader: string | string[] | undefined; signal: AbortSignal; resends: boolean } {
  const gone = new AbortController();
  response.once('close', () => {
    if (!response.writableEnded) gone.abort();
  });
  return { waitHeader: request.headers[WAIT_HEADER], signal: gone.signal, resends: request.headers[RESEND_HEADER] === '1' };
}

/** How a wait for a request ended. */
export type WaitOutcome = 'settled' | 'timeout' | 'aborted' | 'draining';

/** One held prompt: when it arrived, how long it may wait, and how to ask again. */
export interface HeldPrompt {
  /** The agent's name (`Claude Code`), for the texts. */
  readonly label: string;
  readonly agentId: string;
  /** Epoch ms by which the hook must be answered. */
  readonly until: number;
  /** Evaluates the hook again presenting `requestId`, with at most `deadlineMs` to decide. */
  readonly evaluateWith: (requestId: string, deadlineMs: number) => Promise<HookDecision>;
  /** Aborted when the agent stopped waiting (its connection closed). */
  readonly signal?: AbortSignal | undefined;
  /** The hook sends the prompt again when this gateway goes away ({@link RESEND_HEADER}). */
  readonly resends?: boolean | undefined;
}

/** What a held prompt answers: a decision, or the fallback (with the reason the agent reads). */
export type HoldResult =
  | { readonly kind: 'decided'; readonly decision: HookDecision }
  | { readonly kind: 'fallback'; readonly decision: HookDecision; readonly fallback: PromptFallback; readonly reason: string }
  /** This gateway shuts down and the hook sends the prompt again elsewhere: answer 503, record nothing. */
  | { readonly kind: 'resend' };

/** Seconds, for texts. */
function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** See the module comment. */
@Injectable()
export class PermissionHold implements OnModuleInit, OnModuleDestroy {
  private readonly log: JsonLogger;
  /** Wake-ups of the prompts held on this gateway, by the request they wait for. */
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Prompts held on this gateway, by agent. */
  private readonly heldByAgent = new Map<string, number>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    @Inject(REQUEST_STORE) private readonly requests: RequestStore,
    @Inject(LiveFeedService) private readonly live: LiveFeedService,
    @Inject(DrainState) private readonly drain: DrainState,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'permission-hold' });
  }

  onModuleInit(): void {
    const unsubscribe = this.live.subscribe(
      (events) => {
        for (const event of events) {
          if (event.kind === 'request' && event.status !== 'pending') this.wake(event.request_id);
        }
      },
      () => undefined,
    );
    if (unsubscribe === null) this.log.warn({}, 'no live feed slot: held permission prompts learn decisions by reading their request only');
    this.unsubscribe = unsubscribe ?? undefined;
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** How many prompts this gateway holds now. */
  get heldCount(): number {
    let count = 0;
    for (const set of this.waiters.values()) count += set.size;
    return count;
  }

  /**
   * The latest epoch ms by which a prompt that arrived at `arrivedAt` must be answered: the
   * gateway's AHP_PERMISSION_WAIT_MS, or less when the hook asked for less (`header`, ms).
   */
  deadlineOf(arrivedAt: number, header: string | string[] | undefined): number {
    const asked = typeof header === 'string' && /^\d{1,9}$/.test(header.trim()) ? Number(header.trim()) : undefined;
    return arrivedAt + Math.min(this.config.permissionWaitMs, asked ?? Number.POSITIVE_INFINITY);
  }

  /**
   * Holds the prompt whose first decision is `decision` until an operator decides the request it
   * waits for, then answers with the decision that gives; see the module comment. A decision
   * that does not wait for an operator is answered as it is.
   */
  async hold(prompt: HeldPrompt, decision: HookDecision): Promise<HoldResult> {
    if (awaitingApproval(decision) === undefined || this.config.permissionWaitMs === 0) return { kind: 'decided', decision };
    const held = this.heldByAgent.get(prompt.agentId) ?? 0;
    if (held >= MAX_HELD_PER_AGENT) {
      this.log.warn({ agentId: prompt.agentId, held }, 'too many permission prompts held for this agent; answering this one at once');
      return { kind: 'decided', decision };
    }
    this.heldByAgent.set(prompt.agentId, held + 1);
    try {
      return await this.holdHeld(prompt, decision);
    } finally {
      const left = (this.heldByAgent.get(prompt.agentId) ?? 1) - 1;
      if (left <= 0) this.heldByAgent.delete(prompt.agentId);
      else this.heldByAgent.set(prompt.agentId, left);
    }
  }

  private async holdHeld(prompt: HeldPrompt, decision: HookDecision): Promise<HoldResult> {
    const arrived = Date.now();
    let current = decision;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const waiting = awaitingApproval(current);
      if (waiting === undefined || this.config.permissionWaitMs === 0) return { kind: 'decided', decision: current };
      const outcome = prompt.until - Date.now() < MIN_HOLD_MS ? 'timeout' : await this.waitFor(waiting.request_id, prompt.until, prompt.signal);
      if (outcome === 'draining' && prompt.resends === true) {
        this.log.info({ agentId: prompt.agentId, requestId: waiting.request_id }, 'held permission prompt handed back for another gateway: this one shuts down');
        return { kind: 'resend' };
      }
      if (outcome !== 'settled') return this.fallBack(prompt, waiting, current, outcome, Date.now() - arrived);
      const left = prompt.until - Date.now();
      if (left < MIN_HOLD_MS) return this.fallBack(prompt, waiting, current, 'timeout', Date.now() - arrived);
      this.log.info({ agentId: prompt.agentId, requestId: waiting.request_id, heldMs: Date.now() - arrived }, 'held permission prompt: request settled; asking again with it');
      current = await prompt.evaluateWith(waiting.request_id, Math.min(left, this.config.claudeCodeDeadlineMs));
    }
    return { kind: 'decided', decision: current };
  }

  /** Answers with the rule's fallback and records it on the request (best effort: the answer does not wait for Redis to recover). */
  private async fallBack(prompt: HeldPrompt, waiting: AwaitingApproval, decision: HookDecision, outcome: Exclude<WaitOutcome, 'settled'>, heldMs: number): Promise<HoldResult> {
    const fallback = promptFallbackOf(waiting);
    const id = waiting.request_id;
    const why =
      outcome === 'aborted' ? `${prompt.label} stopped waiting after ${seconds(heldMs)}` : outcome === 'draining' ? 'the gateway holding it shut down' : `no operator decided within ${seconds(heldMs)}`;
    const answered = fallback === 'dialog' ? `the decision was left to ${prompt.label}'s own permission prompt` : 'the call was denied';
    const feedback = `${prompt.label}'s permission prompt stopped waiting (${why}); ${answered}. A decision from now on applies when the identical call is made again.`;
    const reason =
      fallback === 'dialog'
        ? `AHP: approval request ${id} was not decided in time (${why}); ${prompt.label} asks you instead. The request stays open for operators: an approval applies to the identical call made again.`
        : `AHP: approval request ${id} was not decided in time (${why}), so the call is denied. An operator can still approve it: then make the identical call again.`;
    this.log.info({ agentId: prompt.agentId, requestId: id, outcome, fallback, heldMs }, 'held permission prompt fell back');
    try {
      await this.requests.recordPromptFallback(id, feedback, Date.now());
    } catch (error) {
      this.log.warn({ agentId: prompt.agentId, requestId: id, error }, 'recording the permission prompt fallback on its request failed');
    }
    return { kind: 'fallback', decision, fallback, reason };
  }

  /** Resolves when `requestId` is no longer pending, `until` passes, `signal` aborts or the gateway drains. */
  waitFor(requestId: string, until: number, signal?: AbortSignal): Promise<WaitOutcome> {
    return new Promise<WaitOutcome>((resolve) => {
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const wakeUp = (): void => {
        clearTimeout(timer);
        void check();
      };
      const onAbort = (): void => finish('aborted');
      const finish = (outcome: WaitOutcome): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const set = this.waiters.get(requestId);
        set?.delete(wakeUp);
        if (set?.size === 0) this.waiters.delete(requestId);
        resolve(outcome);
      };
      const check = async (): Promise<void> => {
        if (done) return;
        if (this.drain.draining) return finish('draining');
        try {
          const found = await this.requests.get(requestId);
          // A request gone (purged) is settled as far as this prompt goes: asking again tells what stands.
          if (found === null || found.state.status !== 'pending') return finish('settled');
        } catch (error) {
          this.log.warn({ requestId, error }, 'reading a held permission prompt\'s request failed; trying again');
        }
        if (done) return;
        const left = until - Date.now();
        if (left <= 0) return finish('timeout');
        clearTimeout(timer);
        timer = setTimeout(() => void check(), Math.min(POLL_MS, left));
      };
      if (signal?.aborted === true) return finish('aborted');
      signal?.addEventListener('abort', onAbort, { once: true });
      let set = this.waiters.get(requestId);
      if (set === undefined) {
        set = new Set();
        this.waiters.set(requestId, set);
      }
      set.add(wakeUp);
      void check();
    });
  }

  private wake(requestId: string): void {
    const set = this.waiters.get(requestId);
    if (set === undefined) return;
    for (const wakeUp of [...set]) wakeUp();
  }
}
