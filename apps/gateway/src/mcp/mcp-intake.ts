/**
 * `/v1/mcp/<server>`: the MCP gateway's Streamable HTTP endpoint, in the order that keeps what a
 * client can make the gateway spend proportional to what it is allowed:
 *
 * 1. the server must be configured (404 otherwise) and the bearer token valid — 401 with
 *    `WWW-Authenticate` before a byte of the body is read;
 * 2. a draining gateway answers 503 (retry elsewhere); only `POST` (405 otherwise): the gateway runs the SDK's stateless mode, so there is no
 *    standalone SSE stream to `GET` and no session to `DELETE`;
 * 3. a `Content-Encoding` other than identity is refused (415);
 * 4. one message is taken from the agent's rate-limit bucket (429 when empty);
 * 5. the body is kept up to `AHP_MAX_FRAME_BYTES` (413 beyond), its shape scanned
 *    ({@link measureJsonShape}) before `JSON.parse` (400), a batch holds at most
 *    {@link MCP_MAX_BATCH} messages, each after the first taking its own token;
 * 6. a fresh MCP server (the official SDK's, stateless Streamable HTTP, JSON responses) answers
 *    the request and is dropped: every request stands on its own, on any gateway instance.
 *
 * The HTTP refusals carry a JSON-RPC error body (id null) so an MCP client reports them; they
 * happen before any tool runs, so they fail closed by construction.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { FRAME_SHAPE_LIMITS, LIMITS, McpServerIdSchema, makeError, measureJsonShape, type AgentIdentity, type AhpError, type JsonObject } from '@ahp/protocol';
import { AgentAuthService } from '../auth/agent-auth.service.js';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { DrainState } from '../lifecycle/drain-state.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { httpStatusFor } from '../operator-api/api-error.js';
import { RateLimitsService } from '../rate-limit/rate-limits.service.js';
import { McpGatewayService } from './mcp-gateway.service.js';
import { MCP_REFUSED_CODE, rpcErrorData } from './mcp-results.js';
import { serverSdk } from './mcp-sdk.js';

/** Where the MCP gateway is mounted; a server is `/v1/mcp/<server id>`. */
export const MCP_BASE_PATH = '/v1/mcp';

/**
 * Most JSON-RPC messages in one POST. MCP 2025-06-18 dropped batches; clients of 2025-03-26 may
 * still send them, so a small batch is served and a large one refused before any of it runs.
 */
export const MCP_MAX_BATCH = 16;

/** Bytes of a refused body read and dropped so the client reads the answer; beyond, the connection is closed. */
const DISCARD_BYTES = 64 * 1024;

/**
 * Shape limits of a body: the frame limits, two levels deeper than the hook context (tool
 * arguments sit at `params.arguments`, one level below `tool.input`), so the scan never refuses
 * what the context check would accept.
 */
const BODY_SHAPE_LIMITS = Object.freeze({ ...FRAME_SHAPE_LIMITS, maxDepth: LIMITS.maxJsonDepth + 2, maxKeys: LIMITS.maxObjectKeys, maxElements: LIMITS.maxArrayLength });

/** The session label header: which of an agent's MCP sessions a request belongs to (docs/mcp-gateway.md). */
const SESSION_HEADER = 'x-ahp-session';
const SESSION_LABEL = /^[A-Za-z0-9._:-]{1,128}$/;

/** How the gateway introduces itself to MCP clients. */
const SERVER_INFO = { name: 'ahp-mcp-gateway', version: '0.1.0' };

type Next = (error?: unknown) => void;

/** See the module comment. Installed by `startGateway` ahead of Nest's body parser. */
@Injectable()
export class McpIntake {
  private readonly log: JsonLogger;

  constructor(
    @Inject(AgentAuthService) private readonly auth: AgentAuthService,
    @Inject(RateLimitsService) private readonly rateLimits: RateLimitsService,
    @Inject(McpGatewayService) private readonly mcp: McpGatewayService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(DrainState) private readonly drain: DrainState,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'mcp' });
  }

  /** The Express middleware (mounted at {@link MCP_BASE_PATH}: `request.url` is `/<server>`). */
  readonly middleware = (request: IncomingMessage, response: ServerResponse, _next: Next): void => {
    void this.serve(request, response).catch((error: unknown) => {
      this.log.error({ error }, 'MCP request failed');
      this.refuse(request, response, makeError('E_INTERNAL', 'the MCP request failed'), 500);
    });
  };

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').replace(/\?.*$/s, '').replace(/\/+$/, '').replace(/^\//, '');
    const serverId = McpServerIdSchema.safeParse(path);
    if (!this.mcp.enabled || !serverId.success || this.mcp.server(serverId.data) === undefined) {
      this.refuse(request, response, makeError('E_NOT_FOUND', this.mcp.enabled ? `no MCP server "${path.slice(0, 64)}" on this gateway` : 'the MCP gateway is not enabled on this gateway (AHP_MCP_CONFIG_FILE)'));
      return;
    }
    const auth = this.auth.authenticateRequest(request);
    if (!auth.ok) {
      this.refuse(request, response, makeError('E_UNAUTHORIZED', 'a valid agent token is required (Authorization: Bearer <token>)'), undefined, {
        'www-authenticate': 'Bearer realm="ahp-agents"',
      });
      return;
    }
    if (this.drain.draining) {
      // A transport error the client (or the load balancer) retries on another instance, rather
      // than a fail-closed block its model would read as the rules' answer.
      this.refuse(request, response, makeError('E_SHUTTING_DOWN', 'this gateway is shutting down; retry on another instance', undefined, { retryAfterMs: 1000 }));
      return;
    }
    if (request.method !== 'POST') {
      this.refuse(request, response, makeError('E_BAD_FRAME', 'this MCP endpoint is stateless: only POST (no SSE stream, no session)'), 405, { allow: 'POST' });
      return;
    }
    const encoding = (request.headers['content-encoding'] ?? '').trim().toLowerCase();
    if (encoding !== '' && encoding !== 'identity') {
      this.refuse(request, response, makeError('E_BAD_FRAME', `Content-Encoding "${encoding.slice(0, 64)}" is not accepted: send plain JSON`), 415, { 'accept-encoding': 'identity' });
      return;
    }
    const label = request.headers[SESSION_HEADER] ?? 'default';
    if (typeof label !== 'string' || !SESSION_LABEL.test(label)) {
      this.refuse(request, response, makeError('E_BAD_FRAME', `${SESSION_HEADER} must be 1-128 of letters, digits and . _ : -`), 400);
      return;
    }
    const agent = auth.agent.identity;
    const limited = await this.rateLimits.checkMcpMessage(agent.id);
    if (limited !== null) {
      this.refuse(request, response, limited);
      return;
    }
    const body = await this.readBody(request, response);
    if (body === undefined) return;
    const shape = measureJsonShape(body, BODY_SHAPE_LIMITS);
    if (!shape.ok) {
      this.sendJson(response, 400, rpcError(-32600, `the request is ${shape.message} (the hook context limits)`));
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      this.sendJson(response, 400, rpcError(-32700, 'the body is not JSON'));
      return;
    }
    if (Array.isArray(parsed)) {
      if (parsed.length === 0 || parsed.length > MCP_MAX_BATCH) {
        this.sendJson(response, 400, rpcError(-32600, `a batch holds 1 to ${MCP_MAX_BATCH} messages`));
        return;
      }
      for (let i = 1; i < parsed.length; i++) {
        const more = await this.rateLimits.checkMcpMessage(agent.id);
        if (more !== null) {
          this.refuse(request, response, more);
          return;
        }
      }
    }
    await this.answer(request, response, agent, label, serverId.data, parsed);
  }

  /** Step 6: one stateless SDK server for this request. */
  private async answer(request: IncomingMessage, response: ServerResponse, agent: AgentIdentity, label: string, serverId: string, body: unknown): Promise<void> {
    const { Server, StreamableHTTPServerTransport, CallToolRequestSchema, ListToolsRequestSchema } = await serverSdk();
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: {} },
      instructions: 'Tool calls through this server are governed by AHP: a refused call says why and how to resolve it; a call waiting for an approval is retried unchanged later.',
    });
    server.setRequestHandler(ListToolsRequestSchema, (req) => this.mcp.listTools(agent, serverId, req.params?.cursor));
    // The arguments came from JSON.parse of a body within the shape limits: plain JSON.
    server.setRequestHandler(CallToolRequestSchema, (req) => this.mcp.callTool(agent, label, serverId, req.params.name, (req.params.arguments ?? {}) as JsonObject));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  }

  /** The body as text, or undefined once a 413 was answered. */
  private readBody(request: IncomingMessage, response: ServerResponse): Promise<string | undefined> {
    const maxBytes = this.config.maxFrameBytes;
    return new Promise((resolve) => {
      const declared = Number(request.headers['content-length']);
      const tooLarge = (): void => {
        this.refuse(request, response, makeError('E_FRAME_TOO_LARGE', `the request is larger than ${maxBytes} bytes (AHP_MAX_FRAME_BYTES)`));
        resolve(undefined);
      };
      if (Number.isSafeInteger(declared) && declared > maxBytes) {
        tooLarge();
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      let done = false;
      const onData = (chunk: Buffer): void => {
        if (done) return;
        received += chunk.length;
        if (received > maxBytes) {
          done = true;
          request.off('data', onData);
          chunks.length = 0;
          tooLarge();
          return;
        }
        chunks.push(chunk);
      };
      request.on('data', onData);
      request.on('end', () => {
        if (done) return;
        done = true;
        resolve(Buffer.concat(chunks, received).toString('utf8'));
      });
      request.on('error', () => {
        if (done) return;
        done = true;
        resolve(undefined);
      });
    });
  }

  /** Answers `error` (JSON-RPC error body) and drops the rest of the body, up to {@link DISCARD_BYTES}. */
  private refuse(request: IncomingMessage, response: ServerResponse, error: AhpError, status = httpStatusFor(error.code), headers: OutgoingHttpHeaders = {}): void {
    const retry = error.retry_after_ms === undefined ? {} : { 'retry-after': String(Math.ceil(error.retry_after_ms / 1000)) };
    // A body not read to its end may be cut off below (the socket destroyed): the client must not
    // send its next request on this connection, or it would meet the reset.
    const closing = request.complete ? {} : { connection: 'close' };
    this.sendJson(response, status, rpcError(MCP_REFUSED_CODE, error.message, error), { ...retry, ...closing, ...headers });
    let read = 0;
    request.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > DISCARD_BYTES) request.socket.destroy();
    });
    request.on('error', () => undefined);
    request.resume();
  }

  private sendJson(response: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
    if (response.headersSent) return;
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
    response.end(JSON.stringify(body));
  }
}

/** A JSON-RPC error response without an id (the request was not read, or not valid). */
function rpcError(code: number, message: string, error?: AhpError): JsonObject {
  return { jsonrpc: '2.0', id: null, error: { code, message, ...(error === undefined ? {} : { data: rpcErrorData(error) }) } };
}
