/**
 * The default rules on shell commands in normal form, against a word-by-word reading of the same
 * commands (which word is the target, the destination, the in-place flag) on generated commands
 * built from the words those rules care about. `rm-system-directory` must agree both ways; the
 * write rules must deny whatever the reading says writes a start-up or system file (they may deny
 * more: an option's value that looks like the destination is read as one).
 */
import { describe, expect, it } from 'vitest';
import { COPY_ONTO_STARTUP_OR_SYSTEM_FILE_COMMAND, DELETE_SYSTEM_DIRECTORY_COMMAND, WRITE_STARTUP_OR_SYSTEM_FILE_COMMAND } from '../defaults.js';
import { random } from '../../test/helpers.js';
import { compileLinearPattern } from './linear-pattern.js';

const SYSTEM = new Set('etc usr var bin sbin lib lib32 lib64 libx32 boot opt srv snap nix sys proc dev run mnt media System Library Applications private Volumes'.split(' '));

/** A top-level system directory, or everything directly in it, or a first segment the shell would expand (not `/*` itself: that is `/`). */
function isSystemTarget(word: string): boolean {
  const match = /^\/([^/]+)((?:\/\*+)?)$/.exec(word);
  if (match === null) return false;
  const [, first = '', rest = ''] = match;
  if (SYSTEM.has(first)) return true;
  if (!/[*?[{$]/.test(first)) return false;
  return first !== '*' || rest !== '';
}

function deletesSystemDirectory(words: readonly string[]): boolean {
  const [program, ...args] = words;
  if (program === 'rm') return args.some((w) => /^(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)$/.test(w)) && args.some(isSystemTarget);
  if (program !== 'find') return false;
  let i = 0;
  while (/^-[HLP]$/.test(args[i] ?? '')) i += 1;
  for (; i < args.length && !(args[i] as string).startsWith('-'); i += 1) {
    if (!isSystemTarget(args[i] as string)) continue;
    const rest = args.slice(i + 1);
    return rest.some((w, at) => w === '-delete' || (/^-exec(?:dir)?$/.test(w) && /^(?:.*\/)?(?:rm|shred|unlink)$/.test(rest[at + 1] ?? '')));
  }
  return false;
}

const HOME = /^(?:~[^/]*|\$\{?HOME\}?|\/root|\/(?:home|Users)\/[^/]+)$/;
const STARTUP = /^\.(?:bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zshenv|zprofile|zlogin|zlogout|kshrc|mkshrc|cshrc|tcshrc|config\/fish\/config\.fish)$/;
function isStartupOrSystemFile(word: string): boolean {
  if (/^\/etc\/./.test(word)) return true;
  const home = /^(?:~[^/]*|\$\{?HOME\}?|\/root|\/(?:home|Users)\/[^/]+)\//.exec(word);
  return home !== null && STARTUP.test(word.slice(home[0].length));
}

/** The words of a command without its redirections (an operator word and its target), and the redirection targets. */
function split(words: readonly string[]): { args: string[]; targets: string[] } {
  const args: string[] = [];
  const targets: string[] = [];
  for (let i = 0; i < words.length; i += 1) {
    if (/^(?:\d+|&)?(?:>>?|>\|)$/.test(words[i] as string)) targets.push(words[++i] ?? '');
    else args.push(words[i] as string);
  }
  return { args, targets };
}

function writesStartupOrSystemFile(words: readonly string[]): boolean {
  const { args, targets } = split(words);
  if (targets.some(isStartupOrSystemFile)) return true;
  const [program, ...rest] = args;
  if (program === 'tee' || program === 'truncate') return rest.some(isStartupOrSystemFile);
  if (program === 'dd') return rest.some((w) => w.startsWith('of=') && isStartupOrSystemFile(w.slice(3)));
  if (program === 'sed') return rest.some((w) => /^(?:-[A-Za-dg-z]*i|--i)/.test(w)) && rest.some(isStartupOrSystemFile);
  return false;
}

function copiesOntoStartupOrSystemFile(words: readonly string[]): boolean {
  const { args } = split(words);
  const [program, ...rest] = args;
  if (program === undefined || !['cp', 'mv', 'install', 'ln'].includes(program)) return false;
  const operands: string[] = [];
  let targetDirectory: string | undefined;
  for (let i = 0; i < rest.length; i += 1) {
    const word = rest[i] as string;
    if (/^-[a-zA-Z]*t$/.test(word) || word === '--target-directory') {
      targetDirectory = rest[i + 1] ?? '';
      i += 1;
    } else if (/^-[Smog]$/.test(word)) i += 1;
    else if (!word.startsWith('-')) operands.push(word);
  }
  // With -t DIR every operand is a source, written into DIR.
  if (targetDirectory !== undefined) return /^\/etc(?:\/|$)/.test(targetDirectory);
  const destination = operands[operands.length - 1];
  if (destination === undefined || operands.length < 2) return false;
  if (isStartupOrSystemFile(destination) || destination === '/etc') return true;
  return HOME.test(destination) && operands.slice(0, -1).some((w) => STARTUP.test(w.slice(w.lastIndexOf('/') + 1)) && !w.includes('config/fish'));
}

const PROGRAMS = ['rm', 'rm', 'find', 'find', 'cp', 'mv', 'install', 'ln', 'sed', 'tee', 'dd', 'truncate', 'echo'];
const WORDS = [
  '-rf', '-r', '-R', '-f', '--recursive', '-fr', '-H', '/etc', '/etc/*', '/etc/x', '/etc/cron.d/job', '/usr', '/usr/**', '/var', '/lib64', '/tmp', '/tmp/*', '/e*', '/*', '/*/*',
  '/', '/etcx', '/var/tmp', '/{a,b}', '/$D', '/opt/app', '-delete', '-exec', 'rm', '/bin/rm', 'shred', '{}', '+', '-name', 'x', 'y', 'dir/.bashrc', '.bashrc',
  '~', '~/.bashrc', '~/.bashrc.bak', '$HOME/.zshrc', '/home/u', '/home/u/.profile', '/root', '-t', '--target-directory', '-m', '644', '-S', '.bak', '-v', '-i',
  '-i.bak', '-n', '-ni', '-e', '--in-place', 'of=/etc/passwd', 'of=x', '-s0', '>', '>>', '2>', '/dev/null', 'backup',
];

function commands(count: number, start: number): string[][] {
  const next = random(start);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  return Array.from({ length: count }, () => {
    const words = [pick(PROGRAMS)];
    const args = Math.floor(next() * 6);
    for (let i = 0; i < args; i += 1) words.push(pick(WORDS));
    // A redirection operator last has no target: not a command the reader would produce.
    if (/[<>]$/.test(words[words.length - 1] as string)) words.push('out');
    return words;
  });
}

describe('the default rules on commands in normal form decide as a word-by-word reading', () => {
  const generated = commands(30_000, 41);

  it('rm-system-directory', () => {
    const pattern = compileLinearPattern(DELETE_SYSTEM_DIRECTORY_COMMAND);
    const differ = generated.filter((words) => pattern.test(words.join(' ')) !== deletesSystemDirectory(words)).map((words) => words.join(' '));
    expect(differ.slice(0, 5)).toEqual([]);
    expect(generated.filter(deletesSystemDirectory).length).toBeGreaterThan(200);
  });

  it('write-startup-or-system-file denies every write the reading finds', () => {
    const pattern = compileLinearPattern(WRITE_STARTUP_OR_SYSTEM_FILE_COMMAND);
    const missed = generated.filter((words) => writesStartupOrSystemFile(words) && !pattern.test(words.join(' '))).map((words) => words.join(' '));
    expect(missed.slice(0, 5)).toEqual([]);
    expect(generated.filter(writesStartupOrSystemFile).length).toBeGreaterThan(500);
  });

  it('copy-onto-startup-or-system-file denies every copy onto one the reading finds', () => {
    const pattern = compileLinearPattern(COPY_ONTO_STARTUP_OR_SYSTEM_FILE_COMMAND);
    const missed = generated.filter((words) => copiesOntoStartupOrSystemFile(words) && !pattern.test(words.join(' '))).map((words) => words.join(' '));
    expect(missed.slice(0, 5)).toEqual([]);
    expect(generated.filter(copiesOntoStartupOrSystemFile).length).toBeGreaterThan(300);
  });
});
