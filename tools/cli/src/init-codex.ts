/**
 * `ahp init codex [--project|--user]`: sets OpenAI Codex up to ask AHP. Writes a command hook
 * `ahp hook codex` for every Codex event AHP maps into Codex's hooks.json (`.codex/hooks.json` of
 * the project, or `~/.codex/hooks.json`), merged with what is there, and the agent token into a
 * file of its own next to it (`.codex/ahp-token`, mode 0600) that the hook command names with
 * `--token-file`: Codex keeps no per-project environment, and the token must not be in a file a
 * team checks in — the project's `.codex/.gitignore` gets a line for it.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CodexHooksFileSchema, type CodexHooksFile } from '@ahp/protocol';
import { EXIT, invalidInput, printJson, usageError, type CliIo } from './cli-support.js';
import { PROJECT_TOKEN_FILE, shellQuote, withCodexAhpHooks } from './codex-hooks-file.js';
import { gatewayUrl } from './gateway-http.js';
import { agentToken, readConfigFile, writeFileAtomically, writeSettings, type InitValues } from './init-command.js';

/** The files of `--project` (in `cwd`) or `--user` (in the home folder). */
export function codexPaths(scope: 'project' | 'user', io: Pick<CliIo, 'cwd' | 'env'>): { hooks: string; token: string; gitignore: string | undefined } {
  const dir = scope === 'user' ? join(io.env['HOME'] ?? homedir(), '.codex') : join(io.cwd, '.codex');
  return { hooks: join(dir, 'hooks.json'), token: join(dir, 'ahp-token'), gitignore: scope === 'project' ? join(dir, '.gitignore') : undefined };
}

/** `.gitignore` text with a line for `name` added, or undefined when it has one already. */
export function withIgnored(text: string, name: string): string | undefined {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  if (lines.includes(name) || lines.includes(`/${name}`)) return undefined;
  return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${name}\n`;
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw invalidInput(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `ahp init codex`: exit 0 once the files are written, 1 when hooks.json cannot be used, 2 for a usage error. */
export async function initCodex(values: InitValues, io: CliIo): Promise<number> {
  if (values.project === true && values.user === true) throw usageError('--project and --user exclude each other');
  if (values.command === true) throw usageError('--command is for Claude Code: Codex hooks are always command hooks');
  const scope = values.user === true ? 'user' : 'project';
  const gateway = gatewayUrl(values, io);
  const paths = codexPaths(scope, io);
  // Everything is read (and checked) before anything is written: a broken file changes nothing.
  const file = await readConfigFile<CodexHooksFile>(paths.hooks, CodexHooksFileSchema);
  const gitignore = paths.gitignore === undefined ? undefined : await readText(paths.gitignore);
  const { token, minted } = await agentToken(values, io, 'Codex');

  await writeFileAtomically(paths.token, `${token}\n`, 0o600);
  if (paths.gitignore !== undefined && gitignore !== undefined) {
    const ignored = withIgnored(gitignore, 'ahp-token');
    if (ignored !== undefined) await writeFileAtomically(paths.gitignore, ignored, 0o644);
  }
  const tokenWord = scope === 'project' ? PROJECT_TOKEN_FILE : shellQuote(paths.token);
  await writeSettings(paths.hooks, withCodexAhpHooks(file, gateway, tokenWord), 0o644);

  if (values.json === true) {
    printJson(io, { scope, gateway, hooks_file: paths.hooks, token_file: paths.token, minted, ...(minted ? { token } : {}) });
    return EXIT.ok;
  }
  const lines = [
    `Codex now asks AHP at ${gateway} (command hooks: ahp must be on the PATH of Codex).`,
    `  hooks:  ${paths.hooks}`,
    `  token:  ${paths.token} (mode 0600${paths.gitignore === undefined ? '' : '; ignored by .codex/.gitignore, keep it out of version control'})`,
    ...(minted ? [`  minted: ${token}  (shown once; reload the gateways first)`] : []),
    '',
    'Codex asks you to review new hooks before they run: open /hooks in Codex and trust them.',
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
