/**
 * The command tree in process (no Redis, no gateway): every command has generated help, usage
 * errors are one line and exit 2 whatever the command, and the completion script completes.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildProgram, commandPath, leaves } from './cli-program.js';
import { runCli, type CliIo } from './run-cli.js';

function capture(): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    io: { stdout: { write: (text: string) => (out += text) }, stderr: { write: (text: string) => (err += text) }, env: {}, cwd: process.cwd() },
    out: () => out,
    err: () => err,
  };
}

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const { io, out, err } = capture();
  const code = await runCli(argv, io);
  return { code, out: out(), err: err() };
}

const commands = leaves(buildProgram(capture().io, () => undefined))
  .map((command) => commandPath(command).split(' ').slice(1))
  .filter(([name]) => name !== 'start' && name !== 'bench');

describe('ahp command line', () => {
  it.each(commands.map((words) => [words.join(' ')]))('"ahp %s --help" prints its usage, options and the global options, exit 0', async (path) => {
    const help = await run([...path.split(' '), '--help']);
    expect(help.code).toBe(0);
    expect(help.err).toBe('');
    expect(help.out).toContain(`Usage: ahp ${path}`);
    expect(help.out).toContain('Global Options:');
    expect(help.out).toContain('--redis-url <URL>');
  });

  it.each(commands.map((words) => [words.join(' ')]))('"ahp %s --no-such-option" is one line on stderr and exit 2', async (path) => {
    const result = await run([...path.split(' '), '--no-such-option']);
    expect(result).toEqual({ code: 2, out: '', err: `ahp: unknown option '--no-such-option'; see "ahp ${path} --help"\n` });
  });

  it('names a missing option value and a missing argument the same way', async () => {
    expect(await run(['log', 'export', '--since'])).toEqual({ code: 2, out: '', err: `ahp: option '--since <T>' argument missing; see "ahp log export --help"\n` });
    expect(await run(['tokens', 'agent'])).toEqual({ code: 2, out: '', err: `ahp: missing required argument 'id'; see "ahp tokens agent --help"\n` });
    expect(await run(['requests', 'approve', 'a', 'b'])).toMatchObject({ code: 2, err: expect.stringMatching(/^ahp: too many arguments for 'approve'.*; see "ahp requests approve --help"\n$/) });
  });

  it('prints the help of the tool and of a group on stderr with exit 2 when no command is given', async () => {
    const bare = await run([]);
    expect(bare.code).toBe(2);
    expect(bare.err).toContain('Usage: ahp <command> [options]');
    expect(bare.err).toMatch(/ahp config publish <file>\s+validate a hooks\.yaml/);
    const group = await run(['shadow']);
    expect(group.code).toBe(2);
    expect(group.err).toContain('Usage: ahp shadow <command> [options]');
    expect(group.err).not.toContain('help [command]');
  });

  it('takes global options before or after the command', async () => {
    // A usage error raised after parsing, by the command itself: both orders reach it with --prefix parsed.
    for (const argv of [['--prefix', 'bad prefix!', 'config', 'show'], ['config', 'show', '--prefix', 'bad prefix!']]) {
      const result = await run([...argv, '--redis-url', 'redis://127.0.0.1:1']);
      expect(result.code).toBe(2);
      expect(result.err).toMatch(/^ahp: --prefix \/ AHP_KEY_PREFIX: /);
    }
  });

  it('completes commands, subcommands and options in bash', async () => {
    const script = (await run(['completion', 'bash'])).out;
    const complete = (words: string[]): string[] => {
      const line = ['ahp', ...words];
      const bash = spawnSync('bash', ['-c', `${script}\nCOMP_WORDS=(${line.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${line.length - 1}; _ahp; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8' });
      expect(bash.stderr).toBe('');
      return bash.stdout.split('\n').filter((word) => word !== '');
    };
    expect(complete(['co'])).toEqual(['config', 'completion']);
    expect(complete(['config', 'p'])).toEqual(['publish']);
    expect(complete(['--json', 'log', 'export', '--si'])).toEqual(['--since']);
    expect(complete(['config', 'validate', 'f.yaml', '--st'])).toEqual(['--strict']);
    // After an option that takes a value, the shell's own (file name) completion applies.
    expect(complete(['log', 'export', '--out', ''])).toEqual([]);
    expect((await run(['completion', 'zsh'])).out).toContain('bashcompinit');
    expect(await run(['completion', 'fish'])).toMatchObject({ code: 2, err: expect.stringContaining("Allowed choices are bash, zsh") });
  });
});
