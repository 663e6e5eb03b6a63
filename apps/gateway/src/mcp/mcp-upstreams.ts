/**
 * The gateway's connections to the upstream MCP servers of `AHP_MCP_CONFIG_FILE`, one MCP client
 * (the official SDK's) per server and gateway process, opened on first use.
 *
 * A connection is a cache, not state: it carries no session the client knows about (the client's
 * requests are routed on their own, to any gateway), so a gateway that dies loses nothing but the
 * connection, and any other gateway opens its own. Stdio servers are launched by each gateway
 * process that uses them, and stopped with it.
 *
 * The connection is shared by every agent calling that server through this process, so what one
 * call does to it, every call feels. Only a failure of the connection itself replaces it: the
 * transport closed (the child exited, the server went away — the SDK reports that and the
 * connection is dropped at once) or a request that could not be sent or read (a refused or broken
 * HTTP request, a pipe that broke). Then the next call opens a new connection and the old one is
 * closed once the calls still running on it have ended, so another agent's call is not cut short
 * by a failure that was not its own. An answer the upstream sent — a JSON-RPC error for an unknown
 * tool or bad arguments, a result that is not a valid tool result — is the calling agent's
 * outcome alone: the connection stays, and nothing else is disturbed.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, ErrorCode, ListToolsResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '@ahp/protocol';
import type { JsonLogger } from '../logging/json-logger.js';
import { clientSdk } from './mcp-sdk.js';

/**
 * Why an upstream call produced no result: `timeout` (no answer in time), `unavailable` (no
 * connection, or it failed), `error_response` (the upstream answered with a JSON-RPC error;
 * `code` is its code), `invalid_result` (the answer is not a valid result).
 */
export class UpstreamError extends Error {
  constructor(
    readonly kind: 'timeout' | 'unavailable' | 'error_response' | 'invalid_result',
    message: string,
    readonly code?: number,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** How long an upstream's error message may be when it is passed on (an upstream's text, unbounded otherwise). */
const MAX_UPSTREAM_MESSAGE = 4096;

/** How the gateway introduces itself to upstream servers. */
const CLIENT_INFO = { name: 'ahp-mcp-gateway', version: '0.1.0' };

interface Connection {
  /** The connected client, once the SDK is loaded and the upstream answered `initialize`. */
  readonly ready: Promise<Client>;
  /** Calls running on it now. */
  inFlight: number;
  /** `retired`: replaced after a failure, closed when its last call ends. */
  state: 'open' | 'retired' | 'closed';
}

/** The upstream connections of one gateway process. */
export class McpUpstreams {
  /** The connection each server's new calls use. */
  private readonly connections = new Map<string, Connection>();
  /** Every connection not closed yet, retired ones included (closed with the gateway). */
  private readonly live = new Set<Connection>();
  private closed = false;

  constructor(private readonly log: JsonLogger) {}

  /** The upstream's tools (one page; `cursor` as the client sent it), within `timeoutMs`. */
  async listTools(server: McpServerConfig, cursor: string | undefined, timeoutMs: number): Promise<ListToolsResult> {
    const { ListToolsResultSchema } = await clientSdk();
    return this.withConnection(server, timeoutMs, (client, signal) =>
      client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ListToolsResultSchema, { signal, timeout: timeoutMs }),
    );
  }

  /**
   * Calls `tool` with `args`; the result as the upstream sent it (a tool error is a result too).
   * The raw request is used rather than the SDK's `callTool`, which would check the result against
   * an output schema the gateway never listed: the result is the upstream's to shape.
   * @throws UpstreamError when no result arrives within `timeoutMs`, the upstream fails, or it
   *   answers with a JSON-RPC error (`error_response`) or an invalid result (`invalid_result`).
   */
  async callTool(server: McpServerConfig, tool: string, args: Record<string, unknown>, timeoutMs: number): Promise<CallToolResult> {
    const { CallToolResultSchema } = await clientSdk();
    return this.withConnection(server, timeoutMs, (client, signal) =>
      client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, CallToolResultSchema, { signal, timeout: timeoutMs }),
    );
  }

  /** Closes every connection (stdio servers are stopped). */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.live];
    this.connections.clear();
    this.live.clear();
    await Promise.allSettled(all.map(async (connection) => (await connection.ready).close()));
  }

  /** Runs `work` on the server's connection, all of it (connecting included) bounded by `timeoutMs`. */
  private async withConnection<T>(server: McpServerConfig, timeoutMs: number, work: (client: Client, signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.closed) throw new UpstreamError('unavailable', 'the gateway is shutting down');
    const sdk = await clientSdk();
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = () => new UpstreamError('timeout', `the upstream server "${server.id}" did not answer within ${timeoutMs} ms`);
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(timeout());
      }, timeoutMs);
      timer.unref();
    });
    const connection = this.connection(server);
    connection.inFlight += 1;
    let connected = false;
    try {
      return await Promise.race([
        (async () => {
          const client = await connection.ready;
          connected = true;
          return work(client, controller.signal);
        })(),
        deadline,
      ]);
    } catch (error) {
      if (error instanceof UpstreamError) throw error;
      const failure = classifyFailure(error, sdk);
      if (failure === 'timeout') throw timeout();
      const message = error instanceof Error ? error.message.slice(0, MAX_UPSTREAM_MESSAGE) : 'unknown error';
      // A connection that could not be opened is dropped by `connection()` already.
      if (!connected) throw new UpstreamError('unavailable', `the upstream server "${server.id}" cannot be reached: ${message.slice(0, 300)}`);
      if (failure === 'error_response') {
        const code = (error as McpError).code;
        this.log.debug({ server: server.id, code }, 'MCP upstream answered with an error');
        throw new UpstreamError('error_response', message, code);
      }
      if (failure === 'invalid_result') {
        this.log.warn({ server: server.id, error }, 'MCP upstream answered with an invalid result');
        throw new UpstreamError('invalid_result', `the upstream server "${server.id}" answered with something that is not a valid result`);
      }
      // The connection itself failed (closed, or a request that could not be sent or read): the next call opens a new one.
      if (failure === 'transport') this.retire(server.id, connection);
      this.log.warn({ server: server.id, error, failure }, 'MCP upstream connection failed');
      throw new UpstreamError('unavailable', `the upstream server "${server.id}" failed: ${message.slice(0, 300)}`);
    } finally {
      clearTimeout(timer);
      connection.inFlight -= 1;
      if (connection.state === 'retired' && connection.inFlight === 0) this.closeConnection(connection);
    }
  }

  private connection(server: McpServerConfig): Connection {
    const existing = this.connections.get(server.id);
    if (existing !== undefined) return existing;
    const connection: Connection = { ready: this.open(server, () => this.drop(server.id, connection)), inFlight: 0, state: 'open' };
    this.live.add(connection);
    connection.ready.catch(() => this.drop(server.id, connection));
    this.connections.set(server.id, connection);
    return connection;
  }

  /** A new client connected to `server`; `onClose` runs when the connection ends. */
  private async open(server: McpServerConfig, onClose: () => void): Promise<Client> {
    const sdk = await clientSdk();
    const client = new sdk.Client(CLIENT_INFO, { capabilities: {} });
    const upstream = server.upstream;
    const transport =
      'url' in upstream
        ? new sdk.StreamableHTTPClientTransport(new URL(upstream.url), { requestInit: { headers: { ...(upstream.headers ?? {}) } } })
        : new sdk.StdioClientTransport({
            command: upstream.command,
            args: upstream.args ?? [],
            // Only the SDK's safe defaults and what the file names: the gateway's own secrets (Redis URL, tokens) stay out.
            env: { ...sdk.getDefaultEnvironment(), ...(upstream.env ?? {}) },
            ...(upstream.cwd === undefined ? {} : { cwd: upstream.cwd }),
            stderr: 'ignore',
          });
    client.onclose = onClose;
    try {
      await client.connect(transport);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    return client;
  }

  /** The connection ended (or never opened): forgotten and closed now (its calls have failed already). */
  private drop(serverId: string, connection: Connection): void {
    if (this.connections.get(serverId) === connection) this.connections.delete(serverId);
    this.closeConnection(connection);
  }

  /** A request on the connection failed: new calls get a new one; this one is closed when its last call ends. */
  private retire(serverId: string, connection: Connection): void {
    if (this.connections.get(serverId) === connection) this.connections.delete(serverId);
    if (connection.state !== 'open') return;
    connection.state = 'retired';
    if (connection.inFlight === 0) this.closeConnection(connection);
  }

  private closeConnection(connection: Connection): void {
    if (connection.state === 'closed') return;
    connection.state = 'closed';
    this.live.delete(connection);
    void connection.ready.then((client) => client.close()).catch(() => undefined);
  }
}

/**
 * What an upstream request's error says about the connection it ran on:
 * - `timeout`: the SDK gave up waiting (its request timeout, or our abort);
 * - `closed`: the transport closed under the request (the SDK's own "Connection closed"; the
 *   connection's `onclose` has dropped it already);
 * - `error_response`: the upstream answered with a JSON-RPC error — its answer, the connection is fine;
 * - `invalid_result`: it answered with a result the SDK's schema refused — the same;
 * - `transport`: anything else: the request could not be sent or its answer not read.
 *
 * The SDK reports the upstream's JSON-RPC errors and its own closed-connection error with one
 * class; they differ by code, and an upstream can send any code, so an answer that borrows the
 * closed code is `closed` here but drops nothing: only `onclose` and `transport` replace a connection.
 */
export function classifyFailure(
  error: unknown,
  sdk: { McpError: typeof McpError; ErrorCode: typeof ErrorCode },
): 'timeout' | 'closed' | 'error_response' | 'invalid_result' | 'transport' {
  if (!(error instanceof Error)) return 'transport';
  if (error.name === 'AbortError') return 'timeout';
  if (error instanceof sdk.McpError) {
    if (error.code === (sdk.ErrorCode.RequestTimeout as number)) return 'timeout';
    if (error.code === (sdk.ErrorCode.ConnectionClosed as number)) return 'closed';
    return 'error_response';
  }
  if (error.name === 'ZodError') return 'invalid_result';
  return 'transport';
}
