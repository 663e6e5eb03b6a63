/**
 * The lexer of the hooks expression language: source text → tokens with their offsets.
 */
import { ExpressionError } from './errors.js';

export type TokenKind =
  | 'number'
  | 'string'
  | 'regex'
  | 'ident'
  | 'keyword'
  | 'op'
  | '('
  | ')'
  | '['
  | ']'
  | ','
  | '.'
  | '-'
  | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** The identifier, keyword or operator text; the decoded string; the regex source. */
  readonly text: string;
  /** Numbers only. */
  readonly number?: number;
  /** Regex literals only. */
  readonly flags?: string;
  readonly start: number;
  readonly end: number;
}

/** Words with a meaning of their own; none of them can name a variable. */
export const KEYWORDS: ReadonlySet<string> = new Set([
  'and',
  'or',
  'not',
  'in',
  'contains',
  'matches',
  'startswith',
  'endswith',
  'true',
  'false',
  'null',
]);

/** Characters of a number literal. `123456789012345678901234567890.5` is already too long to mean anything here. */
const MAX_NUMBER_CHARS = 32;
/** Flags a regular expression may carry: no `g`/`y` (stateful), no `d` (indices). */
const REGEX_FLAGS = /^[imsu]*$/;

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;
const DIGIT = /[0-9]/;

/** Splits `source` into tokens, ending with an `eof` token. @throws {@link ExpressionError} */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const at = (k: number) => source.charAt(k);
  while (i < source.length) {
    const c = at(i);
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i += 1;
      continue;
    }
    const start = i;
    if (DIGIT.test(c)) {
      let j = i;
      while (DIGIT.test(at(j))) j += 1;
      if (at(j) === '.' && DIGIT.test(at(j + 1))) {
        j += 1;
        while (DIGIT.test(at(j))) j += 1;
      }
      if ((at(j) === 'e' || at(j) === 'E') && (DIGIT.test(at(j + 1)) || ((at(j + 1) === '+' || at(j + 1) === '-') && DIGIT.test(at(j + 2))))) {
        j += 2;
        while (DIGIT.test(at(j))) j += 1;
      }
      if (IDENT_PART.test(at(j))) throw new ExpressionError(`invalid number: "${source.slice(start, j + 1)}"`, start);
      const text = source.slice(start, j);
      if (text.length > MAX_NUMBER_CHARS) throw new ExpressionError(`number literal longer than ${MAX_NUMBER_CHARS} characters`, start);
      const value = Number(text);
      if (!Number.isFinite(value)) throw new ExpressionError(`number ${text} is out of range`, start);
      tokens.push({ kind: 'number', text, number: value, start, end: j });
      i = j;
      continue;
    }
    if (IDENT_START.test(c)) {
      let j = i + 1;
      while (IDENT_PART.test(at(j))) j += 1;
      const text = source.slice(start, j);
      tokens.push({ kind: KEYWORDS.has(text) ? 'keyword' : 'ident', text, start, end: j });
      i = j;
      continue;
    }
    if (c === '"' || c === "'") {
      const { value, end } = readString(source, i);
      tokens.push({ kind: 'string', text: value, start, end });
      i = end;
      continue;
    }
    if (c === '/') {
      const { body, flags, end } = readRegex(source, i);
      tokens.push({ kind: 'regex', text: body, flags, start, end });
      i = end;
      continue;
    }
    const two = source.slice(i, i + 2);
    if (two === '==' || two === '!=' || two === '<=' || two === '>=') {
      tokens.push({ kind: 'op', text: two, start, end: i + 2 });
      i += 2;
      continue;
    }
    if (two === '&&') throw new ExpressionError('unexpected "&&": write "and"', start);
    if (two === '||') throw new ExpressionError('unexpected "||": write "or"', start);
    if (c === '<' || c === '>') {
      tokens.push({ kind: 'op', text: c, start, end: i + 1 });
      i += 1;
      continue;
    }
    if (c === '(' || c === ')' || c === '[' || c === ']' || c === ',' || c === '.' || c === '-') {
      tokens.push({ kind: c, text: c, start, end: i + 1 });
      i += 1;
      continue;
    }
    if (c === '=') throw new ExpressionError('unexpected "=": compare with "=="', start);
    if (c === '!') throw new ExpressionError('unexpected "!": write "not" (or "!=" to compare)', start);
    const shown = JSON.stringify(String.fromCodePoint(source.codePointAt(i) ?? 0));
    throw new ExpressionError(`unexpected character ${shown}`, start);
  }
  // The end points just after the last token, so "unexpected end" lands where text is missing.
  const end = source.trimEnd().length;
  tokens.push({ kind: 'eof', text: '', start: end, end });
  return tokens;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  n: '\n',
  r: '\r',
  t: '\t',
  '0': '\0',
  '/': '/',
};

/** Reads a quoted string starting at `start` (the quote); returns its value and the offset after it. */
function readString(source: string, start: number): { value: string; end: number } {
  const quote = source.charAt(start);
  let value = '';
  let i = start + 1;
  while (i < source.length) {
    const c = source.charAt(i);
    if (c === quote) return { value, end: i + 1 };
    if (c !== '\\') {
      value += c;
      i += 1;
      continue;
    }
    const next = source.charAt(i + 1);
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      value += simple;
      i += 2;
      continue;
    }
    if (next === 'u') {
      const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(source.slice(i + 2, i + 11));
      const plain = /^[0-9a-fA-F]{4}/.exec(source.slice(i + 2, i + 6));
      const hex = braced?.[1] ?? plain?.[0];
      const code = hex === undefined ? Number.NaN : Number.parseInt(hex, 16);
      if (!Number.isInteger(code) || code > 0x10ffff) {
        throw new ExpressionError('invalid \\u escape: use \\uXXXX or \\u{X…} (at most 10FFFF)', i);
      }
      value += String.fromCodePoint(code);
      i += 2 + (braced === null ? 4 : (braced[0] ?? '').length);
      continue;
    }
    throw new ExpressionError(`unknown escape "\\${next}" (known: \\\\ \\' \\" \\n \\r \\t \\0 \\/ \\uXXXX \\u{…})`, i);
  }
  throw new ExpressionError(`unterminated string: missing the closing ${quote}`, start);
}

/** Reads `/body/flags` starting at `start`; a `/` inside a character class or after `\` does not end it. */
function readRegex(source: string, start: number): { body: string; flags: string; end: number } {
  let i = start + 1;
  let inClass = false;
  while (i < source.length) {
    const c = source.charAt(i);
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '\n') break;
    if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') {
      inClass = true;
    } else if (c === '/') {
      const body = source.slice(start + 1, i);
      let j = i + 1;
      while (IDENT_PART.test(source.charAt(j))) j += 1;
      const flags = source.slice(i + 1, j);
      if (!REGEX_FLAGS.test(flags) || new Set(flags).size !== flags.length) {
        throw new ExpressionError(`unsupported regular-expression flags "${flags}" (allowed: i, m, s, u, each once)`, i + 1);
      }
      if (body.length === 0) throw new ExpressionError('empty regular expression', start);
      return { body, flags, end: j };
    }
    i += 1;
  }
  throw new ExpressionError('unterminated regular expression: missing the closing /', start);
}
