/**
 * The client's link to the control plane: the {@link Connection} (sockets, resume, liveness), the
 * {@link RequestManager} that re-sends pending requests over it, and the client's events. It turns
 * the connection's reports into request bookkeeping and events, routes pushes to their owners,
 * and waits for the first `welcome` on `connect()`.
 */
import type { InboxMessage, ProtocolState, Signal } from '@ahp/protocol/wire';
import type { ClientEvents } from './client-events.js';
import { Connection } from './connection.js';
import type { ConnectionOptions } from './connection.js';
import { AhpClientError } from './errors.js';
import { Emitter } from './events.js';
import { RequestManager } from './request-manager.js';

/** Where the link hands what the gateway pushes, and whom it tells that the client is ending. */
export interface PushRoutes {
  signal(signal: Signal): void;
  requestState(state: ProtocolState): void;
  inboxMessage(message: InboxMessage): void;
  /** The client is ending with `error`: whatever waits on the team must stop waiting. Runs after pending requests rejected. */
  ending(error: AhpClientError): void;
}

/** See the module comment. */
export class ClientLink {
  readonly connection: Connection;
  readonly requests: RequestManager;
  readonly events: Emitter<ClientEvents>;
  readonly #routes: PushRoutes;

  constructor(options: ConnectionOptions, routes: PushRoutes) {
    this.#routes = routes;
    this.requests = new RequestManager({ logger: options.logger });
    this.events = new Emitter<ClientEvents>({ logger: options.logger });
    this.connection = new Connection(options, {
      ready: (session, send) => {
        this.requests.attach({ send, maxInFlight: session.limits.max_in_flight, maxFrameBytes: session.limits.max_frame_bytes });
        this.events.emit('session', session);
      },
      unready: () => this.requests.detach(),
      reply: (frame) => {
        if (this.requests.settle(frame) === 'requeued' && frame.type === 'error') {
          this.connection.drain(frame.error.retry_after_ms ?? 0, 'gateway shutting down');
        }
      },
      unreadableReply: (id, error) => {
        this.requests.fail(id, error);
      },
      push: (frame) => {
        switch (frame.type) {
          case 'signal':
            this.#routes.signal(frame.signal);
            return;
          case 'request_update':
            this.#routes.requestState(frame.request);
            this.events.emit('request_update', frame.request);
            return;
          case 'inbox':
            this.#routes.inboxMessage(frame.message);
            return;
        }
      },
      goaway: (frame) => {
        this.events.emit('goaway', { reason: frame.reason, reconnectAfterMs: frame.reconnect_after_ms, url: this.connection.session?.url });
      },
      state: (change) => {
        if (change.state === 'closed') {
          const error = change.error ?? new AhpClientError('E_CLOSED', 'the client was closed');
          this.requests.close(error);
          this.#routes.ending(error);
        }
        this.events.emit('state', change);
      },
    });
  }

  /** Starts the connection and settles with its first `welcome`, its final error, the timeout or the abort. */
  start(timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
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
        this.events.on('state', (change) => {
          if (change.state === 'open') settle();
          else if (change.state === 'closed') settle(change.error ?? new AhpClientError('E_CLOSED', 'the client was closed'));
        }),
      );
      const timer = setTimeout(() => {
        const last = this.connection.lastClose;
        const error = new AhpClientError('E_TIMEOUT', `no gateway welcomed this client within ${timeoutMs} ms`, {
          details: {
            phase: 'connect',
            timeout_ms: timeoutMs,
            ...(last === undefined ? {} : { last_close_code: last.code, ...(last.httpStatus === undefined ? {} : { last_http_status: last.httpStatus }) }),
          },
          ...(last?.error === undefined ? {} : { cause: last.error }),
        });
        settle(error);
        void this.stop(error);
      }, timeoutMs);
      cleanups.push(() => clearTimeout(timer));
      if (signal !== undefined) {
        const onAbort = (): void => {
          const error = new AhpClientError('E_CLOSED', 'connect() was aborted', { cause: signal.reason });
          settle(error);
          void this.stop(error);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        cleanups.push(() => signal.removeEventListener('abort', onAbort));
      }
      this.connection.start();
    });
  }

  /** Ends for good with `error`: pending requests reject, the routes hear it, the socket closes. Resolves when it is closed. */
  async stop(error: AhpClientError): Promise<void> {
    this.requests.close(error);
    this.#routes.ending(error);
    await this.connection.close(error);
  }
}
