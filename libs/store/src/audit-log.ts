/**
 * The audit trail of operator actions: one Redis stream (`<prefix>:audit`), one entry per action
 * that changed something or tried to (a decision, a configuration publish or its refusal, a grant
 * revocation), with who did it, in which role, on what, how it ended and when.
 *
 * Guarantees: append-only (nothing edits or deletes an entry), shared by every gateway, bounded
 * by `MAXLEN ~ maxLen` (the oldest entries go first; 100 000 by default). Entries are validated on
 * the way in and parsed on the way out with the protocol's schemas.
 */
import {
  AuditEntrySchema,
  AuditRecordSchema,
  type AuditAction,
  type AuditEntry,
  type AuditRecord,
} from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { parseStored, parseStoredJson } from './lua.js';
import type { RedisClient } from './redis-client.js';
import { describeIssues } from './validate.js';

/** Default of {@link AuditLogOptions.maxLen}. */
export const DEFAULT_AUDIT_MAX_LEN = 100_000;

/**
 * Stream ids carry Redis' clock, `at` the gateway's: the read range is widened by this much and
 * then cut exactly by `at`, so a gateway clock a little off never hides an entry.
 */
const CLOCK_SLACK_MS = 60_000;
/** Entries read per round trip while filtering. */
const PAGE = 500;

/** What {@link AuditLog.read} selects. Times are epoch ms. */
export interface AuditFilter {
  /** Entries with `at` at or after this. */
  since?: number;
  /** Entries with `at` before this (exclusive). */
  until?: number;
  operator?: string;
  action?: AuditAction;
  /** At most this many, newest first (1 or more). */
  limit: number;
}

export interface AuditLog {
  /** Appends one record; returns its entry id. @throws StoreInputError for an invalid record. */
  append(record: AuditRecord): Promise<string>;
  /** Matching entries, newest first; `truncated` when more match than `limit`. */
  read(filter: AuditFilter): Promise<{ entries: AuditEntry[]; truncated: boolean }>;
}

export interface AuditLogOptions {
  redis: RedisClient;
  keys: StoreKeys;
  /** @defaultValue {@link DEFAULT_AUDIT_MAX_LEN} */
  maxLen?: number;
}

export function createAuditLog(options: AuditLogOptions): AuditLog {
  const { redis, keys } = options;
  const maxLen = options.maxLen ?? DEFAULT_AUDIT_MAX_LEN;
  if (!Number.isInteger(maxLen) || maxLen < 1) throw new StoreInputError(`maxLen must be a positive integer, got ${maxLen}`);
  const key = keys.audit;

  function entryOf(id: string, fields: Record<string, string>): AuditEntry {
    const record = fields['record'] === undefined ? undefined : parseStoredJson(fields['record'], key, id);
    return parseStored(AuditEntrySchema, { ...(record as object), id }, key, id);
  }

  return {
    async append(record: AuditRecord): Promise<string> {
      const checked = AuditRecordSchema.safeParse(record);
      if (!checked.success) throw new StoreInputError(`invalid audit record: ${describeIssues(checked.error.issues)}`);
      return redis.xAdd(key, '*', { record: JSON.stringify(checked.data) }, { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: maxLen } });
    },

    async read(filter: AuditFilter): Promise<{ entries: AuditEntry[]; truncated: boolean }> {
      if (!Number.isInteger(filter.limit) || filter.limit < 1) throw new StoreInputError(`limit must be a positive integer, got ${filter.limit}`);
      const matches = (entry: AuditEntry): boolean => {
        const at = Date.parse(entry.at);
        if (filter.since !== undefined && at < filter.since) return false;
        if (filter.until !== undefined && at >= filter.until) return false;
        if (filter.operator !== undefined && entry.operator.id !== filter.operator) return false;
        return filter.action === undefined || entry.action === filter.action;
      };
      const lowest = filter.since === undefined ? '-' : `${Math.max(0, filter.since - CLOCK_SLACK_MS)}`;
      let end = filter.until === undefined ? '+' : `${filter.until + CLOCK_SLACK_MS}`;
      const entries: AuditEntry[] = [];
      for (;;) {
        const page = (await redis.xRevRange(key, end, lowest, { COUNT: PAGE })) ?? [];
        for (const raw of page) {
          const entry = entryOf(raw.id, raw.message as Record<string, string>);
          if (!matches(entry)) continue;
          if (entries.length === filter.limit) return { entries, truncated: true };
          entries.push(entry);
        }
        const last = page[page.length - 1];
        if (page.length < PAGE || last === undefined) return { entries, truncated: false };
        end = `(${last.id}`;
      }
    },
  };
}
