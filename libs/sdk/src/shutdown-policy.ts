/**
 * What a teammate answers to a shutdown request when the application registered no handler for
 * it (docs/spec/teams.md#shutdown: the teammate answers; it never lets the lead's request expire unanswered):
 * approve while no tool call runs, refuse with the reason while one does, so that stopping never
 * cuts a tool off half-way. Tool calls are known from {@link ToolCallTracker.track}, which the
 * reference loop wraps around each call.
 */
import type { ProtocolState, RequestType } from '@ahp/protocol/wire';
import { AhpClientError } from './errors.js';
import type { IncomingRequest, RequestAnswer, RequestHandler } from './team.js';

/** The tool calls running now, by name: the "busy" side of the default shutdown policy. */
export class ToolCallTracker {
  readonly #running = new Map<number, string>();
  #next = 0;

  /** Names of the tool calls running now, oldest first. */
  get running(): readonly string[] {
    return [...this.#running.values()];
  }

  /**
   * Runs `run` as the tool call `name`: while it runs, the default shutdown policy refuses. Covers
   * the whole call (its hooks too), so a shutdown approved just before cannot let a tool start.
   */
  async track<T>(name: string, run: () => Promise<T>): Promise<T> {
    const id = this.#next++;
    this.#running.set(id, name);
    try {
      return await run();
    } finally {
      this.#running.delete(id);
    }
  }
}

/** The feedback of an approved default answer. */
export const IDLE_SHUTDOWN_FEEDBACK = 'idle: no tool call is running; shutting down';

/** The answer of the default policy to `request`, given the tool calls running now. */
export function defaultShutdownAnswer(_request: IncomingRequest<'shutdown'>, running: readonly string[]): RequestAnswer {
  if (running.length === 0) return { approve: true, feedback: IDLE_SHUTDOWN_FEEDBACK };
  const names = [...new Set(running)].slice(0, 5).join(', ');
  return { approve: false, feedback: `busy: ${running.length} tool call${running.length === 1 ? '' : 's'} running (${names}); ask again once ${running.length === 1 ? 'it has' : 'they have'} finished` };
}

/** The fallback of shutdown requests no handler takes, per `ClientOptions.shutdownPolicy`. */
export function shutdownFallback(policy: 'idle' | 'hold' | RequestHandler<'shutdown'> | undefined, tools: ToolCallTracker): Partial<Record<RequestType, RequestHandler>> {
  if (policy === 'hold') return {};
  const handler: RequestHandler<'shutdown'> = typeof policy === 'function' ? policy : (request) => defaultShutdownAnswer(request, tools.running);
  // Dispatched by type: this handler only ever sees shutdown requests.
  return { shutdown: handler as unknown as RequestHandler };
}

/** Where this agent's own shutdown stands, as the team channel knows it. */
export interface OwnShutdown {
  /** Settles once an approval of this agent's shutdown, in flight now, was sent. */
  readonly approvingShutdown: Promise<void> | undefined;
  /** The shutdown request this agent approved. */
  readonly shutdownApproved: ProtocolState | undefined;
}

/**
 * Runs `run` as the tool call `name` with `tools`, unless this agent approved its shutdown: while
 * an approval is in flight the call waits, and once one is approved it rejects with `E_CLOSED`
 * without running.
 */
export function trackUnlessShutDown<T>(shutdown: OwnShutdown, tools: ToolCallTracker, name: string, run: () => Promise<T>): Promise<T> {
  const start = (): Promise<T> => {
    const approved = shutdown.shutdownApproved;
    if (approved !== undefined) return Promise.reject(new AhpClientError('E_CLOSED', `this agent approved shutdown ${approved.request_id}; ${name} does not start`));
    return tools.track(name, run);
  };
  // An approval of this agent's shutdown may be on its way: a tool must not start under it.
  const approving = shutdown.approvingShutdown;
  return approving === undefined ? start() : approving.then(start);
}
