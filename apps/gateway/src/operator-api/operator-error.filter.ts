import type { IncomingMessage, ServerResponse } from 'node:http';
import { Catch, HttpException, Inject, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter, HttpAdapterHost } from '@nestjs/core';
import { makeError, type AhpError } from '@ahp/protocol';
import { LOGGER } from '../config/config.tokens.js';
import { GatewayEvents } from '../events/gateway-events.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { httpStatusFor, typedOperatorError } from './api-error.js';

/** The typed error for an exception Nest raised itself (a body that is not JSON, a body too large). */
function fromHttpException(exception: HttpException): AhpError {
  const status = exception.getStatus();
  if (status === 413) return makeError('E_FRAME_TOO_LARGE', 'the request body is too large');
  if (status === 404) return makeError('E_NOT_FOUND', 'no such operator API route');
  if (status >= 400 && status < 500) return makeError('E_BAD_FRAME', `the request could not be read: ${exception.message}`);
  return makeError('E_INTERNAL', 'unexpected failure on the gateway');
}

/** Where the operator API lives; other HTTP routes (health probes) keep Nest's default error bodies. */
export const OPERATOR_API_PREFIX = '/v1/operator';

/**
 * Every failure of the operator API as `{ "error": AhpError }` with a status that fits the code:
 * typed errors as thrown, Redis being unavailable as a retryable 503 `E_UNAVAILABLE` (see
 * {@link typedOperatorError}), Nest's own HTTP exceptions translated, anything else logged and
 * answered 500 `E_INTERNAL` without internals. 401s carry `WWW-Authenticate`; 429s and 503s with
 * a retry hint carry `Retry-After`.
 *
 * Registered as a global filter rather than on the controllers: a body that is not JSON fails in
 * the body parser, before any route (and its filters) is chosen, and an unknown route has no
 * controller at all. Only Nest's global filters see those, so this one picks the requests under
 * {@link OPERATOR_API_PREFIX} and leaves every other route to Nest's default handling.
 */
@Catch()
export class OperatorErrorFilter extends BaseExceptionFilter {
  private readonly log: JsonLogger;

  constructor(
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(HttpAdapterHost) adapterHost: HttpAdapterHost,
    @Inject(GatewayEvents) private readonly events: GatewayEvents,
  ) {
    super(adapterHost.httpAdapter);
    this.log = logger.child({ component: 'operator-api' });
  }

  override catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') return;
    const request = host.switchToHttp().getRequest<IncomingMessage & { originalUrl?: string }>();
    const path = (request.originalUrl ?? request.url ?? '').split('?')[0] ?? '';
    if (path !== OPERATOR_API_PREFIX && !path.startsWith(`${OPERATOR_API_PREFIX}/`)) {
      super.catch(exception, host);
      return;
    }
    let error: AhpError;
    let status: number;
    const typed = typedOperatorError(exception);
    if (typed !== undefined) {
      if (typed !== exception) this.log.warn({ error: exception }, 'operator API call failed: the store is unavailable');
      error = typed.error;
      status = typed.status;
    } else if (exception instanceof HttpException) {
      error = fromHttpException(exception);
      status = exception.getStatus() >= 500 ? 500 : exception.getStatus();
    } else {
      this.log.error({ error: exception }, 'operator API call failed unexpectedly');
      error = makeError('E_INTERNAL', 'unexpected failure on the gateway; retry once');
      status = httpStatusFor('E_INTERNAL');
    }
    const response = host.switchToHttp().getResponse<ServerResponse>();
    if (response.headersSent) return;
    this.events.emit('operatorErrorSent', { code: error.code, status });
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
    if (status === 401) headers['www-authenticate'] = 'Bearer realm="ahp-operators"';
    // HTTP's own retry hint, in whole seconds (rounded up), beside the body's retry_after_ms.
    if ((status === 429 || status === 503) && error.retry_after_ms !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(error.retry_after_ms / 1000)));
    response.writeHead(status, headers);
    response.end(JSON.stringify({ error }));
  }
}
