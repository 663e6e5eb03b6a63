/**
 * Many agents on raw WebSockets, for the connection phases: tens of thousands of authenticated,
 * welcomed connections held open (answering the gateway's pings, as `ws` does by itself), and a
 * hook frame sent on any of them (operation `i` on connection `i mod n`). The SDK would cost the
 * load generator far more per connection; on the wire the gateway cannot tell the difference.
 * Like a well-behaved agent, each answers the block and control signals it must answer (a session
 * that leaves one unanswered past its grace gets its next hook refused, and at one hook a minute
 * every such agent would).
 */
import { randomUUID } from 'node:crypto';
import { PROTOCOL_VERSION, actionsForIntensity, mustAnswer, type HookDecision } from '@ahp/protocol';
import WebSocket from 'ws';
import { BENCH_TRIGGER, hookEvents } from '../../workload/hook-events.js';
import type { AgentLogin, OpenReport } from '../protocol.js';
import { checkDecision } from './outcome.js';
import { codedError, withTimeout, type LoadTarget } from './target.js';

const EVENTS = hookEvents(10_000);
const HANDSHAKE_TIMEOUT_MS = 30_000;
const HOOK_TIMEOUT_MS = 30_000;

interface Waiter {
  resolve: (decision: HookDecision) => void;
  reject: (error: Error) => void;
}

/** One welcomed agent connection. */
class RawAgent {
  readonly #waiting = new Map<string, Waiter>();
  open = true;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => this.#onFrame(String(data)));
    ws.on('close', () => {
      this.open = false;
      const error = codedError('E_CLOSED', 'connection closed');
      for (const waiter of this.#waiting.values()) waiter.reject(error);
      this.#waiting.clear();
    });
  }

  /** Upgrades with the bearer token, says hello and resolves once welcomed. */
  static async connect(url: string, token: string, localAddress: string | undefined): Promise<RawAgent> {
    const ws = new WebSocket(url, {
      headers: { authorization: `Bearer ${token}` },
      perMessageDeflate: false,
      ...(localAddress === undefined ? {} : { localAddress }),
    });
    ws.on('error', () => undefined); // failures show as a rejected handshake or a closed connection
    const welcomed = new Promise<void>((resolve, reject) => {
      ws.once('open', () => {
        ws.send(JSON.stringify({ type: 'hello', id: randomUUID(), protocol: PROTOCOL_VERSION, client: { name: 'ahp-bench-raw', version: '0.1.0' } }));
      });
      ws.on('message', function first(data) {
        const frame = JSON.parse(String(data)) as { type?: string; error?: { code?: string; message?: string } };
        if (frame.type === 'welcome') {
          ws.off('message', first);
          resolve();
        } else if (frame.type === 'error') {
          reject(codedError(frame.error?.code ?? 'error', frame.error?.message ?? 'hello refused'));
        }
      });
      ws.once('close', (code) => reject(codedError('E_CLOSED', `closed with ${code} before welcome`)));
      ws.once('unexpected-response', (_request, response) => reject(codedError(`HTTP_${response.statusCode ?? 0}`, 'upgrade refused')));
    });
    try {
      await withTimeout(welcomed, HANDSHAKE_TIMEOUT_MS, 'E_TIMEOUT', () => ws.terminate());
    } catch (error) {
      ws.terminate();
      throw error;
    }
    return new RawAgent(ws);
  }

  hook(index: number): Promise<HookDecision> {
    if (!this.open) return Promise.reject(codedError('E_CLOSED', 'connection closed'));
    const id = randomUUID();
    const event = EVENTS[index % EVENTS.length] as (typeof EVENTS)[number];
    const decision = new Promise<HookDecision>((resolve, reject) => this.#waiting.set(id, { resolve, reject }));
    this.ws.send(JSON.stringify({ type: 'hook', id, trigger: BENCH_TRIGGER, context: event.context }));
    return withTimeout(decision, HOOK_TIMEOUT_MS, 'E_TIMEOUT', () => this.#waiting.delete(id)).then((result) => {
      checkDecision(result, event.expected);
      this.#answer(result);
      return result;
    });
  }

  close(): void {
    this.ws.terminate();
  }

  /** Answers the signals the agent must answer, with the first action their intensity allows (the ack is not awaited). */
  #answer(decision: HookDecision): void {
    for (const signal of decision.signals) {
      if (!mustAnswer(signal) || !this.open) continue;
      const action = actionsForIntensity(signal.header.intensity)[0];
      if (action === undefined) continue;
      this.ws.send(JSON.stringify({ type: 'signal_response', id: randomUUID(), response: { signal_id: signal.header.id, consumed_at: new Date().toISOString(), action } }));
    }
  }

  #onFrame(text: string): void {
    const frame = JSON.parse(text) as { type?: string; id?: string; decision?: HookDecision; error?: { code?: string; message?: string } };
    if (frame.id === undefined) return;
    const waiter = this.#waiting.get(frame.id);
    if (waiter === undefined) return;
    this.#waiting.delete(frame.id);
    if (frame.type === 'decision' && frame.decision !== undefined) waiter.resolve(frame.decision);
    else waiter.reject(codedError(frame.error?.code ?? `unexpected:${frame.type ?? '?'}`, frame.error?.message ?? 'not a decision'));
  }
}

/** The growing set of raw agents. */
export class RawAgentsTarget implements LoadTarget {
  readonly #agents: RawAgent[] = [];
  report: OpenReport = { connections: 0, failed: 0, failures: [] };

  constructor(private readonly url: string) {}

  /** Connects `logins` (in addition to those connected), at most `parallel` handshakes at once. */
  async grow(logins: readonly AgentLogin[], parallel: number, localAddresses: readonly string[]): Promise<OpenReport> {
    const failures: string[] = [];
    let failed = 0;
    let next = 0;
    const worker = async () => {
      while (next < logins.length) {
        const login = logins[next++] as AgentLogin;
        const address = localAddresses.length === 0 ? undefined : localAddresses[this.#agents.length % localAddresses.length];
        try {
          this.#agents.push(await RawAgent.connect(this.url, login.token, address));
        } catch (error) {
          failed += 1;
          if (failures.length < 3) failures.push(`${(error as { code?: string }).code ?? 'error'}: ${(error as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, parallel) }, worker));
    this.report = { connections: this.#agents.filter((agent) => agent.open).length, failed, failures };
    return this.report;
  }

  op(index: number): Promise<unknown> {
    if (this.#agents.length === 0) return Promise.reject(codedError('E_CLOSED', 'no connection'));
    return (this.#agents[index % this.#agents.length] as RawAgent).hook(index);
  }

  async close(): Promise<void> {
    for (const agent of this.#agents.splice(0)) agent.close();
  }
}
