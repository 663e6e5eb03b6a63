/**
 * Schema issues as AHP reports them: the `details.issues` of an `E_INVALID_FRAME` or
 * `E_INVALID_CONTEXT` error (docs/protocol.md, "Errors"), and the one-line summary of an error
 * message. Every place that turns a zod failure into something a client or a log reads goes
 * through here, so a path is always written the same way, the style docs/protocol.md and
 * docs/operator-api.md show: `message.type`, `hooks.pre-tool-use.oracles[0].use`.
 *
 * Structural over zod's issue type, so libraries that do not import zod (the store, the SDK) can
 * pass their issues in.
 */

/** The part of a zod issue this module reads; `keys` is set by an `unrecognized_keys` issue. */
export interface SchemaIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly code?: string;
  readonly keys?: readonly string[];
}

/**
 * One entry of `details.issues`: where (a readable path, at most 256 characters) and what (one line).
 * A type, not an interface, so it fits `JsonObject` details.
 */
export type ReportedIssue = { path: string; message: string };

/** Issues listed in `details.issues`; `details.issue_count` counts them all. */
export const MAX_REPORTED_ISSUES = 10;

const MAX_PATH = 256;
const MAX_MESSAGE = 256;
/** A key written after a dot: a name (kebab-case included: triggers and oracles are named so). */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Renders an issue path the way people write it: `hooks.pre-tool-use.oracles[0]["odd key"]`. An
 * index is `[n]`; a key that is not a plain name is quoted, so a hostile key (`a.b`, `[0]`) cannot
 * pass for a path. Bounded to 256 characters.
 */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else {
      const name = String(key).slice(0, 64);
      out += IDENTIFIER.test(name) ? (out === '' ? name : `.${name}`) : `[${JSON.stringify(name)}]`;
    }
    if (out.length > MAX_PATH) return `${out.slice(0, MAX_PATH - 3)}...`;
  }
  return out;
}

/** `text` on one line, at most `max` characters. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
}

/**
 * The keys of an issue's path. For an unknown key the path goes on to the (first) key itself, so
 * the report names the key a client must remove rather than the object that holds it.
 */
function keysOf(issue: SchemaIssue): readonly PropertyKey[] {
  const first = issue.code === 'unrecognized_keys' ? issue.keys?.[0] : undefined;
  return first === undefined ? issue.path : [...issue.path, first];
}

/** How to report: `prefix` goes before every path (`['context']` for a hook context); `max` bounds the list. */
export interface ReportOptions {
  readonly prefix?: readonly PropertyKey[];
  readonly max?: number;
}

/** The first `max` (10) issues as `details.issues` entries. */
export function reportIssues(issues: readonly SchemaIssue[], options: ReportOptions = {}): ReportedIssue[] {
  const prefix = options.prefix ?? [];
  return issues
    .slice(0, options.max ?? MAX_REPORTED_ISSUES)
    .map((issue) => ({ path: formatPath([...prefix, ...keysOf(issue)]), message: oneLine(issue.message, MAX_MESSAGE) }));
}

/** `details.issue_count` and `details.issues` of an error that reports a schema failure. */
export function issueDetails(issues: readonly SchemaIssue[], options: ReportOptions = {}): { issue_count: number; issues: ReportedIssue[] } {
  return { issue_count: issues.length, issues: reportIssues(issues, options) };
}

/**
 * The first issues as one line for an error message or a log: `a.b[0]: bad; c: missing (and 3
 * more)`. An issue at the root is its message alone.
 */
export function describeIssues(issues: readonly SchemaIssue[], options: ReportOptions = {}): string {
  const max = options.max ?? 5;
  const shown = reportIssues(issues, { ...options, max }).map((issue) => (issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`));
  const more = issues.length - shown.length;
  return more > 0 ? `${shown.join('; ')} (and ${more} more)` : shown.join('; ');
}
