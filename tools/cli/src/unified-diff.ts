/**
 * A unified diff of two texts, line by line, in the format `diff -u` and `git diff` print, so that
 * people read it as usual and `patch` could apply it. The diffing is jsdiff's (`diff`, Myers'
 * algorithm); this module only fixes the conventions `ahp config diff` promises.
 */
import { FILE_HEADERS_ONLY, createTwoFilesPatch } from 'diff';

/** Options of {@link unifiedDiff}. */
export interface UnifiedDiffOptions {
  /** Label of the old text on the `---` line. */
  fromLabel: string;
  /** Label of the new text on the `+++` line. */
  toLabel: string;
  /**
   * Unchanged lines shown around each change.
   * @defaultValue `3`
   */
  context?: number;
}

/** The lines of a text; a final newline does not make an empty last line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The text with LF line ends and one final newline (none when empty). */
function normalised(text: string): string {
  const lines = splitLines(text);
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/**
 * The unified diff of `from` and `to`, or the empty string when their lines are equal. Lines are
 * compared exactly (whitespace counts); line ends (LF or CRLF) and a missing final newline are not
 * reported.
 */
export function unifiedDiff(from: string, to: string, options: UnifiedDiffOptions): string {
  const a = normalised(from);
  const b = normalised(to);
  if (a === b) return '';
  const patch = createTwoFilesPatch(options.fromLabel, options.toLabel, a, b, undefined, undefined, {
    context: options.context ?? 3,
    headerOptions: FILE_HEADERS_ONLY,
  });
  // GNU diff and git leave out a range's length when it is 1 (`@@ -5 +5 @@`); jsdiff writes it.
  return patch.replace(/^@@ -(\d+),1 \+(\d+)(,\d+)? @@$/gm, '@@ -$1 +$2$3 @@').replace(/^@@ -(\d+(?:,\d+)?) \+(\d+),1 @@$/gm, '@@ -$1 +$2 @@');
}
