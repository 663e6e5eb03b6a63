/**
 * `ahp tokens agent|operator <id>`: mints a bearer token, appends its SHA-256 entry (and, for an
 * operator, the scope of `--teams` / `--request-types`) to the gateway's tokens file (validated by the protocol schema before anything is written), and prints
 * the token once. Gateways read the file at start and on SIGHUP.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { AgentTokensFileSchema, OperatorTokensFileSchema, describeIssues, type SchemaIssue } from '@ahp/protocol';
import { mintToken, tokenDigest } from '@ahp/stack';
import { EXIT, invalidInput, printJson, usageError, type CliIo, type GlobalValues } from './cli-support.js';

/** Parsed options of the token commands. */
export interface TokenValues extends GlobalValues {
  name?: string | undefined;
  team?: string | undefined;
  role?: string | undefined;
  environment?: string | undefined;
  file?: string | undefined;
  /** Operators: comma-separated teams the token is scoped to. */
  teams?: string | undefined;
  /** Operators: comma-separated request types the token may decide. */
  'request-types'?: string | undefined;
}

/** A comma-separated option as a list (blank items dropped); undefined when the option is absent. */
function listOption(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/** The scope of `--teams` / `--request-types` (checked with the tokens file's schema), or none for a fleet-wide token. */
function operatorScope(values: TokenValues): { scope?: { teams?: string[]; request_types?: string[] } } {
  const teams = listOption(values.teams);
  const requestTypes = listOption(values['request-types']);
  if (teams === undefined && requestTypes === undefined) return {};
  if (teams?.length === 0) throw usageError('--teams needs at least one team');
  if (requestTypes?.length === 0) throw usageError('--request-types needs at least one request type');
  return { scope: { ...(teams === undefined ? {} : { teams }), ...(requestTypes === undefined ? {} : { request_types: requestTypes }) } };
}

export const RELOAD_HINT = 'send SIGHUP to every gateway (or restart them) so they load it';

/** The file's JSON, or `empty` when it does not exist yet. */
async function readJson(path: string, empty: unknown): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return empty;
    throw invalidInput(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidInput(`${path} is not JSON`);
  }
}

/** The first schema issue, for the message (the structural type keeps zod out of this tool's imports). */
function issues(path: string, error: { issues: readonly SchemaIssue[] }): Error {
  return invalidInput(`${path}: ${describeIssues(error.issues, { max: 1 }) || 'invalid'}`);
}

/** Writes next to the file and renames over it, so a gateway reloading meanwhile never reads half a file. */
async function replaceFile(path: string, value: unknown): Promise<void> {
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
}

function required(values: TokenValues, option: 'name' | 'file'): string {
  const value = values[option]?.trim() ?? '';
  if (value === '') throw usageError(`--${option} is required`);
  return value;
}

function report(io: CliIo, values: TokenValues, kind: 'agent' | 'operator', id: string, file: string, token: string): number {
  if (values.json === true) printJson(io, { kind, id, file, token });
  else io.stdout.write(`${token}\n`);
  io.stderr.write(`ahp: added ${kind} ${id} to ${file}; the token above is shown only once. Now ${RELOAD_HINT}.\n`);
  return EXIT.ok;
}

/**
 * Mints an agent token and appends its entry to `values.file` (validated before anything is
 * written); returns the token, which exists nowhere else. Used by `tokens agent` and `init claude-code`.
 */
export async function mintAgentToken(id: string, values: TokenValues): Promise<{ token: string; file: string }> {
  const file = required(values, 'file');
  const name = required(values, 'name');
  if (values.role !== undefined && values.role !== 'lead' && values.role !== 'teammate') throw usageError('--role must be lead or teammate');
  const current = AgentTokensFileSchema.safeParse(await readJson(file, { agents: [] }));
  if (!current.success) throw issues(file, current.error);
  const token = mintToken();
  const entry = {
    id,
    name,
    ...(values.team === undefined ? {} : { team: values.team }),
    ...(values.role === undefined ? {} : { role: values.role }),
    ...(values.environment === undefined ? {} : { environment: values.environment }),
    token_sha256: tokenDigest(token),
  };
  const next = AgentTokensFileSchema.safeParse({ agents: [...current.data.agents, entry] });
  if (!next.success) throw issues(file, next.error);
  await replaceFile(file, next.data);
  return { token, file };
}

/** `ahp tokens agent <id>`: exit 1 when the file is invalid or already has this id. */
export async function tokensAgent(id: string, values: TokenValues, io: CliIo): Promise<number> {
  const { token, file } = await mintAgentToken(id, values);
  return report(io, values, 'agent', id, file, token);
}

/**
 * `ahp tokens operator <id>`: exit 1 when the file is invalid, already has this id, or the scope
 * names an invalid team id or an unknown request type.
 */
export async function tokensOperator(id: string, values: TokenValues, io: CliIo): Promise<number> {
  const file = required(values, 'file');
  const name = required(values, 'name');
  if (values.role !== 'viewer' && values.role !== 'approver' && values.role !== 'admin') throw usageError('--role must be viewer, approver or admin');
  const current = OperatorTokensFileSchema.safeParse(await readJson(file, { operators: [] }));
  if (!current.success) throw issues(file, current.error);
  const token = mintToken();
  const scope = operatorScope(values);
  const next = OperatorTokensFileSchema.safeParse({ operators: [...current.data.operators, { id, name, role: values.role, ...scope, token_sha256: tokenDigest(token) }] });
  if (!next.success) throw issues(file, next.error);
  await replaceFile(file, next.data);
  return report(io, values, 'operator', id, file, token);
}
