/**
 * A signal's subject (what it acted on, recorded in the signal log: `SignalSubjectSchema`) as the
 * timeline and the signal table show it. Pure: the component only lays these parts out, as text.
 */
import type { SignalSubject } from '@ahp/protocol';
import { visibleText } from './visible-text';

/** One change of a control, ready to show: `before` reads "(none)" when the input did not have the field. */
export interface SubjectChange {
  target: string;
  before: string;
  after: string;
}

/** What {@link subjectParts} gives the view. */
export interface SubjectParts {
  /** `Bash` — the tool, when the hook was a tool call. */
  tool?: string;
  /** The tool's input as (redacted, cut) JSON text. */
  input?: string;
  /** The prompt, issue or task the hook was about. */
  what?: string;
  message?: string;
  suggestions: string[];
  /** Suggestions recorded beyond those shown (the log keeps the first few). */
  moreSuggestions: number;
  changes: SubjectChange[];
  /** Changes recorded beyond those shown. */
  moreChanges: number;
}

/** What the view shows for a change's value that was not in the tool input. */
export const ABSENT_VALUE = '(none)';

/** The parts of `subject` to show; null when there is none (entries written before it was recorded). */
export function subjectParts(subject: SignalSubject | undefined): SubjectParts | null {
  if (subject === undefined) return null;
  const suggestions = subject.s ?? [];
  const changes = (subject.c ?? []).map(([target, before, after]) => ({ target, before: before ?? ABSENT_VALUE, after }));
  const parts: SubjectParts = {
    suggestions,
    moreSuggestions: subject.sn === undefined ? 0 : Math.max(0, subject.sn - suggestions.length),
    changes,
    moreChanges: subject.cn === undefined ? 0 : Math.max(0, subject.cn - changes.length),
  };
  if (subject.t !== undefined) parts.tool = subject.t;
  if (subject.i !== undefined) parts.input = subject.i;
  if (subject.w !== undefined) parts.what = subject.w;
  if (subject.m !== undefined) parts.message = subject.m;
  return parts;
}

/**
 * The subject in one line of text (the table's title attribute, a screen reader's summary), its
 * hidden characters and long whitespace runs written as markers (a tooltip cannot style them).
 */
export function subjectLine(subject: SignalSubject | undefined): string {
  const parts = subjectParts(subject);
  if (parts === null) return '';
  const pieces: string[] = [];
  if (parts.tool !== undefined) pieces.push(parts.input === undefined ? parts.tool : `${parts.tool} ${parts.input}`);
  if (parts.what !== undefined) pieces.push(parts.what);
  if (parts.message !== undefined) pieces.push(`“${parts.message}”`);
  for (const change of parts.changes) pieces.push(`${change.target}: ${change.before} → ${change.after}`);
  return visibleText(pieces.join(' · '));
}
