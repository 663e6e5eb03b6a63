/**
 * The answers Claude Code cannot send: after a PreToolUse whose decision carried block or control
 * signals, the gateway keeps them here (one JSON value per AHP session) until the session's next
 * hook, on whichever gateway it lands, tells what Claude Code did with them (docs/claude-code.md,
 * "Answers"). Taken atomically (GETDEL), so two gateways never infer the same answer twice.
 */
import { ClaudeCodePendingAnswersSchema, type ClaudeCodePendingAnswer } from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { parseStored, parseStoredJson } from './lua.js';
import type { RedisClient } from './redis-client.js';
import { describeIssues } from './validate.js';

/** See the module comment. */
export interface ClaudeCodeAnswerStore {
  /** Replaces the session's pending answers (a newer PreToolUse supersedes an older one's); kept at most `ttlMs`. */
  put(sessionId: string, pending: readonly ClaudeCodePendingAnswer[], ttlMs: number): Promise<void>;
  /** The session's pending answers, removed in the same step; empty when there are none. */
  take(sessionId: string): Promise<ClaudeCodePendingAnswer[]>;
}

/** Creates the Redis store. A stored value that does not parse fails `take` with StoreDataError naming the key. */
export function createClaudeCodeAnswerStore(redis: RedisClient, keys: StoreKeys): ClaudeCodeAnswerStore {
  return {
    async put(sessionId, pending, ttlMs) {
      const checked = ClaudeCodePendingAnswersSchema.safeParse(pending);
      if (!checked.success) throw new StoreInputError(`invalid pending answers: ${describeIssues(checked.error.issues)}`);
      if (!Number.isInteger(ttlMs) || ttlMs <= 0) throw new StoreInputError(`TTL must be a positive integer of milliseconds, got ${ttlMs}`);
      await redis.set(keys.claudeCodePendingAnswers(sessionId), JSON.stringify(checked.data), { expiration: { type: 'PX', value: ttlMs } });
    },
    async take(sessionId) {
      const key = keys.claudeCodePendingAnswers(sessionId);
      const raw = await redis.getDel(key);
      if (raw === null) return [];
      return parseStored(ClaudeCodePendingAnswersSchema, parseStoredJson(raw, key, 'json'), key);
    },
  };
}
