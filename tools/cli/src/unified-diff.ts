/**
 * A unified diff of two texts, line by line (Myers' O((N+M)·D) algorithm), in the format `diff -u`
 * and `git diff` print, so that people read it as usual and `patch` could apply it.
 */

/** `items[index]`, which the algorithm guarantees to exist. */
function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new RangeError(`diff: index ${index} out of range`);
  return item;
}

/** One line of an edit script. */
type Edit = { op: ' ' | '-' | '+'; line: string };

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

/** The shortest edit script turning `a` into `b` (Myers, with a trace for backtracking). */
function editScript(a: readonly string[], b: readonly string[]): Edit[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d += 1) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0))) x = v[offset + k + 1] ?? 0;
      else x = (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
    v = next;
  }
  trace.push(v);

  // Walk back from (n, m) through the saved rows.
  const edits: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 2; d >= 0; d -= 1) {
    const row = at(trace, d);
    const k = x - y;
    let prevK: number;
    if (k === -d || (k !== d && (row[offset + k - 1] ?? 0) < (row[offset + k + 1] ?? 0))) prevK = k + 1;
    else prevK = k - 1;
    const prevX = d === 0 ? 0 : (row[offset + prevK] ?? 0);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x -= 1;
      y -= 1;
      edits.push({ op: ' ', line: at(a, x) });
    }
    if (d === 0) break;
    if (x === prevX) {
      y -= 1;
      edits.push({ op: '+', line: at(b, y) });
    } else {
      x -= 1;
      edits.push({ op: '-', line: at(a, x) });
    }
  }
  while (x > 0 && y > 0) {
    x -= 1;
    y -= 1;
    edits.push({ op: ' ', line: at(a, x) });
  }
  return edits.reverse();
}

function range(start: number, count: number): string {
  if (count === 1) return String(start);
  return `${count === 0 ? start - 1 : start},${count}`;
}

/**
 * The unified diff of `from` and `to`, or the empty string when their lines are equal. Lines are
 * compared exactly (whitespace counts); a missing final newline is not reported.
 */
export function unifiedDiff(from: string, to: string, options: UnifiedDiffOptions): string {
  const context = options.context ?? 3;
  const a = splitLines(from);
  const b = splitLines(to);
  const edits = editScript(a, b);
  if (edits.every((edit) => edit.op === ' ')) return '';

  const out: string[] = [`--- ${options.fromLabel}`, `+++ ${options.toLabel}`];
  // Positions (1-based) in a and b before each edit.
  const posA: number[] = [];
  const posB: number[] = [];
  let ia = 1;
  let ib = 1;
  for (const edit of edits) {
    posA.push(ia);
    posB.push(ib);
    if (edit.op !== '+') ia += 1;
    if (edit.op !== '-') ib += 1;
  }
  let i = 0;
  while (i < edits.length) {
    while (i < edits.length && at(edits, i).op === ' ') i += 1;
    if (i >= edits.length) break;
    // A hunk: from `context` lines before the first change to `context` lines after the last
    // change that is not separated from the next by more than 2·context unchanged lines.
    const start = Math.max(0, i - context);
    let end = i;
    for (;;) {
      while (end < edits.length && at(edits, end).op !== ' ') end += 1;
      let gap = end;
      while (gap < edits.length && at(edits, gap).op === ' ') gap += 1;
      if (gap < edits.length && gap - end <= 2 * context) {
        end = gap;
        continue;
      }
      end = Math.min(edits.length, end + context);
      break;
    }
    const hunk = edits.slice(start, end);
    const countA = hunk.filter((e) => e.op !== '+').length;
    const countB = hunk.filter((e) => e.op !== '-').length;
    out.push(`@@ -${range(at(posA, start), countA)} +${range(at(posB, start), countB)} @@`);
    for (const edit of hunk) out.push(`${edit.op}${edit.line}`);
    i = end;
  }
  return `${out.join('\n')}\n`;
}
