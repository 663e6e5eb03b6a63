import { SetMetadata } from '@nestjs/common';
import type { AuditAction, AuditOutcome, JsonObject } from '@ahp/protocol';

/** The parts of an HTTP request an audit description may read. */
export interface AuditedRequest {
  params: Record<string, string | undefined>;
  body: unknown;
}

/** How one route is audited. */
export interface AuditSpec<R = unknown> {
  action: AuditAction;
  /** What the action is about (a request id from the path, `hooks`, a grant id); cut to 256 characters. */
  target(request: AuditedRequest): string;
  /** The outcome of a successful call: `applied`, or `unchanged` when nothing had to change. */
  outcome(result: R): Extract<AuditOutcome, 'applied' | 'unchanged'>;
  /** Small facts worth keeping (never secrets, never free text); `result` is undefined when the call failed. */
  details?(request: AuditedRequest, result: R | undefined): JsonObject;
}

export const AUDITED = 'ahp:audited';

/**
 * Marks an operator route as audited: `AuditInterceptor` records who called it, on what, and how
 * it ended — applied, unchanged, refused (any 4xx, with the error code) or failed (5xx). Use it
 * with `@UseInterceptors(AuditInterceptor)` on routes behind `OperatorAuthGuard`.
 */
export const Audited = <R>(spec: AuditSpec<R>) => SetMetadata(AUDITED, spec);
