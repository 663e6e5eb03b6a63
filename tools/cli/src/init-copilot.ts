/**
 * `ahp init copilot [--project|--user]`: sets GitHub Copilot up to ask AHP. Writes a command hook
 * `ahp hook copilot <event>` for every Copilot event AHP evaluates into a hooks file of its own —
 * `.github/hooks/ahp.json` of the repository (read by the Copilot CLI and the cloud agent), or
 * `~/.copilot/hooks/ahp.json` (the CLI, every repository) — merged with what that file holds.
 *
 * The token: a repository's hooks are checked in, so they take it from AHP_TOKEN — the
 * developer's environment for the CLI, a secret of the repository's `copilot` environment for the
 * cloud agent. With `--user` and a token, it goes into `~/.copilot/ahp-token` (mode 0600), which
 * the user's hooks read with `--token-file`.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CopilotHooksFileSchema, type CopilotHooksFile } from '@ahp/protocol';
import { EXIT, printJson, usageError, type CliIo } from './cli-support.js';
import { withCopilotAhpHooks } from './copilot-hooks-file.js';
import { gatewayUrl } from './gateway-http.js';
import { agentToken, readConfigFile, writeFileAtomically, writeSettings, type InitValues } from './init-command.js';

/** The files of `--project` (in `cwd`) or `--user` (in the home folder). */
export function copilotPaths(scope: 'project' | 'user', io: Pick<CliIo, 'cwd' | 'env'>): { hooks: string; token: string | undefined } {
  if (scope === 'user') {
    const dir = join(io.env['HOME'] ?? homedir(), '.copilot');
    return { hooks: join(dir, 'hooks', 'ahp.json'), token: join(dir, 'ahp-token') };
  }
  return { hooks: join(io.cwd, '.github', 'hooks', 'ahp.json'), token: undefined };
}

/** `ahp init copilot`: exit 0 once the files are written, 1 when the hooks file cannot be used, 2 for a usage error. */
export async function initCopilot(values: InitValues, io: CliIo): Promise<number> {
  if (values.project === true && values.user === true) throw usageError('--project and --user exclude each other');
  if (values.command === true) throw usageError('--command is for Claude Code: Copilot hooks are always command hooks');
  const scope = values.user === true ? 'user' : 'project';
  const wantsToken = values.token !== undefined || values.file !== undefined || values.agent !== undefined;
  if (scope === 'project' && wantsToken) {
    throw usageError('a repository\'s hooks are checked in: they read the token from AHP_TOKEN (your environment for the CLI, a secret of the "copilot" environment for the cloud agent); pass --token only with --user');
  }
  const gateway = gatewayUrl(values, io);
  const paths = copilotPaths(scope, io);
  const file = await readConfigFile<CopilotHooksFile>(paths.hooks, CopilotHooksFileSchema);
  const minted = wantsToken && paths.token !== undefined ? await agentToken(values, io, 'Copilot') : undefined;
  if (minted !== undefined && paths.token !== undefined) await writeFileAtomically(paths.token, `${minted.token}\n`, 0o600);
  const tokenFile = minted === undefined ? undefined : paths.token;
  await writeSettings(paths.hooks, withCopilotAhpHooks(file, gateway, tokenFile), 0o644);

  if (values.json === true) {
    printJson(io, { scope, gateway, hooks_file: paths.hooks, token_file: tokenFile ?? null, minted: minted?.minted ?? false, ...(minted?.minted === true ? { token: minted.token } : {}) });
    return EXIT.ok;
  }
  const lines = [
    `Copilot now asks AHP at ${gateway} (command hooks: ahp must be on the PATH where Copilot runs).`,
    `  hooks:  ${paths.hooks}`,
    tokenFile === undefined
      ? '  token:  from AHP_TOKEN — export it for the Copilot CLI; for the cloud agent, add it as a secret of the repository\'s "copilot" environment'
      : `  token:  ${tokenFile} (mode 0600)`,
    ...(minted?.minted === true ? [`  minted: ${minted.token}  (shown once; reload the gateways first)`] : []),
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
