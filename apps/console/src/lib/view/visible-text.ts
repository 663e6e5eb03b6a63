/**
 * Agent-written text as an operator must see it before approving it: every character that draws
 * nothing or moves other characters (format and control characters, bidi overrides and isolates,
 * zero-width characters, line and paragraph separators, blank-looking letters, spaces other than
 * U+0020, invisible variation selectors and tags) and every whitespace run that can push text out
 * of sight (long runs of spaces, tabs, spaces before a line break) become a visible marker such as
 * ⟦U+202E⟧ or ⟦400 spaces⟧, and a non-Latin letter that looks like a Latin one inside a Latin word
 * (`gіthub`, Cyrillic і) becomes a marker too. The approval binds to the exact input, so what is
 * hidden on screen is exactly what runs.
 *
 * One pass over the text, index only moving forward, character classes without quantifiers: the
 * cost is linear in the length, whatever the text (no backtracking to provoke).
 */

/** A piece of the text as shown: as it is, or a marker standing for characters that would mislead. */
export type TextPiece =
  | { kind: 'text'; text: string }
  | {
      kind: 'mark';
      /** What the page shows instead: `⟦U+202E⟧`, `⟦TAB⟧`, `⟦400 spaces⟧`. */
      text: string;
      /** What it stands for, in words (the marker's tooltip). */
      title: string;
      /** What kind of trouble, for styling and the warning. */
      reason: MarkReason;
      /** The characters it stands for. */
      source: string;
    };

export type MarkReason = 'invisible' | 'whitespace' | 'lookalike';

/** Spaces in a row from which a run is shown as one marker: enough to push text out of a line. */
export const LONG_SPACE_RUN = 16;

/** Combining marks on one character from which they are shown as a marker: enough to draw over neighbours. */
export const COMBINING_PILE = 5;

const NAMES: ReadonlyMap<number, string> = new Map([
  [0x00, 'NUL'],
  [0x08, 'BACKSPACE'],
  [0x09, 'TAB'],
  [0x0b, 'VERTICAL TAB'],
  [0x0c, 'FORM FEED'],
  [0x0d, 'CARRIAGE RETURN'],
  [0x1b, 'ESCAPE'],
  [0x7f, 'DELETE'],
  [0x85, 'NEXT LINE'],
  [0xa0, 'NO-BREAK SPACE'],
  [0xad, 'SOFT HYPHEN'],
  [0x034f, 'COMBINING GRAPHEME JOINER'],
  [0x061c, 'ARABIC LETTER MARK'],
  [0x115f, 'HANGUL CHOSEONG FILLER'],
  [0x1160, 'HANGUL JUNGSEONG FILLER'],
  [0x180e, 'MONGOLIAN VOWEL SEPARATOR'],
  [0x200b, 'ZERO WIDTH SPACE'],
  [0x200c, 'ZERO WIDTH NON-JOINER'],
  [0x200d, 'ZERO WIDTH JOINER'],
  [0x200e, 'LEFT-TO-RIGHT MARK'],
  [0x200f, 'RIGHT-TO-LEFT MARK'],
  [0x2028, 'LINE SEPARATOR'],
  [0x2029, 'PARAGRAPH SEPARATOR'],
  [0x202a, 'LEFT-TO-RIGHT EMBEDDING'],
  [0x202b, 'RIGHT-TO-LEFT EMBEDDING'],
  [0x202c, 'POP DIRECTIONAL FORMATTING'],
  [0x202d, 'LEFT-TO-RIGHT OVERRIDE'],
  [0x202e, 'RIGHT-TO-LEFT OVERRIDE'],
  [0x202f, 'NARROW NO-BREAK SPACE'],
  [0x205f, 'MEDIUM MATHEMATICAL SPACE'],
  [0x2060, 'WORD JOINER'],
  [0x2066, 'LEFT-TO-RIGHT ISOLATE'],
  [0x2067, 'RIGHT-TO-LEFT ISOLATE'],
  [0x2068, 'FIRST STRONG ISOLATE'],
  [0x2069, 'POP DIRECTIONAL ISOLATE'],
  [0x2800, 'BRAILLE PATTERN BLANK'],
  [0x3000, 'IDEOGRAPHIC SPACE'],
  [0x3164, 'HANGUL FILLER'],
  [0xfeff, 'ZERO WIDTH NO-BREAK SPACE (byte order mark)'],
  [0xffa0, 'HALFWIDTH HANGUL FILLER'],
]);

/** Short marker names for the controls people know by name. */
const SHORT: ReadonlyMap<number, string> = new Map([
  [0x09, 'TAB'],
  [0x0d, 'CR'],
  [0x1b, 'ESC'],
  [0x00, 'NUL'],
]);

/**
 * Characters that draw nothing, draw as blank, or change how other characters are drawn or read:
 * format (Cf: bidi controls, zero-width characters, tags…), controls (Cc; the line feed is let
 * through before this test), surrogates without their pair, private use, line and paragraph
 * separators, spaces other than U+0020, letters that draw as blank, and variation selectors.
 * A class with no quantifier: matching one character cannot backtrack.
 */
const INVISIBLE_CLASS = /^[\p{Cf}\p{Cc}\p{Cs}\p{Co}\p{Zl}\p{Zp}\p{Zs}\u115f\u1160\u2800\u3164\uffa0]$/u;

/** The combining grapheme joiner and the variation selectors: combining marks that draw nothing. */
function isInvisibleMark(code: number): boolean {
  return code === 0x034f || (code >= 0xfe00 && code <= 0xfe0f) || (code >= 0xe0100 && code <= 0xe01ef);
}

function isInvisible(code: number, ch: string): boolean {
  return isInvisibleMark(code) || INVISIBLE_CLASS.test(ch);
}
const VARIATION_16 = 0xfe0f;
const VARIATION_15 = 0xfe0e;
const ZWJ = 0x200d;
const PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;
const EMOJI_MODIFIER = /^\p{Emoji_Modifier}$/u;
const COMBINING = /^\p{M}$/u;
const WORD_CHAR = /^[\p{L}\p{M}\p{N}_]$/u;
/** Scripts with letters drawn like Latin ones (а/a, ο/o, ս/u, Ꭺ/A): mixed into a Latin word, they deceive. */
const LOOKALIKE_SCRIPT = /^[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Cherokee}]$/u;
const LOOKALIKE_SCRIPT_NAME: readonly [RegExp, string][] = [
  [/^\p{Script=Cyrillic}$/u, 'Cyrillic'],
  [/^\p{Script=Greek}$/u, 'Greek'],
  [/^\p{Script=Armenian}$/u, 'Armenian'],
  [/^\p{Script=Cherokee}$/u, 'Cherokee'],
];

function hex(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

function isAsciiWordChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

function isAsciiLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** The code point at `i` and its length in UTF-16 units (a lone surrogate is itself, length 1). */
function codePointAt(text: string, i: number): [number, number] {
  const code = text.codePointAt(i) ?? 0;
  return [code, code > 0xffff ? 2 : 1];
}

function isWordChar(code: number, ch: string): boolean {
  return code < 0x80 ? isAsciiWordChar(code) : WORD_CHAR.test(ch);
}

/**
 * Where the lookalike letters are: the start of every word (letters, marks, digits, `_`) that has
 * both an ASCII letter and a letter of a lookalike script. One pass; words never overlap.
 */
function mixedWords(text: string): Set<number> {
  const starts = new Set<number>();
  let start = -1;
  let ascii = false;
  let lookalike = false;
  for (let i = 0; i <= text.length; ) {
    if (i === text.length) {
      if (start >= 0 && ascii && lookalike) starts.add(start);
      break;
    }
    const [code, size] = codePointAt(text, i);
    const ch = code < 0x80 ? '' : text.slice(i, i + size);
    if (isWordChar(code, ch)) {
      if (start < 0) {
        start = i;
        ascii = false;
        lookalike = false;
      }
      if (isAsciiLetter(code)) ascii = true;
      else if (code >= 0x80 && LOOKALIKE_SCRIPT.test(ch)) lookalike = true;
    } else if (start >= 0) {
      if (ascii && lookalike) starts.add(start);
      start = -1;
    }
    i += size;
  }
  return starts;
}

function hasNonAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return true;
  return false;
}

function plural(count: number, one: string, many: string): string {
  return count === 1 ? `1 ${one}` : `${count} ${many}`;
}

/** The pieces `text` is shown as; text without anything to mark is one text piece. */
export function visiblePieces(text: string): TextPiece[] {
  const pieces: TextPiece[] = [];
  let plainFrom = 0;
  const flush = (to: number) => {
    if (to > plainFrom) pieces.push({ kind: 'text', text: text.slice(plainFrom, to) });
  };
  const mark = (at: number, to: number, piece: Omit<Extract<TextPiece, { kind: 'mark' }>, 'kind' | 'source'>) => {
    flush(at);
    pieces.push({ kind: 'mark', ...piece, source: text.slice(at, to) });
    plainFrom = to;
  };
  // Lookalikes need the whole word; words are found first so this pass never looks back.
  const mixed = hasNonAscii(text) ? mixedWords(text) : new Set<number>();
  let inMixedWord = false;
  let afterPictograph = false;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x20) {
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) === 0x20) end++;
      const count = end - i;
      const next = end < text.length ? text.charCodeAt(end) : -1;
      const beforeBreak = next === 0x0a || next === 0x0d || next === 0x2028 || next === 0x2029;
      if (count >= LONG_SPACE_RUN) mark(i, end, { text: `⟦${count} spaces⟧`, title: `${count} spaces in a row`, reason: 'whitespace' });
      else if (beforeBreak) mark(i, end, { text: `⟦${plural(count, 'trailing space', 'trailing spaces')}⟧`, title: `${plural(count, 'space', 'spaces')} at the end of a line`, reason: 'whitespace' });
      inMixedWord = false;
      afterPictograph = false;
      i = end;
      continue;
    }
    if (c === 0x0a || (c > 0x20 && c < 0x7f)) {
      if (!isAsciiWordChar(c)) inMixedWord = false;
      else if (!inMixedWord && mixed.has(i)) inMixedWord = true;
      afterPictograph = false;
      i++;
      continue;
    }
    if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) {
      // CRLF is an ordinary line end (files written on Windows); a CR alone can overwrite a line in a terminal.
      inMixedWord = false;
      i += 2;
      continue;
    }
    const [code, size] = codePointAt(text, i);
    const ch = text.slice(i, i + size);
    if (mixed.has(i)) inMixedWord = true;
    if (isInvisible(code, ch)) {
      // An emoji's own presentation selector and the joiner inside an emoji sequence are what they look like.
      const emojiPart = afterPictograph && (code === VARIATION_16 || code === VARIATION_15 || (code === ZWJ && PICTOGRAPHIC.test(String.fromCodePoint(text.codePointAt(i + 1) ?? 0))));
      if (emojiPart) {
        i += size;
        continue;
      }
      // A run of the same character is one marker: ⟦TAB×3⟧, ⟦U+200B×40⟧.
      let end = i + size;
      // (A CR never runs on: the last one before a line feed is part of a CRLF.)
      while (code !== 0x0d && end < text.length && text.codePointAt(end) === code) end += size;
      const count = (end - i) / size;
      const name = NAMES.get(code);
      const short = SHORT.get(code) ?? hex(code);
      const kind = code === 0x09 ? 'whitespace' : 'invisible';
      mark(i, end, {
        text: `⟦${short}${count > 1 ? `×${count}` : ''}⟧`,
        title: `${count > 1 ? `${count} × ` : ''}${hex(code)}${name ? ` ${name}` : ''}: ${describeInvisible(code)}`,
        reason: kind,
      });
      inMixedWord = code !== 0x09 && inMixedWord && isWordChar(code, ch);
      afterPictograph = false;
      i = end;
      continue;
    }
    if (COMBINING.test(ch)) {
      let end = i + size;
      let count = 1;
      while (end < text.length) {
        const [, nextSize] = codePointAt(text, end);
        if (!COMBINING.test(text.slice(end, end + nextSize))) break;
        end += nextSize;
        count++;
      }
      if (count >= COMBINING_PILE) {
        mark(i, end, { text: `⟦${count} combining marks⟧`, title: `${count} combining marks on one character: they can draw over the characters beside it`, reason: 'invisible' });
        i = end;
        continue;
      }
      i += size;
      continue;
    }
    if (inMixedWord && LOOKALIKE_SCRIPT.test(ch)) {
      const script = LOOKALIKE_SCRIPT_NAME.find(([pattern]) => pattern.test(ch))?.[1] ?? 'non-Latin';
      mark(i, i + size, { text: `⟦${ch} ${hex(code)}⟧`, title: `${script} letter ${hex(code)} inside a Latin word: it looks like a Latin letter but is not one`, reason: 'lookalike' });
      afterPictograph = false;
      i += size;
      continue;
    }
    if (!isWordChar(code, ch)) inMixedWord = false;
    afterPictograph = PICTOGRAPHIC.test(ch) || (afterPictograph && EMOJI_MODIFIER.test(ch));
    i += size;
  }
  flush(text.length);
  return pieces;
}

function describeInvisible(code: number): string {
  if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || code === 0x200e || code === 0x200f || code === 0x061c) return 'changes the order in which the characters after it are drawn';
  if (code === 0x09) return 'a tab';
  if (code === 0x0d) return 'a carriage return without a line feed: a terminal draws what follows over the line';
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return 'a control character';
  if (code === 0x2028 || code === 0x2029) return 'a line break that is not a line feed';
  if (code >= 0xd800 && code <= 0xdfff) return 'half of a character (a surrogate without its pair)';
  if (code >= 0xe0000 && code <= 0xe007f) return 'a tag character: invisible, and able to carry hidden text';
  if ((code >= 0xfe00 && code <= 0xfe0f) || (code >= 0xe0100 && code <= 0xe01ef)) return 'a variation selector: invisible here';
  if (code >= 0xe000 && code <= 0xf8ff) return 'a private-use character: fonts draw it as anything';
  if (code === 0xa0 || (code >= 0x2000 && code <= 0x200a) || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0x1680) return 'looks like a space but is a different character';
  return 'draws nothing, or draws as blank';
}

/** `text` with its markers, as one string (a field path, a tooltip, a one-line summary). */
export function visibleText(text: string): string {
  const pieces = visiblePieces(text);
  if (pieces.length === 1 && pieces[0]?.kind === 'text') return text;
  return pieces.map((piece) => piece.text).join('');
}

/** How many markers `pieces` has. */
export function countMarks(pieces: readonly TextPiece[]): number {
  let count = 0;
  for (const piece of pieces) if (piece.kind === 'mark') count++;
  return count;
}

/** Where a value has marked text and how much: what the warning above an approval lists. */
export interface HiddenTextReport {
  /** Markers in all (a run of the same character counts once). */
  count: number;
  /** Field paths with their count, in the order they are shown; at most {@link MAX_PLACES}. */
  places: { path: string; count: number }[];
  /** Further fields with markers, beyond those listed. */
  morePlaces: number;
}

export const MAX_PLACES = 20;

/** The path of a key under `parent`: `env.PATH`, `args[2]`, `files["a b"]` (the key itself shown with its markers). */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(visibleText(key))}]`;
}

/** Collects reports from pieces, field by field. */
export class HiddenTextCollector {
  private readonly report: HiddenTextReport = { count: 0, places: [], morePlaces: 0 };

  add(path: string, count: number): void {
    if (count === 0) return;
    this.report.count += count;
    const last = this.report.places.at(-1);
    if (last && last.path === path) last.count += count;
    else if (this.report.places.length < MAX_PLACES) this.report.places.push({ path, count });
    else this.report.morePlaces++;
  }

  result(): HiddenTextReport {
    return this.report;
  }
}

/**
 * Every string (and object key) of a JSON-like `value` checked as {@link visiblePieces} shows it,
 * with where it is. `root` names the value itself in paths (`input` → `input.command`).
 */
export function describeHiddenText(value: unknown, root = ''): HiddenTextReport {
  const collector = new HiddenTextCollector();
  const stack: [unknown, string][] = [[value, root]];
  // Depth-first in document order, without recursion (a deep value cannot overflow the stack).
  while (stack.length > 0) {
    const [item, path] = stack.pop() as [unknown, string];
    if (typeof item === 'string') collector.add(path === '' ? '(the value)' : path, countMarks(visiblePieces(item)));
    else if (Array.isArray(item)) for (let k = item.length - 1; k >= 0; k--) stack.push([item[k], childPath(path, k)]);
    else if (typeof item === 'object' && item !== null) {
      const entries = Object.entries(item);
      for (let k = entries.length - 1; k >= 0; k--) {
        const [key, child] = entries[k] as [string, unknown];
        stack.push([child, childPath(path, key)]);
        stack.push([key, `${childPath(path, key)} (key)`]);
      }
    }
  }
  return collector.result();
}
