/**
 * The WebSocket transport of the agent endpoint: Nest's `WsAdapter` with the gateway's own
 * rules for the upgrade and for messages.
 *
 * - Authentication happens in the HTTP upgrade (`verifyClient`), before a socket exists: a
 *   missing, unknown or revoked token is answered `401` and the TCP connection ends. Nest's
 *   guards never run on a WebSocket connection, so this is the only place that can refuse it.
 * - While the gateway drains, upgrades are answered `503` (with `Retry-After`), so a load balancer
 *   or the SDK's backoff sends the agent to another instance.
 * - Nest's `{event, data}` message dispatch is switched off: it drops malformed JSON and unknown
 *   events silently and never reports a handler's exception to a raw ws client. The gateway
 *   attaches its own `message` listener and answers every frame, good or bad.
 * - `maxPayload` bounds what a peer can make us buffer; ws closes the connection with 1009 when
 *   a message exceeds it (before it is fully received, so no error frame can answer it). The
 *   gateway sets it to twice `AHP_MAX_FRAME_BYTES`, so that a frame just over the limit is read,
 *   discarded and answered `E_FRAME_TOO_LARGE` instead (see `AgentsGateway`).
 * - `perMessageDeflate` is off: compression costs CPU and memory per connection (zlib contexts)
 *   and opens decompression-bomb questions, for frames that are small JSON anyway.
 */
import type { IncomingMessage } from 'node:http';
import type { INestApplicationContext } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { MessageMappingProperties } from '@nestjs/websockets';
import type { Observable } from 'rxjs';
import type { WebSocket, WebSocketServer } from 'ws';
import type { AuthResult } from '../auth/agent-auth.service.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { setUpgradeAgent } from './upgrade-context.js';

/** The path agents connect to. */
export const AGENTS_WS_PATH = '/v1/agents';

/** What the adapter asks the application at each upgrade. */
export interface UpgradeGate {
  /** True while the gateway drains: new connections are refused with 503. */
  isDraining(): boolean;
  /** Authenticates the upgrade request (header or query token). */
  authenticate(request: IncomingMessage): AuthResult;
}

/** Options of {@link AgentWsAdapter}. */
export interface AgentWsAdapterOptions {
  gate: UpgradeGate;
  /** Largest message in bytes (ws `maxPayload`): twice `AHP_MAX_FRAME_BYTES`. */
  maxPayload: number;
  logger: JsonLogger;
  /** @defaultValue {@link AGENTS_WS_PATH} */
  path?: string;
}

type VerifyClientDone = (result: boolean, code?: number, message?: string, headers?: Record<string, string>) => void;

/** Nest's ws adapter with upgrade authentication, drain refusal and no `{event,data}` dispatch. */
export class AgentWsAdapter extends WsAdapter {
  private readonly options: AgentWsAdapterOptions;
  private readonly log: JsonLogger;

  constructor(app: INestApplicationContext | object, options: AgentWsAdapterOptions) {
    super(app);
    this.options = options;
    this.log = options.logger.child({ component: 'ws-adapter' });
  }

  /**
   * Creates the ws server on the application's HTTP server with the gateway's settings. They
   * override whatever the `@WebSocketGateway()` decorator says: the transport's limits belong
   * to the configuration, not to a decorator literal.
   */
  override create(port: number, options: Record<string, unknown> & { namespace?: string; server?: unknown; path?: string } = {}): WebSocketServer {
    return super.create(port, {
      ...options,
      path: this.options.path ?? AGENTS_WS_PATH,
      perMessageDeflate: false,
      maxPayload: this.options.maxPayload,
      clientTracking: true,
      verifyClient: (info: { req: IncomingMessage }, done: VerifyClientDone) => this.verifyClient(info.req, done),
    }) as WebSocketServer;
  }

  /**
   * Intentionally empty: the gateway reads every message itself (see the module comment), so
   * Nest must not subscribe a second, silent parser to the same socket.
   */
  override bindMessageHandlers(_client: unknown, _handlers: MessageMappingProperties[], _transform: (data: unknown) => Observable<unknown>): void {}

  /**
   * A socket `error` is mostly the peer's doing (a message over `maxPayload`, invalid UTF-8, a
   * reset); ws closes the socket itself. Logging those at error level, as the base class does,
   * would let any client flood the logs, so they are debug lines here; server errors stay errors.
   */
  override bindErrorHandler(server: WebSocketServer): WebSocketServer {
    server.on('connection', (ws: WebSocket) => {
      ws.on('error', (error: Error & { code?: string }) => {
        this.log.debug({ error: error.message, code: error.code }, 'websocket error from peer');
      });
    });
    server.on('error', (error: Error) => this.log.error({ error }, 'websocket server error'));
    return server;
  }

  private verifyClient(request: IncomingMessage, done: VerifyClientDone): void {
    try {
      if (this.options.gate.isDraining()) {
        done(false, 503, 'Service Unavailable', { 'Retry-After': '1' });
        return;
      }
      const result = this.options.gate.authenticate(request);
      if (!result.ok) {
        this.log.info({ reason: result.reason, remoteAddress: request.socket.remoteAddress }, 'websocket upgrade refused');
        done(false, 401, 'Unauthorized', { 'WWW-Authenticate': 'Bearer realm="ahp"' });
        return;
      }
      setUpgradeAgent(request, result.agent);
      done(true);
    } catch (error) {
      this.log.error({ error }, 'websocket upgrade check failed');
      done(false, 500, 'Internal Server Error');
    }
  }
}
