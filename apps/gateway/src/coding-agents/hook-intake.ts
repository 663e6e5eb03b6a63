/**
 * The door of the coding agents' hook routes (`POST /v1/hooks/claude-code`, `/v1/hooks/codex`):
 * everything that happens to a request before its body
 * is parsed, in an order that keeps what a client can make the gateway spend proportional to what
 * it is allowed:
 *
 * 1. the bearer token is checked on the headers — without one, 401 before a byte of the body is
 *    read (what arrives anyway is discarded, up to {@link UNREAD_BODY_DISCARD_BYTES}, never kept
 *    or decoded);
 * 2. a `Content-Encoding` other than identity is refused with 415: the agents send plain JSON,
 *    and an inflated body is what turned 2.4 MB on the wire into gigabytes of memory;
 * 3. the hook takes a token from the agent's rate-limit bucket (while the body arrives);
 * 4. the body is kept up to `AHP_MAX_FRAME_BYTES` (a hook is one frame, whichever transport);
 * 5. its shape is scanned ({@link scanHookBody}) before `JSON.parse`.
 *
 * A request refused at 3, 4 or 5 comes from an authenticated agent whose model may have caused it
 * (a huge Write, a burst of tool calls), and an agent lets a tool call through when its hook
 * answers with an HTTP error. So it is answered 200 with the agent's own fail-closed output for
 * the hook's event (the route's {@link RefusedAnswer}: its dialect's), as soon as the refusal is
 * certain and the first {@link EVENT_PREFIX_BYTES} (where the agents write `hook_event_name`) are
 * in; the rest of the body is read and dropped, so that a client still sending gets to read the
 * answer.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { makeError, type AhpError } from '@ahp/protocol';
import { AgentAuthService } from '../auth/agent-auth.service.js';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { httpStatusFor } from '../operator-api/api-error.js';
import { RateLimitsService } from '../rate-limit/rate-limits.service.js';
import { scanHookBody } from './hook-body-scan.js';

/**
 * A route's fail-closed answer to a hook refused before evaluation, in its agent's format: `event`
 * is the body's `hook_event_name` as written (undefined when none was found).
 */
export type RefusedAnswer = (event: string | undefined, error: Pick<AhpError, 'code' | 'message'>) => unknown;

/**
 * Bytes of the body of a request refused on its headers (401, 415) that are read and dropped
 * before the connection is closed: enough that a small body is consumed and the client reliably
 * reads the answer, too little to matter.
 */
export const UNREAD_BODY_DISCARD_BYTES = 64 * 1024;

/** Bytes kept of a body that will not be parsed, to find its `hook_event_name` for the answer. */
export const EVENT_PREFIX_BYTES = 16 * 1024;

/**
 * Most bytes of a refused body that are read (and dropped) before the connection is closed: the
 * answer goes out as soon as the refusal is certain, but a client that reads it only once it has
 * sent everything (a Write of a large file) must still get the deny, not a reset connection it
 * would take for "proceed".
 */
export const REFUSED_BODY_DRAIN_BYTES = 64 * 1024 * 1024;

/** A request with the parsed body the controller reads (as body-parser would set it). */
type HookRequest = IncomingMessage & { body?: unknown };
type Next = (error?: unknown) => void;

/** The request's `Content-Encoding`, lower-cased; `identity` when absent or empty. */
function contentEncoding(request: IncomingMessage): string {
  const value = (request.headers['content-encoding'] ?? '').trim().toLowerCase();
  return value === '' ? 'identity' : value;
}

/** The announced `Content-Length`, or undefined for a chunked body. */
function declaredLength(request: IncomingMessage): number | undefined {
  const value = Number(request.headers['content-length']);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** See the module comment. Installed by `startGateway` ahead of Nest's own body parser, once per route. */
@Injectable()
export class HookIntake {
  private readonly log: JsonLogger;

  constructor(
    @Inject(AgentAuthService) private readonly auth: AgentAuthService,
    @Inject(RateLimitsService) private readonly rateLimits: RateLimitsService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'hook-intake' });
  }

  /**
   * The Express middleware of a route whose refusals read as `refused` says: answers the request,
   * or parses its body into `request.body` and calls `next`.
   */
  middleware(refused: RefusedAnswer): (request: HookRequest, response: ServerResponse, next: Next) => void {
    return (request, response, next) => this.handle(refused, request, response, next);
  }

  private handle(refused: RefusedAnswer, request: HookRequest, response: ServerResponse, next: Next): void {
    if (request.method !== 'POST') {
      next();
      return;
    }
    const auth = this.auth.authenticateRequest(request);
    if (!auth.ok) {
      this.refuseUnread(request, response, makeError('E_UNAUTHORIZED', 'a valid agent token is required (Authorization: Bearer <token>)'), {
        'www-authenticate': 'Bearer realm="ahp-agents"',
      });
      return;
    }
    const encoding = contentEncoding(request);
    if (encoding !== 'identity') {
      const error = makeError('E_BAD_FRAME', `Content-Encoding "${encoding.slice(0, 64)}" is not accepted: send the hook input as plain JSON`);
      this.refuseUnread(request, response, error, { 'accept-encoding': 'identity' }, 415);
      return;
    }
    this.read(refused, request, response, next, auth.agent.identity.id);
  }

  /** Answers an error on the headers alone; the body is dropped unread (see {@link UNREAD_BODY_DISCARD_BYTES}). */
  private refuseUnread(request: IncomingMessage, response: ServerResponse, error: AhpError, headers: OutgoingHttpHeaders, status = httpStatusFor(error.code)): void {
    this.sendJson(response, status, { error }, headers);
    discardBody(request, UNREAD_BODY_DISCARD_BYTES);
  }

  /** Steps 3–5 of the module comment, for an authenticated agent. */
  private read(refused: RefusedAnswer, request: HookRequest, response: ServerResponse, next: Next, agentId: string): void {
    const maxBytes = this.config.maxFrameBytes;
    const chunks: Buffer[] = [];
    let kept = 0;
    let received = 0;
    let ended = false;
    let done = false;
    let allowed = false;
    let refusal: AhpError | undefined;
    let keepLimit = maxBytes;

    const tooLarge = (): AhpError => makeError('E_FRAME_TOO_LARGE', `the hook input is larger than ${maxBytes} bytes (AHP_MAX_FRAME_BYTES)`);
    const refuse = (error: AhpError): void => {
      if (done) return;
      refusal ??= error;
      // From here on only the event's prefix matters.
      keepLimit = EVENT_PREFIX_BYTES;
      if (kept > keepLimit) {
        const prefix = Buffer.concat(chunks, kept).subarray(0, keepLimit);
        chunks.length = 0;
        chunks.push(prefix);
        kept = prefix.length;
      }
    };
    const finish = (): void => {
      done = true;
      chunks.length = 0;
      kept = 0;
    };
    const settle = (): void => {
      if (done) return;
      if (refusal !== undefined) {
        if (kept < keepLimit && !ended) return;
        const prefix = Buffer.concat(chunks, kept);
        finish();
        this.answerRefused(refused, response, agentId, refusal, scanHookBody(prefix.toString('utf8')).event, received);
        // Keep reading (and dropping) what is still coming, up to a bound, so the client reads the answer.
        if (!ended) discardBody(request, REFUSED_BODY_DRAIN_BYTES, received);
        return;
      }
      if (!ended || !allowed) return;
      const body = Buffer.concat(chunks, kept);
      finish();
      this.parse(refused, request, response, next, agentId, body);
    };

    const length = declaredLength(request);
    if (length !== undefined && length > maxBytes) refuse(tooLarge());

    request.on('data', (chunk: Buffer) => {
      if (done) return;
      received += chunk.length;
      if (received > maxBytes) refuse(tooLarge());
      if (kept < keepLimit) {
        const part = kept + chunk.length <= keepLimit ? chunk : chunk.subarray(0, keepLimit - kept);
        chunks.push(part);
        kept += part.length;
      }
      settle();
    });
    request.on('end', () => {
      ended = true;
      settle();
    });
    // The client went away: there is no one left to answer.
    request.on('error', finish);
    request.on('close', () => {
      if (!ended) finish();
    });

    this.rateLimits.checkClaudeCodeHook(agentId).then(
      (limited) => {
        if (limited === null) allowed = true;
        else refuse(limited);
        settle();
      },
      (error: unknown) => {
        // The limiter fails open on Redis errors itself; anything else is a bug, not a reason to refuse.
        this.log.error({ agentId, error }, 'rate limit check failed; letting the hook through');
        allowed = true;
        settle();
      },
    );
  }

  /** Step 5 and the parse: a body within the size limit and the rate limit. */
  private parse(refused: RefusedAnswer, request: HookRequest, response: ServerResponse, next: Next, agentId: string, body: Buffer): void {
    const text = body.toString('utf8');
    const scan = scanHookBody(text);
    if (scan.problem !== undefined) {
      this.answerRefused(refused, response, agentId, makeError('E_INVALID_FRAME', `the hook input is ${scan.problem} (the hook context limits)`), scan.event, body.length);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // The agents always send JSON: this is some other client, which an HTTP error tells best.
      this.sendJson(response, 400, { error: makeError('E_BAD_FRAME', 'the body is not JSON') });
      return;
    }
    request.body = parsed;
    next();
  }

  private answerRefused(refused: RefusedAnswer, response: ServerResponse, agentId: string, error: AhpError, event: string | undefined, bytes: number): void {
    this.log.warn({ agentId, code: error.code, event: event?.slice(0, 64) ?? null, bytes }, `coding agent hook refused before evaluation: ${error.message}`);
    this.sendJson(response, 200, refused(event, error));
  }

  private sendJson(response: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
    if (response.headersSent) return;
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
    response.end(JSON.stringify(body));
  }
}

/**
 * Reads and drops the rest of `request`'s body; once more than `maxBytes` (counting the
 * `alreadyRead` ones) have arrived, closes the connection instead of reading on.
 */
function discardBody(request: IncomingMessage, maxBytes: number, alreadyRead = 0): void {
  let read = alreadyRead;
  request.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > maxBytes) request.socket.destroy();
  });
  request.on('error', () => undefined);
  request.resume();
}
