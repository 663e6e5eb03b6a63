import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { RedisClient } from '@ahp/store';
import type { Observable } from 'rxjs';
import { REDIS } from '../store/store.tokens.js';
import { OperatorApiError, storeUnavailableError } from './api-error.js';
import { OPERATOR_API_PREFIX } from './operator-error.filter.js';

/**
 * Refuses operator API calls with a retryable 503 `E_UNAVAILABLE` (and `Retry-After`) while this
 * gateway's Redis connection is down, before the route runs.
 *
 * Waiting for the store to fail instead would be slow and unsafe: node-redis queues commands
 * while it reconnects, a plain command fails only after its 5 s timeout, a `MULTI` waits for the
 * reconnect however long that takes — and a queued write (an operator's decision the caller was
 * told had failed) would run when Redis is back. Errors that still get through (Redis lost in the
 * middle of a call) are mapped to the same answer by {@link typedOperatorError}.
 *
 * Runs after the guards, so a bad token is still a 401.
 */
@Injectable()
export class StoreReadyInterceptor implements NestInterceptor {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http' && !this.redis.isReady) {
      const request = context.switchToHttp().getRequest<IncomingMessage & { originalUrl?: string }>();
      const path = (request.originalUrl ?? request.url ?? '').split('?')[0] ?? '';
      if (path === OPERATOR_API_PREFIX || path.startsWith(`${OPERATOR_API_PREFIX}/`)) throw new OperatorApiError(storeUnavailableError());
    }
    return next.handle();
  }
}
