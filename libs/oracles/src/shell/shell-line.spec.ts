/**
 * Reading shell lines for rule matching (shell-line.ts): the spellings a shell treats as the same
 * command read the same, and any input — adversarial nesting, unclosed quotes, 64 KiB — is read
 * without throwing. Timings are not asserted: tools/bench's `rules` phase measures them.
 */
import { describe, expect, it } from 'vitest';
import { normalizePosixPath } from './posix-path.js';
import { isShellTool, shellCommands, shellJoin } from './shell-line.js';

describe('shellCommands', () => {
  it.each([
    ['/bin/rm -rf /', ['rm -rf /']],
    ['\\rm -rf /', ['rm -rf /']],
    ['"rm" -rf /', ['rm -rf /']],
    ['r""m -rf /', ['rm -rf /']],
    ["$'\\x72\\155' -rf /", ['rm -rf /']],
    ['rm -rf /.', ['rm -rf /']],
    ['rm -rf /tmp/../', ['rm -rf /']],
    ['rm -r\\\n -f /', ['rm -r -f /']],
    ['A=1 sudo -u root env B=2 nice -n 5 /usr/bin/rm -rf ~/', ['rm -rf ~']],
    ['cd /x && ls | wc -l; echo ok &', ['cd /x', 'ls', 'wc -l', 'echo ok']],
    ['if true; then rm -rf /; fi', ['true', 'rm -rf /']],
    ["bash -lc 'git push -f'", ['bash -lc git push -f', 'git push -f']],
    ['eval "rm -rf /"', ['eval rm -rf /', 'rm -rf /']],
    ['echo "$(id) `whoami`" $(uname)', ['echo $(id) `whoami` $(uname)', 'id', 'whoami', 'uname']],
    ['dd if=/dev/zero of="/dev/sda" 2>&1', ['dd if=/dev/zero of=/dev/sda 2 >& 1']],
    ['cat x > /dev/sda', ['cat x > /dev/sda']],
    ["echo 'a;b' \"c|d\" # rm -rf /", ['echo a;b c|d']],
  ])('%j', (line, expected) => {
    expect(shellCommands(line)).toEqual(expected);
  });

  it('reads an argv list as one command, and sh -c inside it', () => {
    expect(shellCommands(['/bin/rm', '-rf', '/'])).toEqual(['rm -rf /']);
    expect(shellCommands(['bash', '-lc', 'rm -rf / && ls'])).toEqual(['bash -lc rm -rf / && ls', 'rm -rf /', 'ls']);
    expect(shellCommands([])).toEqual([]);
  });

  it('knows the shell tools by name', () => {
    expect(['Bash', 'shell', 'run_shell_command', 'local_shell'].every(isShellTool)).toBe(true);
    expect(['Write', 'mcp__x__bash', 'bashful'].some(isShellTool)).toBe(false);
  });
});

describe('shellJoin', () => {
  it('quotes what a shell would split or expand', () => {
    expect(shellJoin(['rm', '-rf', '/srv'])).toBe('rm -rf /srv');
    expect(shellJoin(['echo', 'a b', "it's", '$HOME', ''])).toBe(`echo 'a b' 'it'\\''s' '$HOME' ''`);
  });

  it('round-trips: reading the joined line gives the words back (generated argv lists)', () => {
    let state = 7;
    const next = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const alphabet = ['a', 'b', ' ', "'", '"', '\\', '$', '(', ')', ';', '|', '&', '`', '#', '-', 'x', '\n', '*'];
    for (let round = 0; round < 300; round += 1) {
      const argv = Array.from({ length: 1 + Math.floor(next() * 5) }, () =>
        Array.from({ length: 1 + Math.floor(next() * 8) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''),
      );
      argv[0] = 'prog';
      expect(shellCommands(shellJoin(argv))[0]).toBe(shellCommands(argv)[0]);
    }
  });
});

describe('any input is read without throwing (generated and adversarial lines)', () => {
  const KIB64 = 64 * 1024;
  it.each([
    ['nested $( )', '$('.repeat(KIB64 / 2)],
    ['nested quotes and substitutions', '"$('.repeat(KIB64 / 3)],
    ['backticks', '`'.repeat(KIB64)],
    ['unclosed quote', `'${'x'.repeat(KIB64)}`],
    ['sh -c nesting', "sh -c 'sh -c \"sh -c ".repeat(KIB64 / 20)],
    ['many separators', 'a;'.repeat(KIB64 / 2)],
  ])('%s', (_, line) => {
    expect(() => shellCommands(line)).not.toThrow();
  });

  it('random lines over the shell alphabet', () => {
    let state = 11;
    const next = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const alphabet = [...'ab /.~-;|&()`$\'"\\#\n<>{}!*=', 'rm', 'sh -c ', "$'", '$(', '\\\n', 'sudo ', 'eval '];
    for (let round = 0; round < 2000; round += 1) {
      const line = Array.from({ length: Math.floor(next() * 80) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      const commands = shellCommands(line);
      expect(commands.every((c) => typeof c === 'string' && c.length > 0)).toBe(true);
    }
  });
});

describe('normalizePosixPath', () => {
  it.each([
    ['/work/project/../../etc/cron.d/x', '/etc/cron.d/x'],
    ['//etc///passwd', '/etc/passwd'],
    ['/a/./b/', '/a/b/'],
    ['/..', '/'],
    ['/.', '/'],
    ['/a/b/..', '/a/'],
    ['a/../../b', '../b'],
    ['./x', 'x'],
    ['.', '.'],
    ['', ''],
  ])('%j → %j', (path, normal) => {
    expect(normalizePosixPath(path)).toBe(normal);
  });
});
