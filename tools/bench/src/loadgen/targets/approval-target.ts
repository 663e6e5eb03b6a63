/**
 * Approval across gateways: an agent connected to gateway A opens a tool approval for operators;
 * an operator approves it through gateway B's operator API; the agent waits for the
 * `request_update` saying it was approved. Operation `i` opens request `i` and reports, as its
 * latency, the time from the operator's call to the agent receiving the update.
 */
import { createHash, randomUUID } from 'node:crypto';
import { PROTOCOL_VERSION } from '@ahp/protocol';
import WebSocket from 'ws';
import type { AgentLogin, OpenReport } from '../protocol.js';
import { codedError, withTimeout, type LoadTarget } from './target.js';

/** How long the agent waits for the update after the operator's call. */
const UPDATE_TIMEOUT_MS = 10_000;

interface Frame {
  type?: string;
  id?: string;
  error?: { code?: string; message?: string };
  request?: { request_id?: string; status?: string };
}

/** One agent socket that hands each received frame to whoever waits for a matching one. */
class AgentSocket {
  readonly #waiters: { match: (frame: Frame) => boolean; resolve: (frame: Frame) => void }[] = [];

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Frame;
      const index = this.#waiters.findIndex((waiter) => waiter.match(frame));
      if (index >= 0) this.#waiters.splice(index, 1)[0]?.resolve(frame);
    });
  }

  static async connect(url: string, token: string): Promise<AgentSocket> {
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` }, perMessageDeflate: false });
    ws.on('error', () => undefined); // after the upgrade, a failed socket shows as an unanswered frame
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_request, response) => reject(codedError(`HTTP_${response.statusCode ?? 0}`, 'upgrade refused')));
    });
    const socket = new AgentSocket(ws);
    const welcome = await socket.send({ type: 'hello', id: randomUUID(), protocol: PROTOCOL_VERSION, client: { name: 'ahp-bench-approvals', version: '0.1.0' } });
    if (welcome.type !== 'welcome') throw codedError(welcome.error?.code ?? 'E_HANDSHAKE', 'hello not welcomed');
    return socket;
  }

  /** The first frame from now on that matches; rejects with E_TIMEOUT (and stops waiting) after `timeoutMs`. */
  next(match: (frame: Frame) => boolean, timeoutMs = UPDATE_TIMEOUT_MS): Promise<Frame> {
    const waiter = { match, resolve: (_frame: Frame) => {} };
    const found = new Promise<Frame>((resolve) => {
      waiter.resolve = resolve;
      this.#waiters.push(waiter);
    });
    return withTimeout(found, timeoutMs, 'E_TIMEOUT', () => {
      const index = this.#waiters.indexOf(waiter);
      if (index >= 0) this.#waiters.splice(index, 1);
    });
  }

  /** Sends a frame with an `id` and resolves with the reply to it. */
  send(frame: { id: string } & Record<string, unknown>): Promise<Frame> {
    const reply = this.next((candidate) => candidate.id === frame.id);
    this.ws.send(JSON.stringify(frame));
    return reply;
  }

  close(): void {
    this.ws.terminate();
  }
}

/** Where the agent and the operator connect. */
export interface ApprovalTargetOptions {
  /** Gateway A's agent endpoint. */
  agentUrl: string;
  login: AgentLogin;
  /** Gateway B's HTTP base URL (`http://127.0.0.1:<port>`). */
  operatorUrl: string;
  operatorToken: string;
}

/**
 * Connects the agent and checks, before anything is measured, that both halves of the feature
 * answer: the operator API knows the operator, and gateway A accepts a `request` frame. When one
 * of them does not, the report says so (`failed: 1`) and every operation fails.
 */
export async function openApprovalTarget(options: ApprovalTargetOptions): Promise<LoadTarget> {
  const agent = await AgentSocket.connect(options.agentUrl, options.login.token);
  const authorization = `Bearer ${options.operatorToken}`;

  async function openRequest(index: number): Promise<string> {
    const requestId = `req_${randomUUID()}`;
    const input = { command: `kubectl rollout restart deployment/billing-${index}` };
    const reply = await agent.send({
      type: 'request',
      id: randomUUID(),
      request: {
        request_id: requestId,
        type: 'tool_approval',
        target: { kind: 'operators' },
        payload: { tool: 'Bash', input, input_digest: createHash('sha256').update(JSON.stringify(input)).digest('hex') },
      },
    });
    if (reply.type !== 'ack') throw codedError(reply.error?.code ?? `unexpected:${reply.type ?? '?'}`, reply.error?.message ?? 'request not acknowledged');
    return requestId;
  }

  async function approve(index: number): Promise<{ latencyMs: number }> {
    const requestId = await openRequest(index);
    const approved = agent.next((frame) => frame.type === 'request_update' && frame.request?.request_id === requestId && frame.request.status === 'approved');
    approved.catch(() => undefined); // awaited below; this only keeps an early failure from leaving it unhandled
    const started = performance.now();
    const response = await fetch(`${options.operatorUrl}/v1/operator/requests/${requestId}/decision`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ approve: true }),
    });
    if (!response.ok) throw codedError(`HTTP_${response.status}`, (await response.text()).slice(0, 200));
    await approved;
    return { latencyMs: performance.now() - started };
  }

  let report: OpenReport = { connections: 1, failed: 0, failures: [] };
  const me = await fetch(`${options.operatorUrl}/v1/operator/me`, { headers: { authorization } });
  if (me.status !== 200) {
    report = { connections: 1, failed: 1, failures: [`gateway B's operator API answered GET /v1/operator/me with HTTP ${me.status}`] };
  } else {
    await approve(0).catch((error: unknown) => {
      report = { connections: 1, failed: 1, failures: [`a tool approval could not be opened and approved: ${(error as { code?: string }).code ?? ''} ${(error as Error).message}`] };
    });
  }
  return {
    report,
    op: approve,
    close: async () => agent.close(),
  };
}
