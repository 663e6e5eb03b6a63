/**
 * Every regular expression of a hooks configuration (`matches` in expressions, the tool and input
 * patterns of `permission-check`, the built-in defaults) is compiled here, on RE2 — through
 * `re2js`, a pure-JavaScript port of RE2/J — never on JavaScript's backtracking `RegExp`.
 *
 * Patterns run on text the agent controls (up to 64 KiB of it), inside a worker, synchronously:
 * no time budget can interrupt a match. RE2 matches in time linear in the input for every
 * pattern, so no pattern and no input can stall a worker. The price is the dialect: RE2 has no
 * lookaround and no backreferences (they are what makes backtracking necessary); such patterns
 * are refused here with the construct named and a way to say the same thing.
 */
import { RE2JS, RE2JSException } from 're2js';

/** The engine every configured pattern runs on; the compiled-configuration walk test checks it. */
export const PATTERN_ENGINE = 're2' as const;

/** Flags a pattern may carry: `i` (case-insensitive), `m` (`^`/`$` at line ends), `s` (`.` matches newline), `u` (accepted; RE2 always matches Unicode characters). */
export const PATTERN_FLAGS = /^[imsu]*$/;

/** A pattern that cannot run on RE2, or is not a regular expression. */
export class PatternError extends Error {
  override readonly name = 'PatternError';
}

/**
 * A literal filter re2js derives from a pattern: the pattern can only match an input containing
 * the literals the tree requires (`and` of its children, `or` of its children, or the `text`).
 * The rule index uses it to skip patterns whose literals are absent from the input.
 */
export type PatternPrefilter =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'and' | 'or'; readonly items: readonly PatternPrefilter[] };

/** A compiled pattern. Matching takes time linear in the input; nothing keeps state between calls. */
export interface LinearPattern {
  readonly engine: typeof PATTERN_ENGINE;
  /** The pattern as written (without the anchors `whole` adds). */
  readonly source: string;
  readonly flags: string;
  /** Whether the pattern occurs anywhere in `input` (with `whole`, whether it matches all of it). */
  test(input: string): boolean;
  /** Every match replaced by `replacement`, with `$1`, `$<name>`, `$&` and `$$` as `String.prototype.replace` reads them. */
  replaceAll(input: string, replacement: string): string;
  /** Literals a match needs, when the engine found any (see {@link PatternPrefilter}). */
  readonly prefilter: PatternPrefilter | undefined;
}

/** How a pattern is written in code: a source, a source with flags, or a `RegExp` whose source is translated. */
export type PatternSpec = string | RegExp | { readonly regex: string; readonly flags?: string | undefined };

/** Options of {@link compileLinearPattern}. */
export interface CompilePatternOptions {
  /** Match the whole input: the source is wrapped in `^(?:…)$`. */
  readonly whole?: boolean;
}

interface Unsupported {
  readonly at: number;
  readonly message: string;
}

/**
 * Finds the first construct RE2 does not have (lookaround, backreferences) or spells differently
 * from JavaScript (`\uXXXX`, `\cX`), skipping escapes and character classes, so the refusal can
 * say what to write instead. Anything else RE2 refuses is reported with RE2's own words.
 */
function findUnsupported(source: string): Unsupported | undefined {
  let inClass = false;
  for (let i = 0; i < source.length; i += 1) {
    const char = source[i];
    if (char === '\\') {
      const next = source[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) {
        return {
          at: i,
          message: `backreference "\\${next}" is not supported: RE2 cannot match what a group matched (that needs backtracking); spell out the alternatives, e.g. (?:'[^']*'|"[^"]*")`,
        };
      }
      if (!inClass && next === 'k' && source[i + 2] === '<') {
        return { at: i, message: 'named backreference "\\k<…>" is not supported: RE2 cannot match what a group matched; spell out the alternatives' };
      }
      if (next === 'u') return { at: i, message: 'the escape "\\uXXXX" is JavaScript syntax; RE2 writes it "\\x{XXXX}"' };
      if (next === 'c') return { at: i, message: 'the escape "\\cX" is not supported; write the control character as "\\x{01}" … "\\x{1F}"' };
      i += 1;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '[') {
      inClass = true;
      if (source[i + 1] === '^') i += 1;
      if (source[i + 1] === ']') i += 1;
      continue;
    }
    if (char === '(' && source[i + 1] === '?') {
      const kind = source.slice(i + 2, i + 4);
      if (kind.startsWith('=') || kind.startsWith('!')) {
        return {
          at: i,
          message: `lookahead "(?${kind[0]}…)" is not supported: patterns run on RE2 (linear time), which has no lookaround; match the following text instead (in a rewrite, capture it and put it back with $N), or test it separately in the condition (… and not (x matches /…/))`,
        };
      }
      if (kind === '<=' || kind === '<!') {
        return {
          at: i,
          message: `lookbehind "(?${kind}…)" is not supported: patterns run on RE2 (linear time), which has no lookaround; match the preceding text instead, e.g. (?:^|[\\s;&|])word`,
        };
      }
    }
  }
  return undefined;
}

function flagBits(flags: string): number {
  let bits = 0;
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  return bits;
}

/**
 * Compiles `source` with `flags` on RE2.
 *
 * @throws {@link PatternError} for a construct RE2 lacks (with a suggestion), a syntax error, or unknown flags.
 */
export function compileLinearPattern(source: string, flags = '', options: CompilePatternOptions = {}): LinearPattern {
  if (!PATTERN_FLAGS.test(flags) || new Set(flags).size !== flags.length) {
    throw new PatternError(`flags "${flags}" must be some of i, m, s, u (each once)`);
  }
  const unsupported = findUnsupported(source);
  if (unsupported !== undefined) {
    throw new PatternError(`${unsupported.message} (at "${source.slice(unsupported.at, unsupported.at + 16)}")`);
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(options.whole === true ? `^(?:${source})$` : source, flagBits(flags));
  } catch (error) {
    if (error instanceof RE2JSException) throw new PatternError(`not a valid RE2 pattern: ${error.message.replace(/^error parsing regexp: /, '')}`);
    throw error;
  }
  const prefilter = readPrefilter(compiled);
  return Object.freeze({
    engine: PATTERN_ENGINE,
    source,
    flags,
    prefilter,
    test: (input: string) => compiled.test(input),
    replaceAll: (input: string, replacement: string) => compiled.matcher(input).replaceAll(replacement),
  });
}

/**
 * Compiles a pattern written in code. A `RegExp` is translated by its source and flags (`g`, `y`
 * and `d` are dropped: a test keeps no state); it must be expressible on RE2 like any other.
 */
export function compilePatternSpec(spec: PatternSpec, options: CompilePatternOptions = {}): LinearPattern {
  if (spec instanceof RegExp) return compileLinearPattern(spec.source, spec.flags.replace(/[gyd]/g, ''), options);
  if (typeof spec === 'string') return compileLinearPattern(spec, '', options);
  return compileLinearPattern(spec.regex, spec.flags ?? '', options);
}

/** The shape re2js gives its literal filter (an internal of the pinned version; anything else means "no filter"). */
interface RawPrefilter {
  type?: unknown;
  subs?: unknown;
  str?: unknown;
}

const MAX_PREFILTER_NODES = 256;

/**
 * Reads the literal filter re2js built while compiling (re2js itself checks it before running
 * the automaton, so it never rejects an input the pattern matches). Read defensively: an
 * unexpected shape gives `undefined`, which only means the index runs the pattern every time.
 */
function readPrefilter(compiled: RE2JS): PatternPrefilter | undefined {
  const raw = (compiled as unknown as { re2Input?: { prefilter?: unknown } }).re2Input?.prefilter;
  let budget = MAX_PREFILTER_NODES;
  const convert = (node: unknown): PatternPrefilter | undefined => {
    budget -= 1;
    if (budget < 0 || typeof node !== 'object' || node === null) return undefined;
    const { type, subs, str } = node as RawPrefilter;
    if (type === 1 && typeof str === 'string' && str.length > 0) return { kind: 'text', text: str };
    if ((type === 2 || type === 3) && Array.isArray(subs) && subs.length > 0) {
      const items: PatternPrefilter[] = [];
      for (const sub of subs) {
        const item = convert(sub);
        if (item === undefined) {
          // An `and` without this requirement is still a sound (weaker) filter; an `or` is not.
          if (type === 3) return undefined;
          continue;
        }
        items.push(item);
      }
      if (items.length === 0) return undefined;
      return { kind: type === 2 ? 'and' : 'or', items };
    }
    return undefined;
  };
  return raw === null || raw === undefined ? undefined : convert(raw);
}
