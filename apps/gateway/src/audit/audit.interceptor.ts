import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { JsonObject } from '@ahp/protocol';
import { catchError, concatMap, from, throwError, type Observable } from 'rxjs';
import { typedOperatorError } from '../operator-api/api-error.js';
import { operatorOf } from '../operator-api/operator-auth.guard.js';
import { AUDITED, type AuditSpec, type AuditedRequest } from './audited.decorator.js';
import { AuditService } from './audit.service.js';

type HttpRequest = Parameters<typeof operatorOf>[0] & Partial<AuditedRequest>;

/** The route's input as the audit description reads it (nothing else of the request leaks in). */
function auditedRequest(request: HttpRequest): AuditedRequest {
  return { params: request.params ?? {}, body: request.body };
}

/** What a failed call says about itself: the typed code, and the issue count of a refused configuration. */
function failureDetails(thrown: unknown): { outcome: 'refused' | 'failed'; details: JsonObject } {
  const error = typedOperatorError(thrown);
  if (error !== undefined) {
    const details: JsonObject = { error_code: error.error.code, status: error.status };
    const issueCount = error.error.details?.['issue_count'];
    if (typeof issueCount === 'number') details['issue_count'] = issueCount;
    return { outcome: error.status >= 500 ? 'failed' : 'refused', details };
  }
  return { outcome: 'failed', details: { error_code: 'E_INTERNAL', status: 500 } };
}

/**
 * Records the calls of routes marked {@link Audited} in the audit trail, after the handler ran and
 * before the answer leaves: the outcome the route's spec reads from its result, or `refused` /
 * `failed` with the error code when it threw. Routes without the mark pass through untouched.
 */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(AuditService) private readonly audit: AuditService,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const spec = this.reflector.get<AuditSpec | undefined>(AUDITED, context.getHandler());
    const request = context.switchToHttp().getRequest<HttpRequest>();
    const operator = operatorOf(request);
    if (spec === undefined || operator === undefined) return next.handle();
    const input = auditedRequest(request);
    const record = (outcome: Parameters<AuditService['record']>[0]['outcome'], details: JsonObject | undefined) =>
      this.audit.record({ operator, action: spec.action, target: safeTarget(spec, input), outcome, ...(details === undefined ? {} : { details }) });
    return next.handle().pipe(
      concatMap((result: unknown) => from(record(spec.outcome(result), describe(spec, input, result)).then(() => result))),
      catchError((error: unknown) => {
        const failure = failureDetails(error);
        const details = { ...describe(spec, input, undefined), ...failure.details };
        return from(record(failure.outcome, details)).pipe(concatMap(() => throwError(() => error)));
      }),
    );
  }
}

function safeTarget(spec: AuditSpec, input: AuditedRequest): string {
  try {
    return spec.target(input);
  } catch {
    return '(unreadable)';
  }
}

/** The spec's details; a description that throws (hostile input) leaves none rather than failing the call. */
function describe(spec: AuditSpec, input: AuditedRequest, result: unknown): JsonObject | undefined {
  if (spec.details === undefined) return undefined;
  try {
    return spec.details(input, result);
  } catch {
    return undefined;
  }
}
