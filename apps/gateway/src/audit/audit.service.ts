import { Inject, Injectable } from '@nestjs/common';
import type { AuditAction, AuditEntry, AuditOutcome, JsonObject, OperatorIdentity } from '@ahp/protocol';
import type { AuditFilter, AuditLog } from '@ahp/store';
import { LOGGER } from '../config/config.tokens.js';
import type { JsonLogger } from '../logging/json-logger.js';

/** Injection token of the {@link AuditLog} (the Redis stream `<prefix>:audit`). */
export const AUDIT_LOG = Symbol('AUDIT_LOG');

/** One operator action to record. */
export interface AuditEvent {
  operator: OperatorIdentity;
  action: AuditAction;
  target: string;
  outcome: AuditOutcome;
  details?: JsonObject;
}

/**
 * The operators' audit trail on the gateway's side: appends what operators did (see
 * `AuditInterceptor` for which routes) and reads it back for `GET /v1/operator/audit`.
 *
 * Recording happens after the action and before the HTTP answer, so an operator who got an
 * answer finds the entry. It never fails the action, which has happened already: when Redis
 * refuses the append, the failure is logged at error level with the whole event (the log is the
 * trail of last resort), and decisions remain in their request's own history regardless.
 */
@Injectable()
export class AuditService {
  private readonly log: JsonLogger;

  constructor(
    @Inject(AUDIT_LOG) private readonly audit: AuditLog,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'audit' });
  }

  async record(event: AuditEvent, now: number = Date.now()): Promise<void> {
    const record = {
      at: new Date(now).toISOString(),
      operator: { id: event.operator.id, role: event.operator.role, ...(event.operator.scope === undefined ? {} : { scope: event.operator.scope }) },
      action: event.action,
      target: event.target.length === 0 ? '(none)' : event.target.slice(0, 256),
      outcome: event.outcome,
      ...(event.details === undefined ? {} : { details: event.details }),
    };
    try {
      await this.audit.append(record);
    } catch (error) {
      this.log.error({ audit: record, error }, 'appending to the audit trail failed');
    }
  }

  /** Matching entries, newest first. */
  read(filter: AuditFilter): Promise<{ entries: AuditEntry[]; truncated: boolean }> {
    return this.audit.read(filter);
  }
}
