/**
 * How a read reports a stored stream entry it passed over because the entry does not parse
 * (written by an older release, before size checks existed): one error line naming where it is —
 * the key and the entry id — and what is wrong with its shape, never what it holds (the JSON
 * parser's own message, which quotes the text, is left out).
 */
import type { Logger } from '@ahp/protocol';
import type { StoreDataError } from './errors.js';

/** Where the entry was and what read it; `agentId` for the owner of a per-agent stream. */
export interface UnreadableEntry {
  key: string;
  entry: string;
  agentId: string;
  /** The read that passed it over: `inbox delivery`, `timeline read`. */
  during: string;
  /** What happened to it besides being passed over: `set aside` (moved out of the stream), `left` (it stays). */
  outcome: 'set aside' | 'left';
}

export function reportUnreadableEntry(logger: Logger, error: StoreDataError, where: UnreadableEntry): void {
  logger.error(
    { code: error.code, key: where.key, entry: where.entry, agentId: where.agentId, during: where.during, outcome: where.outcome, issues: error.issues.slice(0, 5) },
    `stored entry ${where.entry} of ${where.key} does not parse; skipped by ${where.during} (${where.outcome}): ${error.message.slice(0, 500)}`,
  );
}
