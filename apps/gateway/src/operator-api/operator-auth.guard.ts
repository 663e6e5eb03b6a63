import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, SetMetadata, createParamDecorator, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { isFleetWide, makeError, roleAllows, type OperatorIdentity, type OperatorRole } from '@ahp/protocol';
import { LOGGER } from '../config/config.tokens.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { RateLimitsService } from '../rate-limit/rate-limits.service.js';
import { OperatorApiError } from './api-error.js';
import { OperatorAuthService } from './operator-auth.service.js';

const REQUIRED_ROLE = 'ahp:operator-role';

/**
 * The least role a route needs. Routes without it need `viewer` (any authenticated operator).
 * @defaultValue `'viewer'`
 */
export const RequireRole = (role: OperatorRole) => SetMetadata(REQUIRED_ROLE, role);

const FLEET_WIDE = 'ahp:operator-fleet-wide';

/**
 * The route acts on the whole fleet (publishing hooks.yaml, reading the audit trail): a scoped
 * token is refused with 403 whatever its role, since no team scope can contain the fleet.
 */
export const RequireFleetWide = () => SetMetadata(FLEET_WIDE, true);

/** The operator each authenticated request was made by (keyed by the request object itself). */
const operators = new WeakMap<IncomingMessage, OperatorIdentity>();

/** The operator a request was authenticated as by {@link OperatorAuthGuard}; undefined before the guard ran or when it refused. */
export function operatorOf(request: IncomingMessage): OperatorIdentity | undefined {
  return operators.get(request);
}

/** Injects the operator the call was authenticated as; only on routes behind {@link OperatorAuthGuard}. */
export const CurrentOperator = createParamDecorator((_data: unknown, context: ExecutionContext): OperatorIdentity => {
  const operator = operators.get(context.switchToHttp().getRequest<IncomingMessage>());
  if (operator === undefined) throw new Error('@CurrentOperator() used on a route without OperatorAuthGuard');
  return operator;
});

/**
 * Authenticates every operator API call by its bearer token (401 `E_UNAUTHORIZED`, with
 * `WWW-Authenticate`, for a missing, unknown or revoked token), counts it against the operator's
 * rate limit (429 `E_RATE_LIMITED` with `Retry-After`; shared by all gateways through Redis) and
 * checks the route's role (403 `E_FORBIDDEN` naming the role needed) and, on routes marked
 * {@link RequireFleetWide}, that the token has no scope (403 naming the scope).
 */
@Injectable()
export class OperatorAuthGuard implements CanActivate {
  private readonly log: JsonLogger;

  constructor(
    @Inject(OperatorAuthService) private readonly auth: OperatorAuthService,
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(RateLimitsService) private readonly rateLimits: RateLimitsService,
  ) {
    this.log = logger.child({ component: 'operator-auth' });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<IncomingMessage>();
    const result = this.auth.authenticate(request.headers.authorization);
    if (!result.ok) {
      this.log.info({ reason: result.reason, method: request.method, url: request.url?.split('?')[0] }, 'operator call refused');
      const message =
        result.reason === 'not_configured'
          ? 'this gateway has no operator tokens (AHP_OPERATOR_TOKENS_FILE is not set)'
          : 'a valid operator bearer token is required';
      throw new OperatorApiError(makeError('E_UNAUTHORIZED', message));
    }
    const limited = await this.rateLimits.checkOperator(result.operator.id);
    if (limited !== null) {
      this.log.info({ operator: result.operator.id, method: request.method, url: request.url?.split('?')[0], retryAfterMs: limited.retry_after_ms }, 'operator call rate limited');
      throw new OperatorApiError(limited);
    }
    const needed = this.reflector.getAllAndOverride<OperatorRole | undefined>(REQUIRED_ROLE, [context.getHandler(), context.getClass()]) ?? 'viewer';
    if (!roleAllows(result.operator.role, needed)) {
      throw new OperatorApiError(
        makeError('E_FORBIDDEN', `this needs the ${needed} role; ${result.operator.id} is ${result.operator.role}`, {
          role: result.operator.role,
          required_role: needed,
        }),
      );
    }
    if (this.reflector.getAllAndOverride<boolean | undefined>(FLEET_WIDE, [context.getHandler(), context.getClass()]) === true && !isFleetWide(result.operator)) {
      throw new OperatorApiError(
        makeError('E_FORBIDDEN', `this acts on the whole fleet and needs a token without a scope; ${result.operator.id}'s token is scoped`, {
          role: result.operator.role,
          scope: result.operator.scope ?? {},
        }),
      );
    }
    operators.set(request, result.operator);
    return true;
  }
}
