/**
 * The worker's only HTTP surface: `GET /metrics` for Prometheus and `GET /healthz` for container
 * health checks, on `AHP_WORKER_METRICS_PORT`. A bare `node:http` server: two routes do not need
 * a framework, and the worker has no other reason to speak HTTP.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What `/healthz` reports: 200 when `ok`, 503 otherwise, with the body as JSON. */
export interface WorkerHealth {
  readonly ok: boolean;
  readonly body: Readonly<Record<string, unknown>>;
}

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions {
  /** 0 picks a free port (see {@link MetricsServer.port}). */
  readonly port: number;
  readonly host: string;
  /** Bearer token `/metrics` requires; undefined: open. `/healthz` is always open. */
  readonly token?: string | undefined;
  /** Renders the exposition text. */
  readonly metrics: () => Promise<{ contentType: string; body: string }>;
  readonly health: () => WorkerHealth;
  /** Told when rendering the metrics failed (the scrape gets a 500). */
  readonly onError?: (error: unknown) => void;
}

/** A listening metrics server. */
export interface MetricsServer {
  /** The port listened on (the one picked when asked for 0). */
  readonly port: number;
  /** Stops listening and drops open connections (keep-alive scrapers). Idempotent. */
  close(): Promise<void>;
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Whether an `Authorization` header carries `Bearer <expected>`, compared as digests in constant time. */
export function bearerTokenMatches(header: string | undefined, expected: string): boolean {
  const token = header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  return token !== undefined && timingSafeEqual(digest(token), digest(expected));
}

function send(response: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
  response.end(body);
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** An error body in the shape every AHP HTTP surface answers with. */
function errorBody(code: string, message: string, retryable = false): string {
  return JSON.stringify({ error: { code, message, retryable } });
}

/**
 * Starts the server and resolves once it listens; rejects when it cannot (a port in use), so the
 * worker stops at start rather than running unobservable.
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' && path !== '/healthz') {
      send(response, 404, JSON_TYPE, errorBody('E_NOT_FOUND', 'this server has GET /metrics and GET /healthz'));
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      send(response, 405, JSON_TYPE, errorBody('E_BAD_FRAME', `${path} answers GET only`), { allow: 'GET, HEAD' });
      return;
    }
    if (path === '/healthz') {
      const health = options.health();
      send(response, health.ok ? 200 : 503, JSON_TYPE, JSON.stringify(health.body));
      return;
    }
    if (options.token !== undefined && !bearerTokenMatches(request.headers.authorization, options.token)) {
      send(response, 401, JSON_TYPE, errorBody('E_UNAUTHORIZED', 'GET /metrics needs the bearer token set in AHP_METRICS_TOKEN'), {
        'www-authenticate': 'Bearer realm="ahp-metrics"',
      });
      return;
    }
    try {
      const { contentType, body } = await options.metrics();
      send(response, 200, contentType, body);
    } catch (error) {
      options.onError?.(error);
      send(response, 500, JSON_TYPE, errorBody('E_INTERNAL', 'the metrics could not be rendered', true));
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      options.onError?.(error);
      if (!response.headersSent) send(response, 500, JSON_TYPE, errorBody('E_INTERNAL', 'unexpected failure', true));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let closing: Promise<void> | undefined;
  return {
    port: (server.address() as AddressInfo).port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
