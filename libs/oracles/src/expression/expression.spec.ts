import { describe, expect, it } from 'vitest';
import { scopeOf } from '../../test/helpers.js';
import { FUNCTIONS, RESERVED_NAMES, compileExpression } from './compile.js';
import type { ExpressionScope } from './compile.js';
import { ExpressionError } from './errors.js';
import { EXPRESSION_LIMITS } from './parser.js';

function evaluate(source: string, context: unknown = {}, vars: Partial<ExpressionScope['vars']> = {}) {
  return compileExpression(source).evaluate(scopeOf(context, vars));
}

function test(source: string, context: unknown = {}, vars: Partial<ExpressionScope['vars']> = {}) {
  return compileExpression(source).test(scopeOf(context, vars));
}

function compileError(source: string): ExpressionError {
  try {
    compileExpression(source);
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(source.slice(0, 60))} not to compile`);
}

const SEED = {
  checklist: { incomplete_count: 1, completion_rate: 0.9 },
  files: { changed_count: 25, changed: ['a.ts', 'b.ts'] },
  coverage: { current: 72.5, threshold: 80 },
  tests: { failed_count: 0 },
  tool: { name: 'Bash', input: { command: 'rm -rf /tmp/x', args: ['-l', '-a'] } },
  labels: ['backend', 'urgent'],
  'odd-key': 'yes',
};

describe('the syntax of the original design example configuration', () => {
  it('evaluates the three conditions of the original design example', () => {
    expect(test('checklist.incomplete_count > 0 and checklist.completion_rate > 0.8', SEED)).toBe(true);
    expect(test('files.changed_count > 20', SEED)).toBe(true);
    expect(test('coverage.current < coverage.threshold', SEED)).toBe(true);
    expect(test('tests.failed_count > 0', SEED)).toBe(false);
  });
});

describe('literals', () => {
  it('reads numbers, strings with escapes, booleans, null and lists', () => {
    expect(evaluate('42')).toBe(42);
    expect(evaluate('-3.5')).toBe(-3.5);
    expect(evaluate('1e3')).toBe(1000);
    expect(evaluate('2.5E-1')).toBe(0.25);
    expect(evaluate(`'single'`)).toBe('single');
    expect(evaluate(`"double"`)).toBe('double');
    expect(evaluate(String.raw`"a\"b\\c\n\t\u00e9\u{1F600}\/"`)).toBe('a"b\\c\n\té😀/');
    expect(evaluate(String.raw`'it\'s'`)).toBe("it's");
    expect(evaluate('true')).toBe(true);
    expect(evaluate('false')).toBe(false);
    expect(evaluate('null')).toBe(null);
    expect(evaluate('[1, "two", [3], null, true,]')).toEqual([1, 'two', [3], null, true]);
    expect(evaluate('[]')).toEqual([]);
  });

  it('rejects malformed literals with their position', () => {
    expect(compileError('"open')).toMatchObject({ offset: 0, message: 'unterminated string: missing the closing "' });
    expect(compileError(String.raw`a == "\q"`)).toMatchObject({ offset: 6 });
    expect(compileError(String.raw`"\u{110000}"`).message).toMatch(/invalid \\u escape/);
    expect(compileError('12abc').message).toMatch(/invalid number/);
    expect(compileError('- 5').message).toMatch(/must be followed directly by a number/);
    expect(compileError('[1, 2').message).toMatch(/expected "," or "\]"/);
  });

  it('refuses huge literals', () => {
    expect(compileError('1e999').message).toBe('number 1e999 is out of range');
    expect(compileError(`1${'0'.repeat(400)}`).message).toMatch(/number literal longer than 32 characters/);
    expect(compileError(`"${'x'.repeat(EXPRESSION_LIMITS.maxChars)}"`).message).toMatch(/expression longer than 4096 characters/);
    expect(compileError(`[${Array.from({ length: 300 }, () => '1').join(',')}]`).message).toMatch(/more than 256 elements/);
  });
});

describe('paths', () => {
  it('reads dotted paths, bracket keys and array indexes', () => {
    expect(evaluate('files.changed_count', SEED)).toBe(25);
    expect(evaluate('files["changed_count"]', SEED)).toBe(25);
    expect(evaluate("files['changed'][1]", SEED)).toBe('b.ts');
    expect(evaluate('tool.input.args[0]', SEED)).toBe('-l');
    expect(evaluate('context["odd-key"]', SEED)).toBe('yes');
    expect(evaluate('files.changed[files.changed_count]', SEED)).toBe(null);
    expect(evaluate('labels[0]', SEED)).toBe('backend');
  });

  it('computes an index at run time (numbers index lists, strings key objects)', () => {
    const context = { map: { a: 1, b: 2 }, key: 'b', list: [10, 20], i: 1, f: 0.5 };
    expect(evaluate('map[key]', context)).toBe(2);
    expect(evaluate('list[i]', context)).toBe(20);
    expect(evaluate('list[f]', context)).toBe(null);
    expect(evaluate('list["0"]', context)).toBe(null);
    expect(evaluate('map[i]', context)).toBe(null);
  });

  it('lets keywords be field names after a dot', () => {
    expect(evaluate('x.in.and', { x: { in: { and: 7 } } })).toBe(7);
  });

  it('resolves reserved names before the context, which cannot shadow them', () => {
    const context = { agent: { id: 'forged' }, env: 'production', trigger: 'x', params: { p: 1 } };
    expect(evaluate('agent.id', context)).toBe('agent-1');
    expect(evaluate('agent.team', context)).toBe('core');
    expect(evaluate('env', context, { env: 'development' })).toBe('development');
    expect(evaluate('trigger', context)).toBe('pre-issue-submit');
    expect(evaluate('params.p', context, { params: { p: 2 } })).toBe(2);
    expect(evaluate('context.agent.id', context)).toBe('forged');
    expect(RESERVED_NAMES).toEqual(['agent', 'trigger', 'env', 'params', 'context']);
  });
});

describe('missing fields (documented: a missing field is null)', () => {
  it('evaluates to null', () => {
    expect(evaluate('nope')).toBe(null);
    expect(evaluate('files.nope.deeper[3]', SEED)).toBe(null);
    expect(evaluate('files.changed_count.more', SEED)).toBe(null);
  });

  it('== null is true, != null is false', () => {
    expect(test('nope == null')).toBe(true);
    expect(test('nope != null')).toBe(false);
    expect(test('a.b == null', { a: { b: null } })).toBe(true);
  });

  it('every ordering comparison with null is false, in both directions', () => {
    for (const op of ['<', '<=', '>', '>=']) {
      expect(test(`nope ${op} 1`), op).toBe(false);
      expect(test(`1 ${op} nope`), op).toBe(false);
      expect(test(`nope ${op} nope`), op).toBe(false);
    }
    // Which is why a negated threshold is true on a missing field:
    expect(test('not (coverage.current >= 80)')).toBe(true);
  });

  it('is falsy, and string, membership and regex operators on it are false', () => {
    expect(test('nope')).toBe(false);
    expect(test('nope in ["a"]')).toBe(false);
    expect(test('"a" in nope')).toBe(false);
    expect(test('"a" not in nope')).toBe(true);
    expect(test('nope contains "a"')).toBe(false);
    expect(test('nope startswith "a"')).toBe(false);
    expect(test('nope endswith "a"')).toBe(false);
    expect(test('nope matches /a/')).toBe(false);
  });

  it('exists() tells a missing field from a null one', () => {
    expect(test('exists(a.b)', { a: { b: null } })).toBe(true);
    expect(test('exists(a.c)', { a: { b: null } })).toBe(false);
    expect(test('exists(a)', {})).toBe(false);
    expect(test('exists(list[1])', { list: [0, 0] })).toBe(true);
    expect(test('exists(list[2])', { list: [0, 0] })).toBe(false);
  });

  it('default() replaces missing and null values', () => {
    expect(evaluate('default(review.hours, 2)', {})).toBe(2);
    expect(evaluate('default(review.hours, 2)', { review: { hours: null } })).toBe(2);
    expect(evaluate('default(review.hours, 2)', { review: { hours: 0 } })).toBe(0);
  });
});

describe('operators', () => {
  it('and, or, not: truthiness, short circuit, precedence', () => {
    expect(test('true and false')).toBe(false);
    expect(test('true or false')).toBe(true);
    expect(test('not false')).toBe(true);
    expect(test('not not true')).toBe(true);
    expect(test('false or true and false')).toBe(false); // and binds tighter
    expect(test('(false or true) and true')).toBe(true);
    expect(test('not 1 == 2')).toBe(true); // not binds looser than ==
    expect(test('a and b or c', { c: 1 })).toBe(true);
    expect(evaluate('1 and "x"')).toBe(true); // and/or return booleans
    for (const falsy of ['0', '""', '[]', 'null', 'false', 'e']) expect(test(falsy, { e: {} }), falsy).toBe(false);
    for (const truthy of ['1', '"x"', '[0]', 'true', 'o']) expect(test(truthy, { o: { k: 0 } }), truthy).toBe(true);
  });

  it('== and != compare structurally, without conversions', () => {
    expect(test('1 == 1.0')).toBe(true);
    expect(test('1 == "1"')).toBe(false);
    expect(test('"a" != "b"')).toBe(true);
    expect(test('[1, [2]] == [1, [2]]')).toBe(true);
    expect(test('o == p', { o: { a: [1] }, p: { a: [1] } })).toBe(true);
    expect(test('o == p', { o: { a: 1 }, p: { a: 1, b: 2 } })).toBe(false);
    expect(test('true == 1')).toBe(false);
  });

  it('< <= > >= compare numbers with numbers and strings with strings only', () => {
    expect(test('1 < 2')).toBe(true);
    expect(test('2 <= 2')).toBe(true);
    expect(test('3 > 2')).toBe(true);
    expect(test('2 >= 3')).toBe(false);
    expect(test('"apple" < "banana"')).toBe(true);
    expect(test('"10" < 9')).toBe(false);
    expect(test('"10" > 9')).toBe(false);
    expect(test('true > false')).toBe(false);
    expect(test('[2] > [1]')).toBe(false);
  });

  it('in / not in: list membership, substrings, object keys', () => {
    expect(test('tool.name in ["Bash", "shell"]', SEED)).toBe(true);
    expect(test('tool.name not in ["Bash", "shell"]', SEED)).toBe(false);
    expect(test('"rm -rf" in tool.input.command', SEED)).toBe(true);
    expect(test('"command" in tool.input', SEED)).toBe(true);
    expect(test('"missing" in tool.input', SEED)).toBe(false);
    expect(test('[1] in [[1], [2]]')).toBe(true);
    expect(test('1 in "123"')).toBe(false); // no conversions
    expect(test('"urgent" in labels', SEED)).toBe(true);
  });

  it('contains is in with the operands swapped', () => {
    expect(test('tool.input.command contains "rm -rf"', SEED)).toBe(true);
    expect(test('labels contains "backend"', SEED)).toBe(true);
    expect(test('labels contains "frontend"', SEED)).toBe(false);
  });

  it('startswith and endswith on strings', () => {
    expect(test('tool.input.command startswith "rm "', SEED)).toBe(true);
    expect(test('tool.input.command endswith "/x"', SEED)).toBe(true);
    expect(test('tool.input.command startswith 1', SEED)).toBe(false);
  });

  it('matches: regex literals with flags, and string patterns', () => {
    expect(test(String.raw`tool.input.command matches /rm\s+-rf\s+\//`, SEED)).toBe(true);
    expect(test('tool.name matches /^bash$/i', SEED)).toBe(true);
    expect(test('tool.name matches /^bash$/', SEED)).toBe(false);
    expect(test('tool.name matches "^Ba"', SEED)).toBe(true);
    expect(test(String.raw`x matches /a\/b/`, { x: 'a/b' })).toBe(true);
    expect(test('x matches /[/]/', { x: '/' })).toBe(true);
    expect(test('n matches /1/', { n: 1 })).toBe(false);
  });

  it('matches is stateless across evaluations', () => {
    const compiled = compileExpression('x matches /a/');
    for (let i = 0; i < 3; i += 1) expect(compiled.test(scopeOf({ x: 'a' }))).toBe(true);
  });

  it('compiles the pattern once, at compile time, and checks it there', () => {
    expect(compileError('x matches /(/').message).toMatch(/^regular expression: not a valid RE2 pattern: missing closing \)/);
    expect(compileError('x matches /a(?=b)/').message).toMatch(/^regular expression: lookahead "\(\?=…\)" is not supported: patterns run on RE2 .*match the following text instead/);
    expect(compileError(String.raw`x matches /(?<!x)y/`).message).toMatch(/lookbehind "\(\?<!…\)" is not supported/);
    expect(compileError(String.raw`x matches /(a)\1/`).message).toMatch(/backreference "\\1" is not supported/);
    expect(compileError('x matches y').message).toMatch(/must be a regular expression literal/);
    expect(compileError(`x matches "${'a'.repeat(600)}"`).message).toMatch(/longer than 512/);
    expect(compileError('x matches /a/g').message).toMatch(/unsupported regular-expression flags "g"/);
    expect(compileError('x matches /a/ii').message).toMatch(/unsupported/);
    expect(compileError('/a/').message).toMatch(/only be the right side of "matches"/);
  });

  it('refuses chained comparisons', () => {
    expect(compileError('1 < x < 3')).toMatchObject({ offset: 6, message: 'comparisons cannot be chained: combine them with "and" (before "<")' });
  });

  it('explains operators of other languages', () => {
    expect(compileError('a && b')).toMatchObject({ offset: 2, message: 'unexpected "&&": write "and"' });
    expect(compileError('a || b').message).toBe('unexpected "||": write "or"');
    expect(compileError('!a').message).toMatch(/write "not"/);
    expect(compileError('a = 1').message).toBe('unexpected "=": compare with "=="');
    expect(compileError('a + 1').message).toBe('unexpected character "+"');
  });
});

describe('functions', () => {
  it('has exactly the documented pure functions', () => {
    expect(Object.keys(FUNCTIONS)).toEqual(['len', 'lower', 'upper', 'trim', 'exists', 'default', 'path_normalize', 'shell_join']);
  });

  it('len counts characters, elements and keys; null otherwise', () => {
    expect(evaluate('len("héllo😀")')).toBe(6);
    expect(evaluate('len(files.changed)', SEED)).toBe(2);
    expect(evaluate('len(tool.input)', SEED)).toBe(2);
    expect(evaluate('len(files.changed_count)', SEED)).toBe(null);
    expect(evaluate('len(nope)')).toBe(null);
    expect(test('len(files.changed) > 1', SEED)).toBe(true);
  });

  it('lower, upper, trim on strings; null otherwise', () => {
    expect(evaluate('lower(tool.name)', SEED)).toBe('bash');
    expect(evaluate('upper("abc")')).toBe('ABC');
    expect(evaluate('trim("  x ")')).toBe('x');
    expect(evaluate('lower(1)')).toBe(null);
    expect(test('lower(tool.name) in ["bash", "sh"]', SEED)).toBe(true);
  });

  it('checks names and arity at compile time', () => {
    expect(compileError('eval("1")').message).toBe('unknown function "eval" (known: len, lower, upper, trim, exists, default, path_normalize, shell_join)');
    expect(compileError('len()').message).toBe('len() takes 1 argument, got 0');
    expect(compileError('default(1)').message).toBe('default() takes 2 arguments, got 1');
    expect(compileError('exists(1)').message).toMatch(/takes a field path/);
  });

  it('a name followed by no parenthesis is a field, even a function name', () => {
    expect(evaluate('len', { len: 3 })).toBe(3);
  });
});

describe('safety: the known escapes', () => {
  it('cannot reach constructors, prototypes or Function', () => {
    expect(compileError('constructor.constructor("return process")()').message).toMatch(/only the built-in functions can be called|cannot be read/);
    expect(compileError('x.constructor.constructor("return process")()').message).toMatch(/only the built-in functions can be called|cannot be read/);
    expect(compileError('x.constructor')).toMatchObject({ offset: 2, message: '"constructor" cannot be read: expressions see only the data\'s own fields' });
    expect(compileError('__proto__').message).toMatch(/"__proto__" cannot be read/);
    expect(compileError('x.__proto__.polluted').message).toMatch(/"__proto__" cannot be read/);
    expect(compileError('x["constructor"]').message).toMatch(/"constructor" cannot be read/);
    expect(compileError("x['__proto__']").message).toMatch(/"__proto__" cannot be read/);
    expect(compileError('x.prototype').message).toMatch(/"prototype" cannot be read/);
    expect(compileError('len.call(1)').message).toMatch(/only the built-in functions can be called/);
    expect(compileError('(len)(1)').message).toMatch(/only the built-in functions can be called/);
    expect(compileError('lower("x")("y")').message).toMatch(/only the built-in functions can be called/);
  });

  it('computed keys that name prototype members evaluate to missing', () => {
    const context = { k: 'constructor', p: '__proto__', t: 'toString', x: {}, l: [1, 2] };
    expect(evaluate('x[k]', context)).toBe(null);
    expect(evaluate('x[p]', context)).toBe(null);
    expect(evaluate('x[t]', context)).toBe(null);
    expect(evaluate('l[k]', context)).toBe(null);
    expect(test('exists(x[k])', context)).toBe(false);
  });

  it('sees only own data: no inherited members, no length, nothing on strings', () => {
    expect(evaluate('toString')).toBe(null);
    expect(evaluate('x.toString', { x: {} })).toBe(null);
    expect(evaluate('x.hasOwnProperty', { x: {} })).toBe(null);
    expect(evaluate('x.valueOf', { x: {} })).toBe(null);
    expect(evaluate('s.length', { s: 'abc' })).toBe(null);
    expect(evaluate('l.length', { l: [1] })).toBe(null);
    expect(evaluate('l["length"]', { l: [1] })).toBe(null);
    expect(evaluate('n.toFixed', { n: 1 })).toBe(null);
    expect(evaluate('"abc".length')).toBe(null);
  });

  it('never runs getters, functions or class instances found in the data', () => {
    let called = 0;
    const context = {
      get trap() {
        called += 1;
        return 1;
      },
      fn: () => 1,
      date: new Date(),
      map: new Map([['a', 1]]),
      nested: Object.create({ inherited: 1 }) as object,
    };
    expect(evaluate('trap', context)).toBe(null);
    expect(called).toBe(0);
    expect(evaluate('fn', context)).toBe(null);
    expect(evaluate('date', context)).toBe(null);
    expect(evaluate('map.a', context)).toBe(null);
    expect(evaluate('nested.inherited', context)).toBe(null);
  });

  it('does not pollute prototypes', () => {
    evaluate('x.a == 1', JSON.parse('{"x": {"__proto__": {"a": 1}}}'));
    expect(({} as Record<string, unknown>)['a']).toBeUndefined();
  });

  it('bounds nesting depth without overflowing the stack', () => {
    expect(compileError(`${'('.repeat(2_000)}1${')'.repeat(2_000)}`).message).toBe('expression nested deeper than 32 levels');
    expect(compileError(`${'('.repeat(100_000)}1`).message).toBe('expression longer than 4096 characters');
    expect(compileError(`${'not '.repeat(500)}true`).message).toBe('expression nested deeper than 32 levels');
    expect(compileError(`${'['.repeat(100)}${']'.repeat(100)}`).message).toBe('expression nested deeper than 32 levels');
    expect(compileError(`a${'.b'.repeat(40)}`).message).toMatch(/more than 32 field accesses/);
    expect(evaluate(`${'('.repeat(30)}1${')'.repeat(30)}`)).toBe(1);
  });

  it('long flat and/or chains stay cheap (flattened, not nested)', () => {
    const source = Array.from({ length: 300 }, (_, i) => `x == ${i}`).join(' or ');
    expect(test(source, { x: 299 })).toBe(true);
  });

  it('rejects anything that is not part of the language', () => {
    for (const source of ['x; y', 'x = 1', '`x`', 'x ? 1 : 2', '{a: 1}', 'new Date()', 'x => x', 'import("fs")', 'a..b', 'a.', '', '   ']) {
      expect(() => compileExpression(source), source).toThrow(ExpressionError);
    }
  });

  it('reports positions', () => {
    expect(compileError('files.changed_count > ')).toMatchObject({ offset: 21, message: 'unexpected end of the expression: expected a value' });
    expect(compileError('a and or b')).toMatchObject({ offset: 6 });
    expect(compileError('a b')).toMatchObject({ offset: 2, message: 'unexpected the name "b" after the end of the expression' });
  });

  it('never throws while evaluating, whatever the context', () => {
    const compiled = compileExpression('a.b[0] > 1 and lower(c) in d and len(e) == 0 and f matches /x/ or g contains 1');
    for (const context of [null, 1, 'x', [], [[1]], { a: 1 }, { a: { b: 'x' } }, { c: 1, d: 'x', e: 1, f: 2, g: null }]) {
      expect(() => compiled.evaluate(scopeOf(context))).not.toThrow();
    }
  });
});
