/**
 * Reading shell lines for rule matching (shell-line.ts): the spellings a shell treats as the same
 * command read the same, and any input — adversarial nesting, unclosed quotes, 64 KiB — is read
 * without throwing. Timings are not asserted: tools/bench's `rules` phase measures them.
 */
import { describe, expect, it } from 'vitest';
import { normalizePosixPath } from './posix-path.js';
import { isShellTool, shellCommandList, shellCommands, shellJoin, withoutRedirect } from './shell-line.js';

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
    ['dd if=/dev/zero of="/dev/sda" 2>&1', ['dd if=/dev/zero of=/dev/sda 2>& 1']],
    ['cat x > /dev/sda', ['cat x > /dev/sda']],
    ["echo 'a;b' \"c|d\" # rm -rf /", ['echo a;b c|d']],
  ])('%j', (line, expected) => {
    expect(shellCommands(line)).toEqual(expected);
  });

  // Redirections end the command, wherever they were written, the fd number glued to the operator.
  it.each([
    ['git status > ~/.bashrc', ['git status > ~/.bashrc']],
    ['git status 2>/dev/null 1>>log', ['git status 2> /dev/null 1>> log']],
    ['>/dev/null "rm" -rf /', ['rm -rf / > /dev/null']],
    ['rm&>/dev/null -rf /', ['rm -rf / &> /dev/null']],
    ['echo x &>>f >|g <>h {fd}>i', ['echo x &>> f >| g <> h {fd}> i']],
    ['cat <<< "a b" < in 2>&1 >&-', ['cat <<< a b < in 2>& 1 >& -']],
    ["echo '>' x", ['echo > x']],
    ['> /tmp/x/../y', ['> /tmp/y']],
  ])('%j', (line, expected) => {
    expect(shellCommands(line)).toEqual(expected);
  });

  it('marks the redirections that write a file', () => {
    const writes = (line: string) => shellCommandList(line).flatMap((c) => c.redirects.filter((r) => r.write).map((r) => r.text));
    expect(writes('a > x >> y &> z &>> w >| v 1> u <> t >&s')).toEqual(['> x', '>> y', '&> z', '&>> w', '>| v', '1> u', '<> t', '>& s']);
    expect(writes('a > /dev/null 2> /dev/stderr >/dev/stdout 2>&1 >&2 >&- < in <<< text <<EOF')).toEqual([]);
    const [command] = shellCommandList('git log > /etc/cron.d/x 2>&1');
    expect(withoutRedirect(command!, 0)).toBe('git log 2>& 1');
    expect(withoutRedirect(command!, 1)).toBe('git log > /etc/cron.d/x');
  });

  // The working directory, followed within the line (audit: `cd / && rm -rf *` read `rm -rf *`).
  it.each([
    ['cd / && rm -rf *', ['cd /', 'rm -rf /*']],
    ['cd /etc; rm -rf .', ['cd /etc', 'rm -rf /etc']],
    ['cd /etc; rm -rf ..', ['cd /etc', 'rm -rf /']],
    ['cd ~ && rm -rf ./*', ['cd ~', 'rm -rf ~/*']],
    ['cd $HOME/x; rm -rf ../*', ['cd $HOME/x', 'rm -rf $HOME/*']],
    ['cd; rm -rf *', ['cd', 'rm -rf ~/*']],
    ['cd ~/..; rm -r *', ['cd ~/..', 'rm -r ~/../*']],
    ['pushd /; rm -rf *', ['pushd /', 'rm -rf /*']],
    ['(cd / && rm -rf *)', ['cd /', 'rm -rf /*']],
    ['(cd /); rm -rf *', ['cd /', 'rm -rf *']],
    ['cd /; (cd /tmp); rm -rf *', ['cd /', 'cd /tmp', 'rm -rf /*']],
    ['cd /; find . -delete', ['cd /', 'find / -delete']],
    ['cd /; find -L -delete', ['cd /', 'find -L / -delete']],
    ['cd /srv && ls ./a ../b c && cat < in > ../out', ['cd /srv', 'ls /srv/a /b c', 'cat < /srv/in > /out']],
    ['cd /srv && rm -f -- -x y', ['cd /srv', 'rm -f -- /srv/-x /srv/y']],
    // Programs that write a file an operand names: every operand is a path; dd's of= too.
    ['cd ~ && cp -f x .bashrc', ['cd ~', 'cp -f ~/x ~/.bashrc']],
    ['cd /etc && mv a b && ln -s c d && install -m 644 e f', ['cd /etc', 'mv /etc/a /etc/b', 'ln -s /etc/c /etc/d', 'install -m /etc/644 /etc/e /etc/f']],
    ['cd /etc && echo x | tee -a hosts && truncate -s0 passwd', ['cd /etc', 'echo x', 'tee -a /etc/hosts', 'truncate -s0 /etc/passwd']],
    ["cd /etc && sed -i 's/a/b/' hosts && dd if=x of=passwd", ['cd /etc', 'sed -i /etc/s/a/b /etc/hosts', 'dd if=x of=/etc/passwd']],
    ['eval "cd /"; rm -rf *', ['eval cd /', 'cd /', 'rm -rf /*']],
    ["bash -c 'cd /'; rm -rf *", ['bash -c cd /', 'cd /', 'rm -rf *']],
    ['cd /; echo "$(rm -rf *)"', ['cd /', 'echo $(rm -rf *)', 'rm -rf /*']],
    ['cd /; A=$(rm -rf *) cd /tmp', ['cd /', 'cd /tmp', 'rm -rf /*']],
    ['env -C / rm -rf *', ['rm -rf /*']],
    ['sudo --chdir=/etc rm -rf *', ['rm -rf /etc/*']],
    ['chroot / "rm" -rf /', ['rm -rf /']],
    ['cd /tmp && cd / && cd - && rm -rf *', ['cd /tmp', 'cd /', 'cd -', 'rm -rf /tmp/*']],
    ['pushd / && pushd /tmp && popd && rm -rf *', ['pushd /', 'pushd /tmp', 'popd', 'rm -rf /*']],
    // A cd may fail and leave the shell where it was: after the && chain, either place.
    ['cd /tmp/x; rm -rf *', ['cd /tmp/x', 'rm -rf /tmp/x/*']],
    ['cd /x || exit 1; rm -rf *', ['cd /x', 'exit 1', 'rm -rf /x/*']],
    ['cd / && cd /nope && rm -rf *', ['cd /', 'cd /nope', 'rm -rf /nope/*']],
    ['cd /; cd /nope; rm -rf *', ['cd /', 'cd /nope', 'rm -rf $PWD/*']],
    ['cd / && cd /nope; rm -rf *', ['cd /', 'cd /nope', 'rm -rf $PWD/*']],
    // In a case, `)` ends a pattern, not the subshell.
    ['(cd /; case x in x) rm -rf *;; esac)', ['cd /', 'case x in x', 'rm -rf /*']],
    ['cd /; case x in (a) cd /tmp;; esac; rm -rf *', ['cd /', 'case x in', 'a', 'cd /tmp', 'rm -rf $PWD/*']],
    // Where the reader cannot follow: $PWD.
    ['cd "$X" && rm -rf *', ['cd $X', 'rm -rf $PWD/*']],
    ['cd "$(git rev-parse --show-toplevel)" && rm -rf dist', ['cd $(git rev-parse --show-toplevel)', 'git rev-parse --show-toplevel', 'rm -rf $PWD/dist']],
    ['cd - && rm -rf *', ['cd -', 'rm -rf $PWD/*']],
    ['popd; rm -rf *', ['popd', 'rm -rf $PWD/*']],
    ['cd /e* && rm -rf *', ['cd /e*', 'rm -rf $PWD/*']],
    ['cd .. && rm -rf *', ['cd ..', 'rm -rf $PWD/*']],
    ['CDPATH=/ cd etc && rm -rf *', ['cd etc', 'rm -rf $PWD/*']],
    ['shopt -s cdable_vars; cd X && rm -rf *', ['shopt -s cdable_vars', 'cd X', 'rm -rf $PWD/*']],
    ['for i in 1 2; do rm -rf *; cd /; done', ['for i in 1 2', 'rm -rf $PWD/*', 'cd /']],
    ["trap 'rm -rf *' EXIT; cd /", ['trap rm -rf * EXIT', 'rm -rf $PWD/*', 'cd /']],
    ['for i (1 2) { rm -rf *; cd /; }', ['for i', '1 2', 'rm -rf $PWD/*', 'cd /']],
    ['while true; do rm -rf *; cd /; done', ['true', 'rm -rf $PWD/*', 'cd /']],
    ['f() { rm -rf *; }; cd /; f', ['f', 'rm -rf $PWD/*', 'cd /', 'f']],
    // Relative locations stay as written.
    ['cd build && rm -rf *', ['cd build', 'rm -rf *']],
    ['cd a/b && cd ../.. && rm -rf ./*', ['cd a/b', 'cd ../..', 'rm -rf *']],
    ['for f in *.o; do rm "$f"; done', ['for f in *.o', 'rm $f']],
  ])('follows the directory: %j', (line, expected) => {
    expect(shellCommands(line)).toEqual(expected);
  });

  it('reads a path that climbs above a home directory as it is written', () => {
    expect(shellCommands('rm -rf ~/.. ~/x/../../y $HOME/. $PWD/a/..')).toEqual(['rm -rf ~/.. ~/../y $HOME $PWD']);
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
    ['a long directory, then many operands', `cd /${'a'.repeat(4000)}; rm ${'x '.repeat(30_000)}`],
    ['many cd', 'cd /a/b; cd ..; '.repeat(KIB64 / 16)],
    ['many pushd and popd', 'pushd /a; popd; popd; '.repeat(KIB64 / 20)],
    ['many redirections', `echo ${'>x 2>&1 '.repeat(KIB64 / 8)}`],
    ['nested subshells', `${'('.repeat(KIB64 / 2)}${')'.repeat(KIB64 / 2)}`],
  ])('%s', (_, line) => {
    expect(() => shellCommands(line)).not.toThrow();
  });

  it('random lines over the shell alphabet', () => {
    let state = 11;
    const next = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const alphabet = [...'ab /.~-;|&()`$\'"\\#\n<>{}!*=', 'rm', 'sh -c ', "$'", '$(', '\\\n', 'sudo ', 'eval ', 'cd ', 'pushd ', 'popd', '2>&1', '&>', 'do ', 'trap '];
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
