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
    expect(DEFAULT_PERMISSION_RULES.deny?.map((r) => r.name)).toEqual(['rm-root-or-home', 'wipe-block-device', 'force-push-without-lease']);
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

  it.each<[string, JsonValue]>([
    ['Bash', { command: '/sbin/mkfs.ext4 /dev/sda1' }],
    ['Bash', { command: 'dd if=/dev/zero of="/dev/sda"' }],
    ['Bash', { command: "dd of='/dev/nvme0n1' if=/dev/zero" }],
    ['Bash', { command: 'cat /dev/zero > /dev/sda' }],
    ['Bash', { command: 'wipefs -a /dev/sdb' }],
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
