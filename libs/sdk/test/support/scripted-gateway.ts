/**
 * A scripted gateway: a real `ws` server on port 0 that speaks the AHP protocol well enough to be
 * the client's peer in tests. It authenticates at the HTTP upgrade (header or `?token=`, 401
 * otherwise), answers `hello` with a `welcome` (resuming any session id it is given), checks every
 * client frame with the protocol schema, and hands every other frame to the test's script.
 *
 * It is a test peer, not the gateway: the real one is tested in system tests.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { PROTOCOL_VERSION, ServerFrameSchema, parseClientFrame } from '@ahp/protocol/wire';
import type { ClientFrame, HelloFrame, ServerFrameInput, WelcomeFrame } from '@ahp/protocol/wire';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';

export const TEST_TOKEN = 'test-token-0123456789abcdef';
export const TEST_AGENT = { id: 'agent-1', name: 'Test agent' } as const;

/** One client connection as the gateway sees it. */
export class GatewayPeer {
  readonly frames: ClientFrame[] = [];
  hello: HelloFrame | undefined;
  sessionId: string | undefined;
  /** The close code the client sent (or 1006), once closed. */
  closeCode: number | undefined;
  readonly closed: Promise<number>;

  constructor(
    readonly socket: WebSocket,
    readonly authorization: string | undefined,
    readonly queryToken: string | null,
  ) {
    this.closed = new Promise((resolve) => {
      socket.on('close', (code) => {
        this.closeCode = code;
        resolve(code);
      });
    });
  }

  /** Sends a frame, checked against the protocol first so the tests never feed the client an invalid one by mistake. */
  send(frame: ServerFrameInput): void {
    this.sendRaw(JSON.stringify(ServerFrameSchema.parse(frame)));
  }

  /** Sends text as it is (for unreadable frames). */
  sendRaw(text: string): void {
    this.socket.send(text);
  }

  close(code: number, reason = ''): void {
    this.socket.close(code, reason);
  }

  /** Drops the TCP connection without a close frame: the client sees 1006. */
  terminate(): void {
    this.socket.terminate();
  }
}

export interface ScriptedGatewayOptions {
  /** @defaultValue {@link TEST_TOKEN} */
  token?: string;
  /** @defaultValue a name per instance */
  gatewayId?: string;
  /** @defaultValue 30_000 */
  heartbeatMs?: number;
  /** @defaultValue 16 */
  maxInFlight?: number;
  /** The welcome's `agent`. @defaultValue {@link TEST_AGENT} */
  agent?: WelcomeFrame['agent'];
  /** Answer hello with this instead of a welcome (e.g. close the socket). Return true when handled. */
  onHello?: (hello: HelloFrame, peer: GatewayPeer) => boolean;
  /** Runs right after the welcome is sent, in the same tick (e.g. to push at once). */
  afterWelcome?: (peer: GatewayPeer) => void;
}

/** The script: called for every valid client frame after `hello`. */
export type FrameScript = (frame: ClientFrame, peer: GatewayPeer, gateway: ScriptedGateway) => void;

let instances = 0;

export class ScriptedGateway {
  /** HTTP upgrade requests received, accepted or not. */
  upgrades = 0;
  readonly peers: GatewayPeer[] = [];
  readonly hellos: HelloFrame[] = [];
  /** Every valid frame after hello, across peers. */
  readonly frames: ClientFrame[] = [];
  /** Client frames that failed the protocol schema: a test expects none. */
  readonly invalid: string[] = [];
  script: FrameScript = () => undefined;
  readonly gatewayId: string;
  #sessions = 0;

  private constructor(
    readonly server: Server,
    readonly wss: WebSocketServer,
    readonly options: ScriptedGatewayOptions,
  ) {
    instances += 1;
    this.gatewayId = options.gatewayId ?? `gw-${instances}`;
  }

  static async start(options: ScriptedGatewayOptions = {}): Promise<ScriptedGateway> {
    const server = createServer((_request, response) => {
      response.writeHead(426).end();
    });
    const wss = new WebSocketServer({ noServer: true });
    const gateway = new ScriptedGateway(server, wss, options);
    server.on('upgrade', (request, socket, head) => gateway.#upgrade(request, socket, head));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return gateway;
  }

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `ws://127.0.0.1:${port}/v1/agents`;
  }

  /** Frames of one type, across peers. */
  framesOf<T extends ClientFrame['type']>(type: T): Extract<ClientFrame, { type: T }>[] {
    return this.frames.filter((frame): frame is Extract<ClientFrame, { type: T }> => frame.type === type);
  }

  /** The peer that is currently connected (the last one), if any. */
  get current(): GatewayPeer | undefined {
    return this.peers.at(-1);
  }

  async stop(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  #upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.upgrades += 1;
    const token = this.options.token ?? TEST_TOKEN;
    const url = new URL(request.url ?? '/', 'http://localhost');
    const authorization = request.headers.authorization;
    const queryToken = url.searchParams.get('token');
    const presented = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : queryToken;
    if (url.pathname !== '/v1/agents' || presented !== token) {
      // Refuse before any socket exists, as the real gateway does.
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      const peer = new GatewayPeer(ws, authorization, queryToken);
      this.peers.push(peer);
      ws.on('message', (data, isBinary) => {
        const text = isBinary ? '' : data.toString();
        const parsed = parseClientFrame(text);
        if (!parsed.ok) {
          this.invalid.push(`${parsed.error.code}: ${parsed.error.message}`);
          return;
        }
        const frame = parsed.frame;
        if (frame.type === 'hello') {
          this.#hello(frame, peer);
          return;
        }
        peer.frames.push(frame);
        this.frames.push(frame);
        this.script(frame, peer, this);
      });
    });
  }

  #hello(hello: HelloFrame, peer: GatewayPeer): void {
    peer.hello = hello;
    this.hellos.push(hello);
    if (this.options.onHello?.(hello, peer) === true) return;
    this.#sessions += 1;
    const sessionId = hello.session_id ?? `${this.gatewayId}-session-${this.#sessions}`;
    peer.sessionId = sessionId;
    peer.send({
      type: 'welcome',
      id: hello.id,
      protocol: PROTOCOL_VERSION,
      session_id: sessionId,
      resumed: hello.session_id !== undefined,
      agent: { ...(this.options.agent ?? TEST_AGENT) },
      gateway_id: this.gatewayId,
      heartbeat_ms: this.options.heartbeatMs ?? 30_000,
      limits: {
        max_frame_bytes: 1024 * 1024,
        max_in_flight: this.options.maxInFlight ?? 16,
        hook_deadline_ms: 30_000,
        max_hook_deadline_ms: 15 * 60 * 1000,
      },
    });
    this.options.afterWelcome?.(peer);
  }
}

/** Polls `probe` until it returns something other than undefined/false; fails after `timeoutMs`. */
export async function eventually<T>(probe: () => T | undefined | false, what: string, timeoutMs = 5_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
