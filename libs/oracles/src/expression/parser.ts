/**
 * The parser of the hooks expression language: tokens → syntax tree, by precedence climbing
 * (Pratt). The grammar, loosest binding first:
 *
 * ```
 * expression  := or
 * or          := and ("or" and)*
 * and         := not ("and" not)*
 * not         := "not" not | comparison
 * comparison  := postfix (compare-op postfix)?        -- at most one: a < b < c is an error
 * compare-op  := "==" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "not" "in"
 *              | "contains" | "matches" | "startswith" | "endswith"
 * postfix     := primary ("." name | "[" expression "]")*
 * primary     := number | "-" number | string | regex | "true" | "false" | "null"
 *              | "[" (expression ("," expression)* ","?)? "]"
 *              | name "(" (expression ("," expression)*)? ")"   -- built-in functions only
 *              | name
 *              | "(" expression ")"
 * ```
 */
import { ExpressionError } from './errors.js';
import { tokenize } from './lexer.js';
import type { Token } from './lexer.js';

export type CompareOp = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not in' | 'contains' | 'matches' | 'startswith' | 'endswith';

interface Located {
  readonly start: number;
  readonly end: number;
}

export type Node =
  | (Located & { readonly type: 'literal'; readonly value: null | boolean | number | string })
  | (Located & { readonly type: 'regex'; readonly source: string; readonly flags: string })
  | (Located & { readonly type: 'list'; readonly items: readonly Node[] })
  | (Located & { readonly type: 'var'; readonly name: string })
  | (Located & { readonly type: 'member'; readonly object: Node; readonly key: string; readonly keyStart: number })
  | (Located & { readonly type: 'index'; readonly object: Node; readonly index: Node })
  | (Located & { readonly type: 'call'; readonly name: string; readonly args: readonly Node[] })
  | (Located & { readonly type: 'not'; readonly operand: Node })
  | (Located & { readonly type: 'logical'; readonly op: 'and' | 'or'; readonly operands: readonly Node[] })
  | (Located & { readonly type: 'compare'; readonly op: CompareOp; readonly left: Node; readonly right: Node; readonly opStart: number });

/** Limits that keep a hostile or careless expression from costing much to compile or evaluate. */
export const EXPRESSION_LIMITS = Object.freeze({
  /** Characters of one expression. */
  maxChars: 4096,
  /** Nesting: parentheses, lists, indexes, function arguments and `not` chains. */
  maxDepth: 32,
  /** Elements of one list literal. */
  maxListItems: 256,
  /** Property accesses in one chain (`a.b[0].c` is 3). */
  maxPathSegments: 32,
  /** Characters of a regular expression given to `matches`. */
  maxRegexChars: 512,
});

const COMPARE_KEYWORDS: ReadonlySet<string> = new Set(['in', 'contains', 'matches', 'startswith', 'endswith']);

/** Parses one expression. @throws {@link ExpressionError} with the offset of the problem. */
export function parse(source: string): Node {
  if (source.length > EXPRESSION_LIMITS.maxChars) {
    throw new ExpressionError(`expression longer than ${EXPRESSION_LIMITS.maxChars} characters`, EXPRESSION_LIMITS.maxChars);
  }
  if (source.trim() === '') throw new ExpressionError('empty expression', 0);
  const parser = new Parser(tokenize(source));
  const node = parser.expression(0);
  parser.expectEnd();
  return node;
}

class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  private peek(offset = 0): Token {
    const token = this.tokens[Math.min(this.index + offset, this.tokens.length - 1)];
    if (token === undefined) throw new ExpressionError('unexpected end of the expression', 0);
    return token;
  }

  private next(): Token {
    const token = this.peek();
    if (this.index < this.tokens.length - 1) this.index += 1;
    return token;
  }

  private isKeyword(token: Token, word: string): boolean {
    return token.kind === 'keyword' && token.text === word;
  }

  private enter(at: number): void {
    this.depth += 1;
    if (this.depth > EXPRESSION_LIMITS.maxDepth) {
      throw new ExpressionError(`expression nested deeper than ${EXPRESSION_LIMITS.maxDepth} levels`, at);
    }
  }

  private leave(): void {
    this.depth -= 1;
  }

  expectEnd(): void {
    const token = this.peek();
    if (token.kind !== 'eof') throw new ExpressionError(`unexpected ${describe(token)} after the end of the expression`, token.start);
  }

  /**
   * An expression whose loosest operator binds at least as tightly as `minPower`: 0 accepts
   * everything, 1 stops before `or` (the operands of an `or`). `and` and `or` chains are
   * collected into one flat node each.
   */
  expression(minPower: number): Node {
    let left = this.unary();
    for (;;) {
      const token = this.peek();
      if (this.isKeyword(token, 'or') && minPower < 1) {
        left = this.logical('or', left);
      } else if (this.isKeyword(token, 'and') && minPower < 2) {
        left = this.logical('and', left);
      } else {
        return left;
      }
    }
  }

  private logical(op: 'and' | 'or', first: Node): Node {
    const operands: Node[] = [first];
    while (this.isKeyword(this.peek(), op)) {
      this.next();
      operands.push(op === 'or' ? this.expression(1) : this.unary());
    }
    const last = operands[operands.length - 1] ?? first;
    return { type: 'logical', op, operands, start: first.start, end: last.end };
  }

  /** `not x` or a comparison. */
  private unary(): Node {
    const token = this.peek();
    if (this.isKeyword(token, 'not')) {
      this.next();
      this.enter(token.start);
      const operand = this.unary();
      this.leave();
      return { type: 'not', operand, start: token.start, end: operand.end };
    }
    return this.comparison();
  }

  private comparison(): Node {
    const left = this.postfix();
    const op = this.compareOp();
    if (op === undefined) return left;
    const right = this.postfix();
    const node: Node = { type: 'compare', op: op.op, left, right, opStart: op.start, start: left.start, end: right.end };
    const again = this.compareOp(true);
    if (again !== undefined) {
      throw new ExpressionError(`comparisons cannot be chained: combine them with "and" (before "${again.op}")`, again.start);
    }
    return node;
  }

  /** Reads a comparison operator if one comes next; with `peekOnly`, leaves it in place. */
  private compareOp(peekOnly = false): { op: CompareOp; start: number } | undefined {
    const token = this.peek();
    if (token.kind === 'op') {
      if (!peekOnly) this.next();
      return { op: token.text as CompareOp, start: token.start };
    }
    if (token.kind === 'keyword' && COMPARE_KEYWORDS.has(token.text)) {
      if (!peekOnly) this.next();
      return { op: token.text as CompareOp, start: token.start };
    }
    if (this.isKeyword(token, 'not') && this.isKeyword(this.peek(1), 'in')) {
      if (!peekOnly) {
        this.next();
        this.next();
      }
      return { op: 'not in', start: token.start };
    }
    return undefined;
  }

  private postfix(): Node {
    let node = this.primary();
    let segments = 0;
    for (;;) {
      const token = this.peek();
      if (token.kind === '.') {
        this.next();
        const name = this.next();
        if (name.kind !== 'ident' && name.kind !== 'keyword') {
          throw new ExpressionError(`expected a field name after ".", found ${describe(name)}`, name.start);
        }
        node = { type: 'member', object: node, key: name.text, keyStart: name.start, start: node.start, end: name.end };
      } else if (token.kind === '[') {
        this.next();
        this.enter(token.start);
        const index = this.expression(0);
        this.leave();
        const close = this.next();
        if (close.kind !== ']') throw new ExpressionError(`expected "]", found ${describe(close)}`, close.start);
        node =
          index.type === 'literal' && typeof index.value === 'string'
            ? { type: 'member', object: node, key: index.value, keyStart: index.start, start: node.start, end: close.end }
            : { type: 'index', object: node, index, start: node.start, end: close.end };
      } else if (token.kind === '(') {
        throw new ExpressionError('only the built-in functions can be called (len, lower, upper, trim, exists, default, path_normalize, shell_join)', token.start);
      } else {
        return node;
      }
      segments += 1;
      if (segments > EXPRESSION_LIMITS.maxPathSegments) {
        throw new ExpressionError(`more than ${EXPRESSION_LIMITS.maxPathSegments} field accesses in one path`, token.start);
      }
    }
  }

  private primary(): Node {
    const token = this.next();
    switch (token.kind) {
      case 'number':
        return { type: 'literal', value: token.number ?? 0, start: token.start, end: token.end };
      case '-': {
        const number = this.next();
        if (number.kind !== 'number' || number.start !== token.end) {
          throw new ExpressionError('"-" must be followed directly by a number (there is no arithmetic)', token.start);
        }
        return { type: 'literal', value: -(number.number ?? 0), start: token.start, end: number.end };
      }
      case 'string':
        return { type: 'literal', value: token.text, start: token.start, end: token.end };
      case 'regex':
        return { type: 'regex', source: token.text, flags: token.flags ?? '', start: token.start, end: token.end };
      case 'keyword':
        if (token.text === 'true' || token.text === 'false') {
          return { type: 'literal', value: token.text === 'true', start: token.start, end: token.end };
        }
        if (token.text === 'null') return { type: 'literal', value: null, start: token.start, end: token.end };
        throw new ExpressionError(`unexpected "${token.text}": expected a value`, token.start);
      case '[':
        return this.list(token);
      case '(': {
        this.enter(token.start);
        const inner = this.expression(0);
        this.leave();
        const close = this.next();
        if (close.kind !== ')') throw new ExpressionError(`expected ")", found ${describe(close)}`, close.start);
        return inner;
      }
      case 'ident':
        if (this.peek().kind === '(') return this.call(token);
        return { type: 'var', name: token.text, start: token.start, end: token.end };
      case 'eof':
        throw new ExpressionError('unexpected end of the expression: expected a value', token.start);
      default:
        throw new ExpressionError(`unexpected ${describe(token)}: expected a value`, token.start);
    }
  }

  private list(open: Token): Node {
    this.enter(open.start);
    const items: Node[] = [];
    for (;;) {
      if (this.peek().kind === ']') break;
      items.push(this.expression(0));
      if (items.length > EXPRESSION_LIMITS.maxListItems) {
        throw new ExpressionError(`list literal with more than ${EXPRESSION_LIMITS.maxListItems} elements`, open.start);
      }
      const separator = this.peek();
      if (separator.kind === ',') {
        this.next();
        continue;
      }
      if (separator.kind !== ']') throw new ExpressionError(`expected "," or "]" in the list, found ${describe(separator)}`, separator.start);
    }
    const close = this.next();
    this.leave();
    return { type: 'list', items, start: open.start, end: close.end };
  }

  private call(name: Token): Node {
    const open = this.next();
    this.enter(open.start);
    const args: Node[] = [];
    if (this.peek().kind !== ')') {
      for (;;) {
        args.push(this.expression(0));
        const separator = this.next();
        if (separator.kind === ')') break;
        if (separator.kind !== ',') {
          throw new ExpressionError(`expected "," or ")" in the arguments of ${name.text}, found ${describe(separator)}`, separator.start);
        }
      }
    } else {
      this.next();
    }
    this.leave();
    const close = this.tokens[this.index - 1] ?? open;
    if (this.peek().kind === '(') {
      throw new ExpressionError('only the built-in functions can be called (len, lower, upper, trim, exists, default, path_normalize, shell_join)', this.peek().start);
    }
    return { type: 'call', name: name.text, args, start: name.start, end: close.end };
  }
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'eof':
      return 'the end of the expression';
    case 'string':
      return 'a string';
    case 'number':
      return `the number ${token.text}`;
    case 'regex':
      return 'a regular expression';
    case 'ident':
      return `the name "${token.text}"`;
    default:
      return `"${token.text}"`;
  }
}
