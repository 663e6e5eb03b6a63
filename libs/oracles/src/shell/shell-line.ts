/**
 * Reading a shell line the way a POSIX shell splits it, so that rules match the commands it runs
 * rather than its spelling: `/bin/rm -rf /`, `\rm -rf /`, `"rm" -rf /`, `r""m -rf /.` and
 * `bash -lc 'rm -rf /'` all run `rm -rf /`, and a pattern over the raw text sees five different
 * strings. This is a reader for rule matching, not a shell: it expands nothing (variables, globs
 * and `~` stay as written), and a construct it does not model is read conservatively (its text
 * stays in the word, and substituted commands are read as commands of their own).
 *
 * Linear in the line's length per nesting level; nesting (`$(…)`, backticks, `sh -c`, `eval`) is
 * followed at most {@link MAX_DEPTH} levels deep, deeper text stays one word.
 */
import { normalizePosixPath } from './posix-path.js';

/** Nesting levels followed (substitutions inside `sh -c` inside …). */
const MAX_DEPTH = 6;

/** Tool names agent runtimes give their shell tool (Claude Code `Bash`, Codex `shell`, Gemini `run_shell_command`, …). */
const SHELL_TOOL_NAMES = ['bash', 'sh', 'zsh', 'shell', 'exec', 'terminal', 'local_shell', 'run_shell_command', 'run_terminal_cmd', 'execute_command'] as const;
/** The same names as a pattern (case-insensitive, whole name) for permission rules' `tool`. */
export const SHELL_TOOL_PATTERN = SHELL_TOOL_NAMES.join('|');
const SHELL_TOOLS: ReadonlySet<string> = new Set(SHELL_TOOL_NAMES);

/** Whether a tool name is one of the shell tools above, in any case (whose `command` is a shell line or an argv list). */
export function isShellTool(name: string | undefined): boolean {
  return name !== undefined && SHELL_TOOLS.has(name.toLowerCase());
}

/** Operators that end a simple command. */
const SEPARATORS = new Set([';', '&', '&&', '|', '||', '|&', '\n', '(', ')', ';;', ';&']);
/** Words that open a compound command in front of the command they guard, and are not the program. */
const LEADING_KEYWORDS = new Set(['{', '}', '!', 'if', 'then', 'else', 'elif', 'do', 'while', 'until', 'time', 'fi', 'done', 'esac']);
/** Programs that run the rest of their arguments as a command. */
const WRAPPERS = new Set(['sudo', 'doas', 'env', 'command', 'builtin', 'exec', 'nohup', 'nice', 'time', 'stdbuf', 'ionice', 'chroot', 'timeout', 'xargs']);
/** Options of those wrappers that take the next word as their value (`sudo -u root rm …`). */
const WRAPPER_VALUE_OPTIONS = new Set(['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-U', '-n', '-c', '-i', '-o', '-e', '-s', '-I', '-L', '-P', '-d']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'busybox']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** One simple command of a line: its words, quotes removed. */
export type ShellWords = readonly string[];

/**
 * The simple commands of a shell line (or of an argv list: one command whose words are its
 * elements), each in normal form (see {@link normalCommand}), nested ones included after the
 * command that holds them. Empty commands are left out.
 */
export function shellCommands(line: string | readonly string[]): string[] {
  const out: string[] = [];
  if (typeof line === 'string') readLine(line, 0, out);
  else addCommand(line, 0, out);
  return out;
}

/**
 * `argv` as one shell line that a shell would split back into the same words: each word that is
 * not plain (letters, digits, `_@%+=:,./-`) in single quotes. For matching argv-style commands
 * (`["rm", "-rf", "/"]`) with patterns written for lines.
 */
export function shellJoin(argv: readonly string[]): string {
  return argv.map((word) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * A command's words in normal form, joined by single spaces: assignments in front (`A=1`),
 * compound-command keywords and wrappers (`sudo -u root`, `env`, `nohup`, …) dropped; the
 * program named by its basename (`/bin/rm` → `rm`); every argument with a `/` or `~`
 * path-normalised (`/.` → `/`, `/tmp/../etc` → `/etc`), without a trailing slash (`/*\/` → `/*`).
 */
function normalCommand(words: readonly string[]): string[] {
  let at = 0;
  for (;;) {
    const word = words[at];
    if (word === undefined) return [];
    if (LEADING_KEYWORDS.has(word) || ASSIGNMENT.test(word)) {
      at += 1;
      continue;
    }
    const program = basename(word);
    if (!WRAPPERS.has(program)) break;
    at += 1;
    // The wrapper's options (and their values), then `env`'s assignments.
    while (at < words.length) {
      const next = words[at] as string;
      if (next === '--') {
        at += 1;
        break;
      }
      if (!next.startsWith('-') && !(program === 'env' && ASSIGNMENT.test(next)) && !(program === 'nice' && /^\d+$/.test(next))) {
        if (program === 'timeout' && /^\d/.test(next)) {
          at += 1;
          continue;
        }
        break;
      }
      at += WRAPPER_VALUE_OPTIONS.has(next) && program !== 'env' ? 2 : 1;
    }
  }
  const rest = words.slice(at);
  return rest.map((word, index) => (index === 0 ? basename(word) : normalArgument(word)));
}

function basename(word: string): string {
  const slash = word.lastIndexOf('/');
  return slash < 0 || slash === word.length - 1 ? word : word.slice(slash + 1);
}

function normalArgument(word: string): string {
  if (!word.includes('/')) return word;
  // `of=/dev/sda`, `--target=/x/../y`: the path after the `=` of an option.
  const eq = /^(-{0,2}[A-Za-z0-9_.-]*=)(.*)$/s.exec(word);
  if (eq !== null && (eq[2] ?? '').startsWith('/')) return `${eq[1] ?? ''}${trimSlash(normalizePosixPath(eq[2] ?? ''))}`;
  if (!word.startsWith('/') && !word.startsWith('~') && !word.startsWith('.')) return word;
  return trimSlash(normalizePosixPath(word));
}

function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** Adds `words` (and what they run: `sh -c script`, `eval …`) to `out` in normal form. */
function addCommand(words: readonly string[], depth: number, out: string[]): void {
  const normal = normalCommand(words);
  const text = normal.join(' ');
  // Nothing to run (`''`): no command to match.
  if (text.length === 0) return;
  out.push(text);
  if (depth >= MAX_DEPTH) return;
  const program = normal[0] as string;
  if (program === 'eval') {
    readLine(normal.slice(1).join(' '), depth + 1, out);
    return;
  }
  if (!SHELLS.has(program)) return;
  // `bash -lc 'script'`, `sh -c script`: the first operand after an option word with a `c`.
  for (let i = 1; i < normal.length; i += 1) {
    const word = normal[i] as string;
    if (!word.startsWith('-')) break;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(word)) {
      const script = normal.slice(i + 1).find((w) => !w.startsWith('-'));
      if (script !== undefined) readLine(script, depth + 1, out);
      return;
    }
  }
}

/**
 * Splits `line` into simple commands and adds each (and the commands substituted into its words)
 * to `out`. Quotes and backslashes are removed as the shell removes them; `$(…)`, backticks and
 * `<(…)` are read as lines of their own, their text kept in the word.
 */
function readLine(line: string, depth: number, out: string[]): void {
  let words: string[] = [];
  let word = '';
  let inWord = false;
  const nested: string[] = [];
  const endWord = (): void => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = (): void => {
    endWord();
    if (words.length > 0) addCommand(words, depth, out);
    words = [];
    for (const inner of nested.splice(0)) {
      if (depth < MAX_DEPTH) readLine(inner, depth + 1, out);
    }
  };
  let i = 0;
  const n = line.length;
  while (i < n) {
    const c = line[i] as string;
    if (c === '\\') {
      const next = line[i + 1];
      if (next === '\n') i += 2;
      else {
        word += next ?? '';
        inWord = true;
        i += 2;
      }
    } else if (c === "'") {
      const close = line.indexOf("'", i + 1);
      const end = close < 0 ? n : close;
      word += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      i = readDoubleQuoted(line, i + 1, (text) => (word += text), nested);
      inWord = true;
    } else if (c === '$' && line[i + 1] === "'") {
      const [text, end] = readAnsiC(line, i + 2);
      word += text;
      inWord = true;
      i = end;
    } else if ((c === '$' || c === '<' || c === '>') && line[i + 1] === '(' && (c === '$' || !inWord)) {
      const end = closingParen(line, i + 2);
      nested.push(line.slice(i + 2, end));
      word += line.slice(i, Math.min(end + 1, n));
      inWord = true;
      i = end + 1;
    } else if (c === '`') {
      const end = closingBacktick(line, i + 1);
      nested.push(line.slice(i + 1, end).replace(/\\([\\`$])/g, '$1'));
      word += line.slice(i, Math.min(end + 1, n));
      inWord = true;
      i = end + 1;
    } else if (c === '#' && !inWord) {
      const eol = line.indexOf('\n', i);
      i = eol < 0 ? n : eol;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      endWord();
      i += 1;
    } else if (c === ';' || c === '&' || c === '|' || c === '\n' || c === '(' || c === ')') {
      const two = line.slice(i, i + 2);
      const op = SEPARATORS.has(two) ? two : c;
      if (c === '&' && (line[i + 1] === '>' || (inWord && word.endsWith('>')))) {
        // `&>file`, `2>&1`: a redirection, not a separator.
        word += c;
        inWord = true;
        i += 1;
        continue;
      }
      endCommand();
      i += op.length;
    } else if (c === '>' || c === '<') {
      // A redirection operator is a word of its own (`> /dev/sda`), its fd number kept apart.
      endWord();
      let op = c;
      while (i + op.length < n && /[<>&|]/.test(line[i + op.length] as string) && op.length < 3) op += line[i + op.length] as string;
      words.push(op);
      i += op.length;
    } else {
      // A run of ordinary characters is appended at once (most of a line: the hot path).
      let end = i + 1;
      while (end < n && !isSpecial(line.charCodeAt(end))) end += 1;
      word += line.slice(i, end);
      inWord = true;
      i = end;
    }
  }
  endCommand();
}

/** Characters that end a run of ordinary word characters in {@link readLine}. */
const SPECIAL = new Uint8Array(128);
for (const c of ' \t\r\n\\\'"$`#;&|()<>') SPECIAL[c.charCodeAt(0)] = 1;

function isSpecial(code: number): boolean {
  return code < 128 && SPECIAL[code] === 1;
}

/** Reads a double-quoted string from `start` (after the quote); returns the index after the closing quote. */
function readDoubleQuoted(line: string, start: number, add: (text: string) => void, nested: string[]): number {
  let i = start;
  const n = line.length;
  while (i < n) {
    const c = line[i] as string;
    if (c === '"') return i + 1;
    if (c === '\\') {
      const next = line[i + 1];
      if (next === '\n') i += 2;
      else if (next !== undefined && '$`"\\'.includes(next)) {
        add(next);
        i += 2;
      } else {
        add(c);
        i += 1;
      }
    } else if (c === '$' && line[i + 1] === '(') {
      const end = closingParen(line, i + 2);
      nested.push(line.slice(i + 2, end));
      add(line.slice(i, Math.min(end + 1, n)));
      i = end + 1;
    } else if (c === '`') {
      const end = closingBacktick(line, i + 1);
      nested.push(line.slice(i + 1, end).replace(/\\([\\`$"])/g, '$1'));
      add(line.slice(i, Math.min(end + 1, n)));
      i = end + 1;
    } else {
      add(c);
      i += 1;
    }
  }
  return n;
}

/**
 * The index of the `)` closing a `$(` whose content starts at `start` (quotes and nesting
 * respected), or the line's end. Iterative, so that a line of nested `$(` cannot exhaust the stack.
 */
function closingParen(line: string, start: number): number {
  let depth = 1;
  let i = start;
  const n = line.length;
  while (i < n) {
    const c = line[i] as string;
    if (c === '\\') i += 2;
    else if (c === "'") {
      const close = line.indexOf("'", i + 1);
      i = close < 0 ? n : close + 1;
    } else if (c === '"') {
      // Skipped to the next unescaped quote, not read (no recursion: nesting depth is the input's to choose).
      i += 1;
      while (i < n && line[i] !== '"') i += line[i] === '\\' ? 2 : 1;
      i += 1;
    } else {
      if (c === '(') depth += 1;
      else if (c === ')') {
        depth -= 1;
        if (depth === 0) return i;
      }
      i += 1;
    }
  }
  return n;
}

function closingBacktick(line: string, start: number): number {
  let i = start;
  while (i < line.length) {
    const c = line[i];
    if (c === '\\') i += 2;
    else if (c === '`') return i;
    else i += 1;
  }
  return line.length;
}

const ANSI_ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/** Reads `$'…'` from `start` (after the quote): its decoded text and the index after the closing quote. */
function readAnsiC(line: string, start: number): [string, number] {
  let text = '';
  let i = start;
  const n = line.length;
  while (i < n) {
    const c = line[i] as string;
    if (c === "'") return [text, i + 1];
    if (c !== '\\') {
      text += c;
      i += 1;
      continue;
    }
    const next = line[i + 1] ?? '';
    const simple = ANSI_ESCAPES[next];
    const code =
      /^[0-7]/.test(next) ? /^[0-7]{1,3}/.exec(line.slice(i + 1, i + 4)) : next === 'x' ? /^[0-9a-fA-F]{1,2}/.exec(line.slice(i + 2, i + 4)) : next === 'u' ? /^[0-9a-fA-F]{1,4}/.exec(line.slice(i + 2, i + 6)) : next === 'U' ? /^[0-9a-fA-F]{1,8}/.exec(line.slice(i + 2, i + 10)) : null;
    if (simple !== undefined) {
      text += simple;
      i += 2;
    } else if (code !== null) {
      const value = parseInt(code[0], /^[0-7]/.test(next) ? 8 : 16);
      text += value <= 0x10ffff ? String.fromCodePoint(value) : '';
      i += 1 + (/^[0-7]/.test(next) ? 0 : 1) + code[0].length;
    } else {
      text += c + next;
      i += 2;
    }
  }
  return [text, n];
}
