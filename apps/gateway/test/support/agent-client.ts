/**
 * A bare `ws` client for integration specs: it speaks frames by hand (so specs can send anything,
 * including garbage), checks that every frame the gateway sends parses with the protocol's
 * server schemas, and lets a spec wait for the next frame that matches.
 */
import { randomUUID } from 'node:crypto';
import {
  PROTOCOL_VERSION,
  parseServerFrame,
  type ClientFrameInput,
  type DecisionFrame,
  type ErrorFrame,
  type ServerFrame,
  type WelcomeFrame,
} from '@ahp/protocol';
import WebSocket from 'ws';

export interface ConnectOptions {
  token?: string;
  /** Where the token goes. @defaultValue `'header'` */
  via?: 'header' | 'query';
  /** ws client option: answer pings automatically. @defaultValue `true` */
  autoPong?: boolean;
}

/** Why an upgrade did not produce a socket: the HTTP status the gateway answered with. */
export class UpgradeRefused extends Error {
  constructor(readonly status: number) {
    super(`upgrade refused with HTTP ${status}`);
  }
}

function urlWithToken(url: string, options: ConnectOptions): string {
  if (options.token === undefined || options.via !== 'query') return url;
  return `${url}?token=${encodeURIComponent(options.token)}`;
}

/** Opens a socket, or rejects with {@link UpgradeRefused} when the gateway answers the upgrade with an HTTP status. */
export function connectAgent(url: string, options: ConnectOptions = {}): Promise<AgentClient> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined && (options.via ?? 'header') === 'header') headers['authorization'] = `Bearer ${options.token}`;
  const ws = new WebSocket(urlWithToken(url, options), { headers, autoPong: options.autoPong ?? true });
  const client = new AgentClient(ws);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_request, response) => {
      response.resume();
      reject(new UpgradeRefused(response.statusCode ?? 0));
      ws.terminate();
    });
    ws.once('error', (error) => reject(error));
  });
}

/** Connects and completes the handshake. */
export async function connectReady(url: string, token: string, hello: Partial<ClientFrameInput & { type: 'hello' }> = {}): Promise<{ client: AgentClient; welcome: WelcomeFrame }> {
  const client = await connectAgent(url, { token });
  const welcome = await client.hello(hello);
  return { client, welcome };
}

type Waiter = { predicate: (frame: ServerFrame) => boolean; resolve: (frame: ServerFrame) => void };

/** A connected test client. */
export class AgentClient {
  /** Every frame received, in order (never consumed). */
  readonly received: ServerFrame[] = [];
  /** Text that did not parse as a server frame; a spec asserts it stays empty. */
  readonly invalid: string[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly inbox: ServerFrame[] = [];
  private waiters: Waiter[] = [];

  constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })));
    ws.on('error', () => undefined);
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? '' : data.toString();
      const parsed = parseServerFrame(text);
      if (!parsed.ok) {
        this.invalid.push(text);
        return;
      }
      this.received.push(parsed.frame);
      const index = this.waiters.findIndex((waiter) => waiter.predicate(parsed.frame));
      if (index >= 0) {
        const [waiter] = this.waiters.splice(index, 1);
        waiter!.resolve(parsed.frame);
      } else {
        this.inbox.push(parsed.frame);
      }
    });
  }

  /** The next frame (received or to come) that matches; each frame is handed out once. */
  next(predicate: (frame: ServerFrame) => boolean = () => true): Promise<ServerFrame> {
    const index = this.inbox.findIndex(predicate);
    if (index >= 0) return Promise.resolve(this.inbox.splice(index, 1)[0]!);
    return new Promise((resolve) => this.waiters.push({ predicate, resolve }));
  }

  /** The next reply to request `id` (`welcome`, `decision`, `ack` or `error`). */
  reply(id: string | null): Promise<ServerFrame> {
    return this.next((frame) => 'id' in frame && frame.id === id);
  }

  /** The next `error` frame with this id (null: errors about unreadable frames). */
  async error(id: string | null): Promise<ErrorFrame> {
    const frame = await this.next((f) => f.type === 'error' && f.id === id);
    return frame as ErrorFrame;
  }

  /** Sends a frame object as JSON text, or raw text / bytes as they are. */
  send(frame: ClientFrameInput | Record<string, unknown> | string | Buffer): void {
    if (typeof frame === 'string' || Buffer.isBuffer(frame)) this.ws.send(frame);
    else this.ws.send(JSON.stringify(frame));
  }

  /** Sends a frame and waits for its reply. */
  async request(frame: ClientFrameInput | (Record<string, unknown> & { id: string })): Promise<ServerFrame> {
    const reply = this.reply(frame.id as string);
    this.send(frame);
    return reply;
  }

  async hello(overrides: Record<string, unknown> = {}): Promise<WelcomeFrame> {
    const reply = await this.request({
      type: 'hello',
      id: `hello-${randomUUID()}`,
      protocol: PROTOCOL_VERSION,
      client: { name: 'gateway-int-spec', version: '0.0.0' },
      ...overrides,
    } as ClientFrameInput);
    if (reply.type !== 'welcome') throw new Error(`expected welcome, got ${JSON.stringify(reply)}`);
    return reply;
  }

  /** Sends a hook frame; returns its id and a promise of its reply. */
  hook(trigger: string, extra: Record<string, unknown> = {}): { id: string; reply: Promise<ServerFrame> } {
    const id = (extra['id'] as string | undefined) ?? randomUUID();
    const reply = this.reply(id);
    this.send({ type: 'hook', id, trigger, context: validContext(trigger), ...extra });
    return { id, reply };
  }

  /** Decision frames received for a hook id so far. */
  decisionsFor(hookId: string): DecisionFrame[] {
    return this.received.filter((frame): frame is DecisionFrame => frame.type === 'decision' && frame.id === hookId);
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    this.ws.close(1000);
    await this.closed;
  }
}

/** A context that fits `trigger`'s schema (docs/protocol.md, "Hook contexts"): a harmless tool call, a prompt, or nothing. */
export function validContext(trigger: string): Record<string, unknown> {
  if (trigger === 'pre-tool-use' || trigger === 'post-tool-use') return { tool: { name: 'Bash', input: { command: 'ls' } } };
  if (trigger === 'user-prompt-submit') return { prompt: 'hello' };
  return {};
}
