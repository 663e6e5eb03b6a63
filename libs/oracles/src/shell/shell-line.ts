/**
 * Reading a shell line the way a POSIX shell splits it, so that rules match the commands it runs
 * rather than its spelling: `/bin/rm -rf /`, `\rm -rf /`, `"rm" -rf /`, `r""m -rf /.` and
 * `bash -lc 'rm -rf /'` all run `rm -rf /`, and a pattern over the raw text sees five different
 * strings. This is a reader for rule matching, not a shell: it expands nothing (variables, globs
 * and `~` stay as written), and a construct it does not model is read conservatively (its text
 * stays in the word, and substituted commands are read as commands of their own).
 *
 * It follows the working directory within the line (`cd`, `pushd`, `popd`, `env -C`; a `( … )`
 * subshell's or a substitution's `cd` does not leak out, an `eval`'s does), so that
 * `cd / && rm -rf *` reads as `rm -rf /*`. A `cd` into a `|` pipeline or to the background is
 * followed too (zsh runs a pipeline's last command in the shell itself): reading a command at a
 * location it may not run at can only make a rule stricter. A `cd` that may have failed leaves
 * two candidate locations after its `&&` chain (see {@link settle}). Where the reader cannot
 * follow, the location is {@link UNKNOWN_DIRECTORY}. Nothing carries over from one line to the next:
 * where a line starts is the caller's to say (`start` of {@link shellCommandList}; permission-check
 * reads a shell tool's working-directory field and the session's directory, `context.cwd`).
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

/**
 * A redirection of a command in normal form: the operator with its file descriptor glued on
 * (`>`, `2>`, `>>`, `&>`, `2>&`, `<`, `<<<`), a space, and its target (a path in normal form, read
 * at the command's location).
 */
export interface ShellRedirect {
  /** `op target`, as it ends the command's normal form. */
  readonly text: string;
  /**
   * Whether it writes a file: an output operator (`>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&file`)
   * whose target is not `/dev/null`, `/dev/stdout`, `/dev/stderr` or a file descriptor (`2>&1`, `>&-`).
   */
  readonly write: boolean;
}

/** One simple command of a line in normal form (see {@link shellCommands}). */
export interface ShellCommand {
  /** The normal form: the command's words, then its redirections in the order written. */
  readonly text: string;
  /** The words alone (`text` without the redirections). */
  readonly words: string;
  readonly redirects: readonly ShellRedirect[];
}

/**
 * How the reader names a directory it cannot follow the line into: after `cd "$DIR"`, `cd -` at
 * the start of a line, or a `cd ..` above the directory the line starts in, `rm -rf *` reads
 * `rm -rf $PWD/*` — the shell's own name for the directory it is in, which the reader cannot
 * expand. A rule reads it as "some directory, possibly `/` or the home directory".
 */
export const UNKNOWN_DIRECTORY = '$PWD';

/** Longest location followed (Linux's PATH_MAX); a longer one is read as {@link UNKNOWN_DIRECTORY}. */
const MAX_LOCATION = 4096;

/** `pushd`'s directory stack below the current directory, as an immutable list (a subshell's copy costs nothing). */
interface DirStack {
  readonly top: string;
  readonly rest: DirStack | undefined;
}

/**
 * Where the next command of a line runs, as far as the reader follows it. `cwd` is one of:
 * a relative path (`.` at first): under the directory the line starts in, whose relative paths are
 * read as written; an absolute path; a path under a home directory (`~`, `~/x`, `~user`, `$HOME`,
 * `~/..`); or {@link UNKNOWN_DIRECTORY}.
 */
interface Place {
  cwd: string;
  oldpwd: string;
  /** `undefined`: what is below is not known (the stack from before the line). */
  stack: DirStack | undefined;
  /**
   * Where the shell is if a `cd` of the current `&&` chain failed (`cd /nope` leaves it where it
   * was): what follows the chain may run there (see {@link settle}). `undefined`: no `cd` in the chain.
   */
  pending: string | undefined;
}

interface Reader {
  readonly out: ShellCommand[];
  /** Characters the reader may still add by writing locations into paths (the line's length and 4 KiB): keeps the output within about twice the line. */
  budget: number;
  /** A loop body, a function or a trap was read: commands that may run later, somewhere else. */
  deferred: boolean;
  /** A `cd`, `pushd` or `popd` was read. */
  moved: boolean;
  /** The line sets `CDPATH` or `cdable_vars`: a `cd` to a bare name may go anywhere. */
  cdpath: boolean;
}

/**
 * The simple commands of a shell line (or of an argv list: one command whose words are its
 * elements), each in normal form, nested ones included after the command that holds them. Empty
 * commands are left out. The normal form of a command: assignments in front (`A=1`),
 * compound-command keywords and wrappers (`sudo -u root`, `env`, `nohup`, …) dropped; the program
 * named by its basename (`/bin/rm` → `rm`); every argument with a `/` or `~` path-normalised
 * (`/.` → `/`, `/tmp/../etc` → `/etc`, `~/x/..` → `~`), without a trailing slash (`/*\/` → `/*`);
 * then its redirections (see {@link ShellRedirect}), wherever they were written; all joined by
 * single spaces. After a `cd` the reader can follow (see {@link directoryAfter}), relative paths
 * are read at the new location: every operand of the programs in {@link PATH_PROGRAMS} (`rm`,
 * `cp`, `tee`, …) and `find`'s start points (a `find` without one gets the location), `dd`'s
 * `of=`, redirection targets, and any other operand written `.`, `..`, `./…` or `../…`
 * (`cd / && rm -rf *` reads `rm -rf /*`).
 */
export function shellCommands(line: string | readonly string[]): string[] {
  return shellCommandList(line).map((command) => command.text);
}

/**
 * {@link shellCommands} with each command's redirections apart (what allow entries need). `start`:
 * where the line starts, from {@link startDirectory} (default: the shell's own directory).
 */
export function shellCommandList(line: string | readonly string[], start = '.'): ShellCommand[] {
  const first = read(line, start);
  if (!first.deferred || !first.moved) return first.out;
  // A loop body, a function or a trap may run after a `cd` that comes later in the text
  // (`for i in 1 2; do rm -rf *; cd /; done`, `trap 'rm -rf *' EXIT; cd /`): such a line is read
  // again from a directory the reader does not know, so no command of it counts as "where the line starts".
  return read(line, UNKNOWN_DIRECTORY).out;
}

/**
 * The directory a shell tool's own working-directory field names (`workdir` of Codex's `shell`,
 * `directory` of Gemini's `run_shell_command`), or the session's directory, as a start for
 * {@link shellCommandList}: an absolute path or one under a home directory is followed, a relative
 * one is under `from` (default: the shell's own directory), anything else (`$X`, `..` above a
 * relative `from`) is {@link UNKNOWN_DIRECTORY}.
 */
export function startDirectory(directory: string, from = '.'): string {
  return directoryAfter(from, directory, { out: [], budget: MAX_LOCATION, deferred: false, moved: false, cdpath: false });
}

/** `command`'s normal form without its redirection number `index`. */
export function withoutRedirect(command: ShellCommand, index: number): string {
  const parts = command.words.length > 0 ? [command.words] : [];
  command.redirects.forEach((redirect, at) => {
    if (at !== index) parts.push(redirect.text);
  });
  return parts.join(' ');
}

function read(line: string | readonly string[], start: string): Reader {
  const length = typeof line === 'string' ? line.length : line.reduce((sum, word) => sum + word.length + 1, 0);
  const reader: Reader = { out: [], budget: length + 4096, deferred: false, moved: false, cdpath: false };
  const place: Place = { cwd: start, oldpwd: UNKNOWN_DIRECTORY, stack: undefined, pending: undefined };
  if (typeof line === 'string') readLine(line, 0, reader, place);
  else addCommand(line, undefined, 0, reader, place);
  return reader;
}

/**
 * `argv` as one shell line that a shell would split back into the same words: each word that is
 * not plain (letters, digits, `_@%+=:,./-`) in single quotes. For matching argv-style commands
 * (`["rm", "-rf", "/"]`) with patterns written for lines.
 */
export function shellJoin(argv: readonly string[]): string {
  return argv.map((word) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** Programs whose body runs again, or later, after the commands that follow it in the text. */
const DEFERRING = new Set(['for', 'select', 'repeat', 'foreach', 'function']);

/** Options of `env` that take the next word as their value (`env -C dir`, `env -u NAME`, `env -S 'line'`). */
const ENV_VALUE_OPTIONS = new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string']);

/** A command's words after its leading assignments, keywords and wrappers, with its redirections apart (words as written). */
interface RawCommand {
  readonly args: readonly string[];
  readonly redirects: readonly { readonly op: string; readonly target: string | undefined }[];
  /** The directory a wrapper runs it in (`env -C dir`, `sudo -D dir`), as written. */
  readonly chdir: string | undefined;
}

/**
 * Splits a command's words (`ops`: the indexes of redirection operators) into its redirections
 * and the words that name what runs: assignments in front (`A=1`), compound-command keywords
 * and wrappers (`sudo -u root`, `env`, `nohup`, …) dropped. Lines it runs (`env -S '…'`) go to `lines`.
 */
function rawCommand(all: readonly string[], ops: ReadonlySet<number> | undefined, reader: Reader, lines: string[]): RawCommand {
  let words: readonly string[] = all;
  const redirects: { op: string; target: string | undefined }[] = [];
  if (ops !== undefined) {
    const plain: string[] = [];
    for (let i = 0; i < all.length; i += 1) {
      if (!ops.has(i)) {
        plain.push(all[i] as string);
        continue;
      }
      const target = i + 1 < all.length && !ops.has(i + 1) ? all[i + 1] : undefined;
      redirects.push({ op: all[i] as string, target });
      if (target !== undefined) i += 1;
    }
    words = plain;
  }
  let chdir: string | undefined;
  let at = 0;
  for (;;) {
    const word = words[at];
    if (word === undefined) return { args: [], redirects, chdir };
    if (LEADING_KEYWORDS.has(word) || ASSIGNMENT.test(word)) {
      // A loop (`while …; do`, `until`), whose body runs again after the commands that follow it in the text.
      if (word === 'do' || word === 'while' || word === 'until') reader.deferred = true;
      if (word.startsWith('CDPATH=')) reader.cdpath = true;
      at += 1;
      continue;
    }
    const program = basename(word);
    if (!WRAPPERS.has(program)) break;
    at += 1;
    let newRoot = program === 'chroot';
    // The wrapper's options (and their values), then `env`'s assignments.
    while (at < words.length) {
      const next = words[at] as string;
      if (next === '--') {
        at += 1;
        break;
      }
      if (program === 'env' && ASSIGNMENT.test(next)) {
        if (next.startsWith('CDPATH=')) reader.cdpath = true;
        at += 1;
        continue;
      }
      if (!next.startsWith('-') && !(program === 'nice' && /^\d+$/.test(next))) {
        if ((program === 'timeout' && /^\d/.test(next)) || newRoot) {
          // `timeout 5 …`; `chroot /mnt …`: the new root is not the program.
          newRoot = false;
          at += 1;
          continue;
        }
        break;
      }
      const eq = next.startsWith('--') ? next.indexOf('=') : -1;
      const option = eq > 0 ? next.slice(0, eq) : next;
      const takesValue = eq < 0 && (program === 'env' ? ENV_VALUE_OPTIONS.has(next) : WRAPPER_VALUE_OPTIONS.has(next));
      const value = eq > 0 ? next.slice(eq + 1) : takesValue ? words[at + 1] : undefined;
      if (value !== undefined) {
        if ((program === 'env' && (option === '-C' || option === '--chdir')) || (program === 'sudo' && (option === '-D' || option === '--chdir'))) chdir = value;
        else if (program === 'env' && (option === '-S' || option === '--split-string')) lines.push(value);
      }
      at += takesValue ? 2 : 1;
    }
  }
  const args = words.slice(at);
  // A loop in any syntax (zsh: `for i (1 2) { … }`, `repeat 3 …`), or `function f { … }`: a body
  // that runs again, or when it is called, after what follows it.
  if (args[0] !== undefined && DEFERRING.has(args[0])) reader.deferred = true;
  return { args, redirects, chdir };
}

function basename(word: string): string {
  const slash = word.lastIndexOf('/');
  return slash < 0 || slash === word.length - 1 ? word : word.slice(slash + 1);
}

/** A path that starts with a home directory or the current one: `~`, `~user`, `$HOME`, `${HOME}`, `$PWD`. */
const ROOTED = /^(?:~[^/]*|\$HOME|\$\{HOME\}|\$PWD|\$\{PWD\})(?=\/|$)/;

function normalArgument(word: string): string {
  if (!word.includes('/')) return word;
  // `of=/dev/sda`, `--target=/x/../y`: the path after the `=` of an option.
  const eq = /^(-{0,2}[A-Za-z0-9_.-]*=)(.*)$/s.exec(word);
  if (eq !== null && (eq[2] ?? '').startsWith('/')) return `${eq[1] ?? ''}${trimSlash(normalizePosixPath(eq[2] ?? ''))}`;
  const root = ROOTED.exec(word);
  if (root !== null) return rooted(root[0], word.slice(root[0].length));
  if (!word.startsWith('/') && !word.startsWith('.')) return word;
  return trimSlash(normalizePosixPath(word));
}

/**
 * `root` (`~`, `$HOME`, `$PWD`, …) followed by `rest` in normal form. Unlike `/`, such a root can
 * be climbed above: `~/..` stays `~/..` (the directory holding the home directory, `/` for root's).
 */
function rooted(root: string, rest: string): string {
  const normal = normalizePosixPath(rest.replace(/^\/+/, ''));
  return normal === '' || normal === '.' ? root : `${root}/${trimSlash(normal)}`;
}

function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** Whether `cwd` is under the directory the line starts in, where relative paths are read as written. */
function atStart(cwd: string): boolean {
  return !cwd.startsWith('/') && !cwd.startsWith('~') && !cwd.startsWith('$');
}

/** A word that names a path relative to the current directory (not `/…`, `~…`, `$…`, a substitution). */
function isRelative(word: string): boolean {
  return word.length > 0 && !/^[/~$`]|^[<>]\(/.test(word);
}

/** `relative` read at `cwd` (absolute or rooted), in normal form; past the budget, at {@link UNKNOWN_DIRECTORY}. */
function placePath(relative: string, cwd: string, reader: Reader): string {
  reader.budget -= cwd.length + 1;
  const base = reader.budget < 0 ? UNKNOWN_DIRECTORY : cwd;
  // A plain name under a location (always in normal form): nothing to normalise (the common case).
  if (!relative.includes('/') && relative !== '.' && relative !== '..') return base === '/' ? `/${relative}` : `${base}/${relative}`;
  if (base.startsWith('/')) return trimSlash(normalizePosixPath(`${base}/${relative}`));
  const root = ROOTED.exec(base);
  return root === null ? normalArgument(relative) : rooted(root[0], `${base.slice(root[0].length)}/${relative}`);
}

/**
 * Programs whose every operand is a path: those that delete, and those that write a file named by
 * an operand (`cp`, `mv`, `install`, `ln`, `rsync`, `scp`, `tee`, `truncate`, `sed -i`), so that
 * `cd ~ && cp x .bashrc` reads `cp ~/x ~/.bashrc`. An operand that is really an option's value or
 * a script (`install -m 644`, `sed s/a/b/`) is read as a path too; that only adds a location to a
 * word no rule reads as a path. Other programs' operands are read as paths when they start with
 * `./` or `../` (or are `.`, `..`); `dd`'s `of=` is read as a path.
 */
const PATH_PROGRAMS = new Set(['rm', 'rmdir', 'unlink', 'shred', 'find', 'cp', 'mv', 'install', 'ln', 'rsync', 'scp', 'tee', 'truncate', 'sed']);
const DOT_PATH = /^\.\.?(?:\/|$)/;

/** The program (basename) and arguments of `args` in normal form, relative paths read at `cwd` (see {@link PATH_PROGRAMS}). */
function normalWords(args: readonly string[], cwd: string, reader: Reader): string[] {
  if (args.length === 0) return [];
  const program = basename(args[0] as string);
  const out = [program];
  if (atStart(cwd)) {
    for (let i = 1; i < args.length; i += 1) out.push(normalArgument(args[i] as string));
    return out;
  }
  const allOperands = PATH_PROGRAMS.has(program);
  let i = 1;
  if (program === 'find') {
    // `find [-H|-L|-P|-D x|-Ox] [start…] [expression]`: the start points are the paths; none means `.`.
    while (i < args.length && /^-(?:[HLP]|O\d*|D)$/.test(args[i] as string)) {
      const option = args[i] as string;
      out.push(option);
      i += 1;
      if (option === '-D' && i < args.length) {
        out.push(args[i] as string);
        i += 1;
      }
    }
    const first = i;
    while (i < args.length && !/^[-(!),]/.test(args[i] as string)) {
      const word = args[i] as string;
      out.push(isRelative(word) ? placePath(word, cwd, reader) : normalArgument(word));
      i += 1;
    }
    if (i === first) out.push(placePath('.', cwd, reader));
    for (; i < args.length; i += 1) out.push(normalArgument(args[i] as string));
    return out;
  }
  let options = true;
  for (; i < args.length; i += 1) {
    const word = args[i] as string;
    if (options && word === '--') {
      options = false;
      out.push(word);
      continue;
    }
    if (program === 'dd' && word.startsWith('of=') && isRelative(word.slice(3))) {
      out.push(`of=${placePath(word.slice(3), cwd, reader)}`);
      continue;
    }
    const operand = allOperands ? !(options && word.startsWith('-')) : DOT_PATH.test(word);
    out.push(operand && isRelative(word) ? placePath(word, cwd, reader) : normalArgument(word));
  }
  return out;
}

const HARMLESS_TARGETS: ReadonlySet<string> = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

/** A redirection in normal form (see {@link ShellRedirect}), its target read at `cwd`. */
function normalRedirect(op: string, target: string | undefined, cwd: string, reader: Reader): ShellRedirect {
  if (target === undefined) return { text: op, write: false };
  const bare = op.startsWith('>') || op.startsWith('<') || op.startsWith('&') ? op : op.replace(/^(?:\d+|\{[A-Za-z_]\w*\})/, '');
  // A here-document's delimiter and a here-string are text, not paths.
  if (bare.startsWith('<<')) return { text: `${op} ${target}`, write: false };
  const duplicate = (bare === '>&' || bare === '<&') && /^(?:\d+-?|-)$/.test(target);
  const path = duplicate ? target : isRelative(target) && !atStart(cwd) ? placePath(target, cwd, reader) : normalArgument(target);
  const output = bare !== '<' && bare !== '<&';
  return { text: `${op} ${path}`, write: output && !duplicate && !HARMLESS_TARGETS.has(path) };
}

/** Adds the command `words` (and what it runs: `sh -c script`, `eval …`, `trap`) to the reader's output, and follows a `cd`. */
function addCommand(words: readonly string[], ops: ReadonlySet<number> | undefined, depth: number, reader: Reader, place: Place): void {
  const lines: string[] = [];
  const command = rawCommand(words, ops, reader, lines);
  const cwd = command.chdir === undefined ? place.cwd : directoryAfter(place.cwd, command.chdir, reader);
  const normal = normalWords(command.args, cwd, reader);
  const redirects = command.redirects.length === 0 ? NO_REDIRECTS : command.redirects.map((r) => normalRedirect(r.op, r.target, cwd, reader));
  const text = normal.join(' ');
  const full = redirects.length === 0 ? text : [...(text.length > 0 ? [text] : []), ...redirects.map((r) => r.text)].join(' ');
  // Nothing to run (`''`): no command to match.
  if (full.length > 0) reader.out.push({ text: full, words: text, redirects });
  const program = normal[0];
  if (program === undefined) {
    for (const line of lines) if (depth < MAX_DEPTH) readLine(line, depth + 1, reader, copyOf(place));
    return;
  }
  if (STATEFUL.has(program)) followState(program, command.args.slice(1), place, reader);
  if (depth >= MAX_DEPTH) return;
  for (const line of lines) readLine(line, depth + 1, reader, copyOf(place));
  if (program !== 'eval' && program !== 'trap' && !SHELLS.has(program)) return;
  const args = command.args.slice(1).map(normalArgument);
  if (program === 'eval') {
    // `eval` runs in this shell: its `cd` moves the rest of the line.
    readLine(args.join(' '), depth + 1, reader, place);
    return;
  }
  if (program === 'trap') {
    // `trap 'action' SIGNAL`: the action runs later, wherever the shell is then.
    reader.deferred = true;
    const action = args.find((word) => !word.startsWith('-'));
    if (action !== undefined) readLine(action, depth + 1, reader, copyOf(place));
    return;
  }
  if (!SHELLS.has(program)) return;
  // `bash -lc 'script'`, `sh -c script`: the first operand after an option word with a `c`.
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] as string;
    if (!word.startsWith('-')) break;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(word)) {
      const script = args.slice(i + 1).find((w) => !w.startsWith('-'));
      if (script !== undefined) readLine(script, depth + 1, reader, copyOf(place));
      return;
    }
  }
}

function copyOf(place: Place): Place {
  return { cwd: place.cwd, oldpwd: place.oldpwd, stack: place.stack, pending: place.pending };
}

/**
 * One location for "`a` or `b`": the same; the one that is not where the line starts (whose
 * relative paths read as written, the least a rule can see); else {@link UNKNOWN_DIRECTORY}.
 */
function either(a: string, b: string): string {
  if (a === b || atStart(b)) return a;
  return atStart(a) ? b : UNKNOWN_DIRECTORY;
}

/**
 * The end of an `&&` chain (`;`, `||`, `|`, `&`, a newline): a `cd` in it may have failed, so
 * what follows runs at its directory or where the shell was before (`cd /; cd /nope; rm -rf *`
 * runs at `/`).
 */
function settle(place: Place): void {
  if (place.pending === undefined) return;
  place.cwd = either(place.cwd, place.pending);
  place.pending = undefined;
}

/** Builtins that change what a later `cd` does: `export CDPATH=…`, `shopt -s cdable_vars`, `setopt cdablevars`. */
const SETTERS = new Set(['export', 'declare', 'typeset', 'local', 'readonly', 'shopt', 'setopt', 'set']);
/** The programs {@link followState} follows. */
const STATEFUL = new Set([...SETTERS, 'cd', 'chdir', 'pushd', 'popd']);
const NO_REDIRECTS: readonly ShellRedirect[] = Object.freeze([]);

/** Follows `cd`, `pushd` and `popd` (and what changes their meaning) into `place`. */
function followState(program: string, args: readonly string[], place: Place, reader: Reader): void {
  if (SETTERS.has(program)) {
    if (args.some((word) => /^CDPATH(?:=|$)|^cdable_?vars$/i.test(word))) reader.cdpath = true;
    return;
  }
  if (program !== 'cd' && program !== 'chdir' && program !== 'pushd' && program !== 'popd') return;
  reader.moved = true;
  let i = 0;
  const options: string[] = [];
  while (i < args.length && /^-[^\d]/.test(args[i] as string)) {
    if (args[i] === '--') {
      i += 1;
      break;
    }
    options.push(args[i] as string);
    i += 1;
  }
  const operands = args.slice(i);
  const from = place.cwd;
  const go = (to: string): void => {
    place.pending = place.pending === undefined ? from : either(place.pending, from);
    place.oldpwd = from;
    place.cwd = to;
  };
  const lost = (): void => {
    place.stack = undefined;
    go(UNKNOWN_DIRECTORY);
  };
  const target = operands[0];
  if (program === 'cd' || program === 'chdir') {
    // Bash refuses two operands, zsh substitutes: either way, not followed.
    if (options.some((o) => !/^-[LPe@]+$/.test(o)) || operands.length > 1) go(UNKNOWN_DIRECTORY);
    else go(target === undefined ? '~' : target === '-' ? place.oldpwd : directoryAfter(from, target, reader));
    return;
  }
  // pushd/popd: `+N`, `-N` rotate the stack, other options than `-n` are not followed.
  const keep = options.includes('-n');
  if (options.some((o) => o !== '-n') || operands.length > 1 || (target !== undefined && /^(?:[+-]\d+|-)$/.test(target))) {
    lost();
    return;
  }
  const stack = place.stack;
  if (program === 'pushd') {
    if (target === undefined) {
      if (stack === undefined) lost();
      else {
        place.stack = { top: from, rest: stack.rest };
        go(stack.top);
      }
      return;
    }
    const to = directoryAfter(from, target, reader);
    if (keep) place.stack = { top: to, rest: stack };
    else {
      place.stack = { top: from, rest: stack };
      go(to);
    }
    return;
  }
  if (target !== undefined || stack === undefined) lost();
  else if (keep) place.stack = stack.rest;
  else {
    place.stack = stack.rest;
    go(stack.top);
  }
}

/** A leading `$HOME`, `${HOME}`, `$PWD` or `${PWD}`: the variables a location may start with. */
const KNOWN_VARIABLE = /^(?:\$HOME|\$\{HOME\}|\$PWD|\$\{PWD\})(?=\/|$)/;
const PWD_VARIABLE = /^(?:\$PWD|\$\{PWD\})(?=\/|$)/;

/** The directory `cd target` leads to from `cwd` (see {@link Place}), or {@link UNKNOWN_DIRECTORY}. */
function directoryAfter(cwd: string, target: string, reader: Reader): string {
  // A variable, a substitution, a glob or a brace expansion: the reader cannot know where it goes.
  if (target.length === 0 || /[$`*?[{]/.test(target.replace(KNOWN_VARIABLE, ''))) return UNKNOWN_DIRECTORY;
  let next: string;
  if (target.startsWith('/')) next = trimSlash(normalizePosixPath(target));
  else if (ROOTED.test(target) && !PWD_VARIABLE.test(target)) next = normalArgument(target);
  else {
    const pwd = PWD_VARIABLE.exec(target);
    const relative = pwd === null ? target : target.slice(pwd[0].length).replace(/^\/+/, '') || '.';
    // With CDPATH (or cdable_vars) set, `cd name` may go anywhere; `./name` and `../name` may not.
    if (pwd === null && reader.cdpath && !DOT_PATH.test(relative)) return UNKNOWN_DIRECTORY;
    if (cwd === UNKNOWN_DIRECTORY) return UNKNOWN_DIRECTORY;
    if (atStart(cwd)) {
      const normal = normalizePosixPath(`${cwd}/${relative}`);
      // Above the directory the line starts in: the reader does not know where that is.
      return normal === '..' || normal.startsWith('../') ? UNKNOWN_DIRECTORY : trimSlash(normal);
    }
    next = placePath(relative, cwd, reader);
  }
  return next.length > MAX_LOCATION ? UNKNOWN_DIRECTORY : next;
}

/**
 * Splits `line` into simple commands and adds each (and the commands substituted into its words)
 * to the reader's output, following `cd` through `place` (a `( … )` subshell works on a copy).
 * Quotes and backslashes are removed as the shell removes them; `$(…)`, backticks and `<(…)` are
 * read as lines of their own, their text kept in the word.
 */
function readLine(line: string, depth: number, reader: Reader, place: Place): void {
  let words: string[] = [];
  let ops: Set<number> | undefined;
  let word = '';
  let inWord = false;
  const nested: string[] = [];
  let current = place;
  const scopes: Place[] = [];
  let cases = 0;
  const endWord = (): void => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const pushOp = (op: string): void => {
    (ops ??= new Set()).add(words.length);
    words.push(op);
  };
  const endCommand = (): void => {
    endWord();
    // `case … in` … `esac`: in between, `)` ends a pattern, not a subshell.
    for (const leading of words) {
      if (leading === 'esac') cases = Math.max(0, cases - 1);
      else if (!LEADING_KEYWORDS.has(leading)) {
        if (leading === 'case') cases += 1;
        break;
      }
    }
    // Substitutions run before their command, where it starts (`A=$(…) cd /x` runs `…` here).
    const before = nested.length > 0 ? copyOf(current) : undefined;
    if (words.length > 0) addCommand(words, ops, depth, reader, current);
    words = [];
    ops = undefined;
    for (const inner of nested.splice(0)) {
      if (depth < MAX_DEPTH && before !== undefined) readLine(inner, depth + 1, reader, copyOf(before));
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
      if (c === '&' && line[i + 1] === '>') {
        // `&>file`, `&>>file`: stdout and stderr to a file, an operator wherever it stands.
        endWord();
        const redirect = line[i + 2] === '>' ? '&>>' : '&>';
        pushOp(redirect);
        i += redirect.length;
        continue;
      }
      endCommand();
      if (c === '(') {
        // `f() …`: a function, whose body runs when it is called, wherever the shell is then.
        let next = i + 1;
        while (line[next] === ' ' || line[next] === '\t') next += 1;
        if (line[next] === ')') reader.deferred = true;
        // A subshell: its `cd` does not move what follows it. In a `case`, parentheses are
        // patterns' (`a) …`, `(a) …`), and a subshell there leaks its `cd` (stricter only).
        if (cases === 0) {
          scopes.push(current);
          current = copyOf(current);
        }
      } else if (c === ')') {
        if (cases === 0) current = scopes.pop() ?? current;
      } else if (op !== '&&') settle(current);
      i += op.length;
    } else if (c === '>' || c === '<') {
      // A redirection operator is a word of its own (`> /dev/sda`), with its fd number (`2>`, `{fd}>`).
      const fd = inWord && /^(?:\d+|\{[A-Za-z_]\w*\})$/.test(word) ? word : '';
      if (fd.length > 0) {
        word = '';
        inWord = false;
      } else endWord();
      let op = c;
      while (i + op.length < n && /[<>&|]/.test(line[i + op.length] as string) && op.length < 3) op += line[i + op.length] as string;
      pushOp(fd + op);
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
