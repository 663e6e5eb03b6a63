/**
 * A compile-time guard against the commonest catastrophic-backtracking patterns: a group that
 * repeats (`*`, `+`, `{n,}`, `{n,m}` with m > 1) around something that repeats without bound
 * (`*`, `+`, `{n,}`) — `(a+)+`, `(.*)*`, `(\w+\s?)*`, `(?:x*y)+`. On JavaScript's backtracking
 * engine such a pattern can take exponential time on a non-matching input, and since patterns run
 * on agent-supplied text inside a worker, one bad pattern lets any agent stall the workers.
 *
 * It is a syntactic check, not a proof: it refuses nested quantifiers and nothing else (an
 * overlapping alternation such as `(a|a)*` still passes), so it stops the pattern people write by
 * accident without forbidding ordinary ones like `(foo|bar)+` or `(sudo\s+)?`.
 */

/** What a quantifier at `at` does: repeat at all (more than once), and without bound. */
interface Quantifier {
  repeats: boolean;
  unbounded: boolean;
  /** Index just after the quantifier (and its lazy `?`). */
  end: number;
}

function quantifierAt(source: string, at: number): Quantifier | undefined {
  const char = source[at];
  let q: Quantifier | undefined;
  if (char === '*' || char === '+') q = { repeats: true, unbounded: true, end: at + 1 };
  else if (char === '?') q = { repeats: false, unbounded: false, end: at + 1 };
  else if (char === '{') {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at, at + 24));
    if (match === null) return undefined;
    const unbounded = match[2] !== undefined && match[3] === '';
    const max = match[2] === undefined ? Number(match[1]) : unbounded ? Number.POSITIVE_INFINITY : Number(match[3]);
    q = { repeats: max > 1, unbounded, end: at + match[0].length };
  }
  if (q !== undefined && source[q.end] === '?') q.end += 1;
  return q;
}

/** Where a group opened at `at` starts its content (after `?:`, `?=`, `?!`, `?<=`, `?<!`, `?<name>`). */
function groupContentStart(source: string, at: number): number {
  if (source[at + 1] !== '?') return at + 1;
  const kind = source[at + 2];
  if (kind === ':' || kind === '=' || kind === '!') return at + 3;
  if (kind === '<') {
    if (source[at + 3] === '=' || source[at + 3] === '!') return at + 4;
    const close = source.indexOf('>', at + 3);
    return close < 0 ? at + 3 : close + 1;
  }
  return at + 2;
}

/**
 * The offset of the first repeated group that contains an unbounded quantifier, or undefined when
 * there is none. Escapes and character classes are skipped; an unbalanced pattern is left to the
 * `RegExp` constructor to refuse.
 */
export function findNestedQuantifier(source: string): number | undefined {
  /** Per open group: where it opened, and whether something inside repeats without bound. */
  const root = { at: 0, unboundedInside: false };
  const groups: { at: number; unboundedInside: boolean }[] = [root];
  const current = () => groups[groups.length - 1] ?? root;
  let i = 0;
  while (i < source.length) {
    const char = source[i];
    if (char === '\\') {
      i += 2;
      const q = quantifierAt(source, i);
      if (q !== undefined) {
        if (q.unbounded) current().unboundedInside = true;
        i = q.end;
      }
      continue;
    }
    if (char === '[') {
      i += 1;
      if (source[i] === '^') i += 1;
      if (source[i] === ']') i += 1;
      while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
      i += 1;
    } else if (char === '(') {
      groups.push({ at: i, unboundedInside: false });
      i = groupContentStart(source, i);
      continue;
    } else if (char === ')') {
      const group = (groups.length > 1 ? groups.pop() : undefined) ?? { at: i, unboundedInside: false };
      const q = quantifierAt(source, i + 1);
      if (q !== undefined && q.repeats && group.unboundedInside) return group.at;
      const parent = current();
      parent.unboundedInside ||= group.unboundedInside || (q?.unbounded ?? false);
      i = q?.end ?? i + 1;
      continue;
    } else {
      i += 1;
    }
    const q = quantifierAt(source, i);
    if (q !== undefined) {
      if (q.unbounded) current().unboundedInside = true;
      i = q.end;
    }
  }
  return undefined;
}
