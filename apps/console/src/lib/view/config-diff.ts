/**
 * A line diff of two hooks.yaml texts (jsdiff's `diffLines`, the library `ahp config diff` uses),
 * flattened to one row per line with its number on either side, so the page can show the edited
 * text against the live version the way a code review does.
 */
import { diffLines } from 'diff';

export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
  /** 1-based line in the old text (absent for an added line). */
  oldLine?: number;
  /** 1-based line in the new text (absent for a removed line). */
  newLine?: number;
}

export interface LineDiff {
  lines: DiffLine[];
  added: number;
  removed: number;
}

/** Splits a chunk's value into its lines; a trailing newline ends the last line rather than opening an empty one. */
function linesOf(value: string): string[] {
  const lines = value.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Every line of `before` and `after`, in order, marked as kept, added or removed. */
export function lineDiff(before: string, after: string): LineDiff {
  const lines: DiffLine[] = [];
  let oldLine = 1;
  let newLine = 1;
  let added = 0;
  let removed = 0;
  for (const change of diffLines(before, after)) {
    for (const text of linesOf(change.value)) {
      if (change.added) {
        lines.push({ kind: 'added', text, newLine: newLine++ });
        added += 1;
      } else if (change.removed) {
        lines.push({ kind: 'removed', text, oldLine: oldLine++ });
        removed += 1;
      } else {
        lines.push({ kind: 'same', text, oldLine: oldLine++, newLine: newLine++ });
      }
    }
  }
  return { lines, added, removed };
}

/**
 * The rows worth showing: every changed line with `context` unchanged lines around it; a run of
 * hidden unchanged lines becomes one `{ skipped }` marker. An identical text gives no rows.
 */
export function hunks(diff: LineDiff, context = 3): (DiffLine | { skipped: number })[] {
  const near = new Array<boolean>(diff.lines.length).fill(false);
  diff.lines.forEach((line, i) => {
    if (line.kind === 'same') return;
    for (let j = Math.max(0, i - context); j <= Math.min(diff.lines.length - 1, i + context); j += 1) near[j] = true;
  });
  const rows: (DiffLine | { skipped: number })[] = [];
  let skipped = 0;
  diff.lines.forEach((line, i) => {
    if (near[i]) {
      if (skipped > 0) rows.push({ skipped });
      skipped = 0;
      rows.push(line);
    } else {
      skipped += 1;
    }
  });
  if (skipped > 0 && rows.length > 0) rows.push({ skipped });
  return rows;
}
