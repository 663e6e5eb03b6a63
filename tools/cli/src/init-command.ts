/**
 * `ahp init claude-code [--project|--user]`: sets Claude Code up to ask AHP in one command. It
 * takes an agent token (`--token`) or mints one into the gateway's agent tokens file (`--file
 * --agent`; the operator API deliberately mints no tokens, docs/operator-api.md), writes the AHP
 * hooks of every event the gateway maps into the settings file, merged with what is there
 * (claude-code-settings.ts), and puts the token where Claude Code's sessions get it: the `env` of
 * `.claude/settings.local.json` (the project's personal, unshared settings) or of the user's own
 * `~/.claude/settings.json`. Never the shared project file: that one is checked in.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { ClaudeCodeSettingsSchema, describeIssues, type ClaudeCodeSettings } from '@ahp/protocol';
import { EXIT, invalidInput, printJson, usageError, type CliIo, type GlobalValues } from './cli-support.js';
import { withAhpHooks, type HookForm } from './claude-code-settings.js';
import { gatewayUrl, type GatewayValues } from './gateway-http.js';

/** Parsed options of `ahp init claude-code`. */
export interface InitValues extends GlobalValues, GatewayValues {
  project?: boolean | undefined;
  user?: boolean | undefined;
  command?: boolean | undefined;
  token?: string | undefined;
  agent?: string | undefined;
  name?: string | undefined;
  team?: string | undefined;
  role?: string | undefined;
  environment?: string | undefined;
  file?: string | undefined;
}

/** The settings files of a scope: where the hooks go, and where the token goes. */
export interface SettingsPaths {
  hooks: string;
  token: string;
}

/** The files of `--project` (in `cwd`) or `--user` (in the home folder). */
export function settingsPaths(scope: 'project' | 'user', io: Pick<CliIo, 'cwd' | 'env'>): SettingsPaths {
  if (scope === 'user') {
    const file = join(io.env['HOME'] ?? homedir(), '.claude', 'settings.json');
    return { hooks: file, token: file };
  }
  return { hooks: join(io.cwd, '.claude', 'settings.json'), token: join(io.cwd, '.claude', 'settings.local.json') };
}

/** A settings file, `{}` when it does not exist; exit 1 (nothing written) when it is not a settings object. */
export async function readSettings(path: string): Promise<ClaudeCodeSettings> {
  return readConfigFile(path, ClaudeCodeSettingsSchema);
}

/**
 * An agent's JSON configuration file checked with `schema`, `{}` when it does not exist; exit 1
 * (nothing written) when it is not JSON or does not fit. The file comes back as it was, not as
 * zod's copy (which lists the known keys first), so a merge keeps its key order.
 */
export async function readConfigFile<T extends object>(path: string, schema: { safeParse(value: unknown): { success: true } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } } }): Promise<T> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {} as T;
    throw invalidInput(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    throw invalidInput(`${path} is not JSON; fix or move it, nothing was changed`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw invalidInput(`${path}: ${describeIssues(parsed.error.issues, { max: 1 }) || 'not a settings object'}; nothing was changed`);
  }
  return json as T;
}

/** Writes next to the file and renames over it, so the agent never reads half a file. */
export async function writeFileAtomically(path: string, text: string, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, text, { mode });
  await rename(temporary, path);
}

/** Writes `settings` as indented JSON (see {@link writeFileAtomically}). */
export async function writeSettings(path: string, settings: object, mode: number): Promise<void> {
  await writeFileAtomically(path, `${JSON.stringify(settings, null, 2)}\n`, mode);
}

/** The token to configure: `--token`, or one minted into `--file` for `--agent` (named `<agent> (<id>)` unless `--name`). */
export async function agentToken(values: InitValues, io: CliIo, agent = 'Claude Code'): Promise<{ token: string; minted: boolean }> {
  if (values.token !== undefined) {
    if (values.file !== undefined || values.agent !== undefined) throw usageError('pass either --token or --file with --agent, not both');
    const token = values.token.trim();
    if (token === '') throw usageError('--token is empty');
    return { token, minted: false };
  }
  if (values.file === undefined || values.agent === undefined) {
    throw usageError(
      'no agent token: pass --token TOKEN (one you were given), or --file AGENTS.json --agent ID to mint one into the gateway\'s agent tokens file (the operator API mints no tokens)',
    );
  }
  // Loaded on use, as in `ahp tokens`: only minting needs @ahp/stack.
  const { mintAgentToken, RELOAD_HINT } = await import('./token-commands.js');
  const { token, file } = await mintAgentToken(values.agent, { ...values, name: values.name ?? `${agent} (${values.agent})` });
  io.stderr.write(`ahp: added agent ${values.agent} to ${file}; ${RELOAD_HINT} before ${agent} uses it.\n`);
  return { token, minted: true };
}

/** `ahp init claude-code`: exit 0 once both files are written, 1 when a settings file cannot be used, 2 for a usage error. */
export async function initClaudeCode(values: InitValues, io: CliIo): Promise<number> {
  if (values.project === true && values.user === true) throw usageError('--project and --user exclude each other');
  const scope = values.user === true ? 'user' : 'project';
  const gateway = gatewayUrl(values, io);
  const form: HookForm = values.command === true ? 'command' : 'http';
  const paths = settingsPaths(scope, io);
  // Both files are read (and checked) before either is written: a broken file changes nothing.
  const hookSettings = await readSettings(paths.hooks);
  const tokenSettings = paths.token === paths.hooks ? undefined : await readSettings(paths.token);
  const { token, minted } = await agentToken(values, io);

  const withHooks = withAhpHooks(hookSettings, form, gateway);
  if (tokenSettings === undefined) {
    await writeSettings(paths.hooks, { ...withHooks, env: { ...withHooks.env, AHP_TOKEN: token } }, 0o600);
  } else {
    await writeSettings(paths.hooks, withHooks, 0o644);
    await writeSettings(paths.token, { ...tokenSettings, env: { ...tokenSettings.env, AHP_TOKEN: token } }, 0o600);
  }

  if (values.json === true) {
    printJson(io, { scope, form, gateway, hooks_file: paths.hooks, token_file: paths.token, minted, ...(minted ? { token } : {}) });
    return EXIT.ok;
  }
  const lines = [
    `Claude Code now asks AHP at ${gateway} (${form === 'http' ? 'HTTP hooks' : 'command hooks: ahp must be on the PATH'}).`,
    `  hooks:  ${paths.hooks}`,
    `  token:  ${paths.token} (env AHP_TOKEN${paths.token === paths.hooks ? '' : '; personal settings, keep it out of version control'})`,
    ...(minted ? [`  minted: ${token}  (shown once; reload the gateways first)`] : []),
    '',
    `Check it: ahp doctor${scope === 'user' ? ' --user' : ''}   (reaches the gateway, checks the token, asks one dry-run hook)`,
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
