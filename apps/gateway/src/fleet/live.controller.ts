import type { IncomingMessage, ServerResponse } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { Controller, Get, Inject, Query, Req, Res, UseGuards } from '@nestjs/common';
import { OperatorLiveQuerySchema, liveEventFollowed, makeError, type OperatorIdentity, type OperatorLiveEvent } from '@ahp/protocol';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { OperatorApiError, parseInput } from '../operator-api/api-error.js';
import { CurrentOperator, OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { OperatorAuthService } from '../operator-api/operator-auth.service.js';
import { OperatorScopeService } from '../operator-api/operator-scope.service.js';
import { LiveFeedService } from './live-feed.service.js';

/**
 * A `heartbeat` event every this often: it keeps proxies from closing an idle stream, and lets a
 * client that misses a few of them say the feed is stalled within seconds (a half-open TCP
 * connection or a hung gateway sends no error) instead of showing stale data as live.
 */
export const LIVE_HEARTBEAT_MS = 2_000;
/**
 * The longest a live stream stays open: then it is ended and the client reconnects (the console
 * does by itself), which authenticates its token again. A token reload on this gateway already
 * ends the streams of a token revoked or changed; this bounds what any other path could miss.
 */
export const LIVE_MAX_AGE_MS = 15 * 60_000;
/** A subscriber whose socket buffers more than this is not reading: it is disconnected and re-syncs on reconnect. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/**
 * The SSE text of each event, made once however many streams carry it: a broadcast reaches every
 * open stream with the same event objects (only a scoped operator's `signals` hint is rewritten).
 */
const frames = new WeakMap<OperatorLiveEvent, string>();
function frameOf(event: OperatorLiveEvent): string {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = `event: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`;
    frames.set(event, frame);
  }
  return frame;
}

/**
 * `GET /v1/operator/live`: the operators' live feed as Server-Sent Events (docs/operator-api.md).
 * Every connection starts with `ready` (re-read your snapshots), then relays what changes.
 */
@Controller('v1/operator')
@UseGuards(OperatorAuthGuard)
export class LiveController {
  private readonly log: JsonLogger;

  constructor(
    @Inject(LiveFeedService) private readonly feed: LiveFeedService,
    @Inject(OperatorScopeService) private readonly scopes: OperatorScopeService,
    @Inject(OperatorAuthService) private readonly auth: OperatorAuthService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'live-feed' });
  }

  @Get('live')
  live(@Req() request: IncomingMessage, @Res() response: ServerResponse, @CurrentOperator() operator: OperatorIdentity, @Query() query: unknown): void {
    // A browser sends Origin; only the console's own origins may read the feed with an operator's
    // credentials. Servers and scripts send none.
    const origin = request.headers.origin;
    if (origin !== undefined && !this.config.consoleOrigins.includes(origin)) {
      throw new OperatorApiError(makeError('E_FORBIDDEN', `origin ${origin.slice(0, 200)} may not open the live feed (AHP_CONSOLE_ORIGINS)`, { origin: origin.slice(0, 200) }));
    }
    const { agents } = parseInput(OperatorLiveQuerySchema, { ...(query as object) }, 'query');
    const followed = agents === undefined ? undefined : new Set(agents);
    let closed = false;
    const close = (): void => {
      if (closed) return;
      closed = true;
      clearInterval(ping);
      clearTimeout(maxAge);
      stopRecheck();
      unsubscribe?.();
      if (!response.writableEnded) response.end();
    };
    const write = (chunk: string): void => {
      if (closed) return;
      if (response.writableLength > MAX_BUFFERED_BYTES) {
        this.log.warn({ operator: operator.id, bufferedBytes: response.writableLength }, 'closing a live stream that does not read');
        close();
        return;
      }
      response.write(chunk);
    };
    const send = (event: OperatorLiveEvent): void => write(frameOf(event));

    // Filtered here, on the server: a scoped operator's stream never carries another team's
    // events, and one that follows named agents no other agent's rows. One write per batch.
    const unsubscribe = this.feed.subscribe((events) => {
      let chunk = '';
      for (const event of this.scopes.liveEvents(operator, events)) {
        if (liveEventFollowed(event, followed)) chunk += frameOf(event);
      }
      if (chunk !== '') write(chunk);
    }, close);
    if (unsubscribe === null) {
      throw new OperatorApiError(makeError('E_UNAVAILABLE', 'this gateway serves as many live streams as it can; retry on another', undefined, { retryAfterMs: 5000 }));
    }
    // The identity was read once, when the stream opened; a stream must not outlive its token
    // (docs/security.md). After each reload the token is authenticated again: revoked, unknown or
    // changed (role, team scope) ends the stream. A changed token's client reconnects and is
    // authenticated, and scoped, afresh; a revoked one's reconnect is refused (401).
    const stopRecheck = this.auth.onReload(() => {
      const now = this.auth.authenticate(request.headers.authorization);
      if (now.ok && isDeepStrictEqual(now.operator, operator)) return;
      this.log.info({ operator: operator.id, reason: now.ok ? 'identity_changed' : now.reason }, 'ending a live stream whose token changed');
      close();
    });
    const maxAge = setTimeout(close, LIVE_MAX_AGE_MS);
    maxAge.unref();
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // Nginx and similar proxies buffer responses unless told not to.
      'x-accel-buffering': 'no',
    });
    // `retry` tells EventSource how soon to reconnect after the stream drops.
    write('retry: 2000\n\n');
    send({ kind: 'ready', gateway_id: this.config.gatewayId, at: new Date().toISOString() });
    const ping = setInterval(() => send({ kind: 'heartbeat', gateway_id: this.config.gatewayId, at: new Date().toISOString(), interval_ms: LIVE_HEARTBEAT_MS }), LIVE_HEARTBEAT_MS);
    ping.unref();
    request.once('close', close);
    response.once('error', close);
    this.log.debug({ operator: operator.id, subscribers: this.feed.subscriberCount }, 'live stream opened');
  }
}
