/**
 * The gateway's connections to the upstream MCP servers of `AHP_MCP_CONFIG_FILE`, one MCP client
 * (the official SDK's) per server and gateway process, opened on first use.
 *
 * A connection is a cache, not state: it carries no session the client knows about (the client's
 * requests are routed on their own, to any gateway), so a gateway that dies loses nothing but the
 * connection, and any other gateway opens its own. A connection that fails is dropped and opened
 * again by the next call. Stdio servers are launched by each gateway process that uses them, and
 * stopped with it.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '@ahp/protocol';
import type { JsonLogger } from '../logging/json-logger.js';
import { clientSdk } from './mcp-sdk.js';

/** Why an upstream call produced no result. */
export class UpstreamError extends Error {
  constructor(
    readonly kind: 'timeout' | 'unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** How the gateway introduces itself to upstream servers. */
const CLIENT_INFO = { name: 'ahp-mcp-gateway', version: '0.1.0' };

interface Connection {
  /** The connected client, once the SDK is loaded and the upstream answered `initialize`. */
  readonly ready: Promise<Client>;
}

/** The upstream connections of one gateway process. */
export class McpUpstreams {
  private readonly connections = new Map<string, Connection>();
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
   * @throws UpstreamError when no result arrives within `timeoutMs` or the upstream fails.
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
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.allSettled(all.map(async (connection) => (await connection.ready).close()));
  }

  /** Runs `work` on the server's connection, all of it (connecting included) bounded by `timeoutMs`. */
  private async withConnection<T>(server: McpServerConfig, timeoutMs: number, work: (client: Client, signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.closed) throw new UpstreamError('unavailable', 'the gateway is shutting down');
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new UpstreamError('timeout', `the upstream server "${server.id}" did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref();
    });
    const connection = this.connection(server);
    try {
      return await Promise.race([
        (async () => work(await connection.ready, controller.signal))(),
        deadline,
      ]);
    } catch (error) {
      if (error instanceof UpstreamError) throw error;
      if (isTimeout(error)) throw new UpstreamError('timeout', `the upstream server "${server.id}" did not answer within ${timeoutMs} ms`);
      // The connection may be broken (a restarted server, a dead child): the next call opens a new one.
      this.drop(server.id, connection);
      this.log.warn({ server: server.id, error }, 'MCP upstream call failed');
      throw new UpstreamError('unavailable', `the upstream server "${server.id}" failed: ${error instanceof Error ? error.message.slice(0, 300) : 'unknown error'}`);
    } finally {
      clearTimeout(timer);
    }
  }

  private connection(server: McpServerConfig): Connection {
    const existing = this.connections.get(server.id);
    if (existing !== undefined) return existing;
    const connection: Connection = { ready: this.open(server, () => this.drop(server.id, connection)) };
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

  private drop(serverId: string, connection: Connection): void {
    if (this.connections.get(serverId) !== connection) return;
    this.connections.delete(serverId);
    void connection.ready.then((client) => client.close()).catch(() => undefined);
  }
}

/** Whether the SDK gave up waiting (its own request timeout, or our abort). */
function isTimeout(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === 'AbortError' || /timed out|timeout/i.test(error.message) || (error as { code?: unknown }).code === -32001;
}
