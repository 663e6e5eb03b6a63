/**
 * The AHP MCP server over Streamable HTTP, for MCP clients that connect to a URL. The endpoint
 * acts as the AHP agent whose token it holds, so it lends that identity to whoever may call it:
 * a caller must present the same agent token (`Authorization: Bearer …`, compared by digest in
 * constant time), it listens on 127.0.0.1 unless told otherwise, and Host headers other than the
 * ones it listens under are refused (DNS rebinding). Each MCP session gets its own server (its own
 * remembered approvals and plans) over the one AHP connection.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createAhpMcpServer, type AhpMcpServerOptions } from './server.js';

/** At most this many MCP sessions at once: a caller with the token cannot exhaust the process. */
const MAX_SESSIONS = 32;

export interface AhpMcpHttpOptions extends AhpMcpServerOptions {
  /** The agent token callers must present (the one the AHP client connected with). */
  token: string;
  /** @defaultValue "127.0.0.1" */
  host?: string;
  /** 0 picks a free port. @defaultValue 0 */
  port?: number;
}

export interface AhpMcpHttpServer {
  /** The MCP endpoint, `http://<host>:<port>/mcp`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the HTTP endpoint; resolves once it listens. */
export async function serveAhpMcpHttp(options: AhpMcpHttpOptions): Promise<AhpMcpHttpServer> {
  const expected = digest(options.token);
  const host = options.host ?? '127.0.0.1';
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let allowedHosts: string[] = [];

  const authorized = (request: IncomingMessage): boolean => {
    const header = request.headers.authorization ?? '';
    const presented = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    return timingSafeEqual(digest(presented), expected);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path !== '/mcp') return reply(response, 404, 'not found');
    if (!authorized(request)) return reply(response, 401, 'unauthorized: present the agent token as a bearer token');
    const sessionId = request.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (known !== undefined) return known.handleRequest(request, response);
    if (typeof sessionId === 'string') return reply(response, 404, 'unknown MCP session');
    if (request.method !== 'POST') return reply(response, 400, 'start a session with an initialize request');
    if (sessions.size >= MAX_SESSIONS) return reply(response, 503, 'too many MCP sessions');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: true,
      allowedHosts,
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await createAhpMcpServer(options).connect(transport);
    // The transport refuses anything but an initialize request without a session.
    await transport.handleRequest(request, response);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) reply(response, 500, error instanceof Error ? error.message : 'internal error');
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  allowedHosts = [`${host}:${String(port)}`, ...(host === '127.0.0.1' ? [`localhost:${String(port)}`] : [])];
  return {
    url: `http://${host}:${String(port)}/mcp`,
    close: async () => {
      await Promise.allSettled([...sessions.values()].map((transport) => transport.close()));
      sessions.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function reply(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: message }));
}
