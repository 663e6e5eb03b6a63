/**
 * `ahp config validate|publish|diff|show|history`: the hooks configuration and its versions.
 */
import { readFile } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { loadOraclePlugins, validateHooksConfig, type ConfigIssue, type ConfigWarning, type Oracle } from '@ahp/oracles';
import type { HooksConfig, StoredConfigVersion } from '@ahp/protocol';
import { configDigest, createConfigStore } from '@ahp/store';
import { EXIT, connectDeployment, invalidInput, printJson, table, usageError, wholeNumber, type CliIo, type GlobalValues } from './cli-support.js';
import { progressReporter } from './progress.js';
import { unifiedDiff } from './unified-diff.js';

/** The values of the options of the config commands (all of them; each command reads its own). */
export interface ConfigValues extends GlobalValues {
  by?: string | undefined;
  version?: string | undefined;
  limit?: string | undefined;
  plugins?: string | undefined;
  strict?: boolean | undefined;
}

/** A configuration file as read: its name for messages, and its text. */
interface SourceFile {
  /** As the user wrote it (relative paths stay relative in messages, as compilers print them). */
  label: string;
  source: string;
}

async function readSource(file: string | undefined, io: CliIo): Promise<SourceFile> {
  if (file === undefined) throw usageError('missing the configuration file, e.g. .ahp/hooks.yaml');
  const path = isAbsolute(file) ? file : resolve(io.cwd, file);
  try {
    return { label: file, source: await readFile(path, 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw invalidInput(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : error instanceof Error ? error.message : String(error)}`);
  }
}

/** Oracle plugins to validate against: `--plugins a,b`, else AHP_ORACLE_PLUGINS (what the workers load). */
async function plugins(values: ConfigValues, io: CliIo): Promise<Oracle[]> {
  const list = (values.plugins ?? io.env['AHP_ORACLE_PLUGINS'] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (list.length === 0) return [];
  try {
    return await loadOraclePlugins(list, { baseDir: io.cwd });
  } catch (error) {
    throw invalidInput(`oracle plugins: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `file:line:column path: message`, one issue per line; warnings say `warning:` before the message. */
export function formatIssues(issues: readonly ConfigIssue[], file: string, label = ''): string {
  return issues
    .map((issue) => {
      const where = issue.line > 0 ? `${file}:${issue.line}:${issue.column}` : file;
      const path = issue.path === '' ? '(root)' : issue.path;
      return `${where} ${path}: ${label}${issue.message}`;
    })
    .join('\n');
}

type Validated = { ok: true; config: HooksConfig; warnings: ConfigWarning[] } | { ok: false; issues: ConfigIssue[] };

async function validate(file: SourceFile, values: ConfigValues, io: CliIo): Promise<Validated> {
  const result = validateHooksConfig(file.source, { plugins: await plugins(values, io) });
  return result.ok ? { ok: true, config: result.config, warnings: result.warnings } : { ok: false, issues: result.issues };
}

function summary(config: HooksConfig): { hooks: number; oracles: number; rules: number } {
  const hooks = Object.values(config.hooks);
  const oracles = hooks.flatMap((hook) => hook.oracles);
  return { hooks: hooks.length, oracles: oracles.length, rules: oracles.reduce((n, oracle) => n + (oracle.rules?.length ?? 0), 0) };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The default `--by`: `user@host` of whoever runs the CLI. */
function defaultPublisher(io: CliIo): string {
  let user = io.env['USER'] ?? io.env['USERNAME'];
  try {
    user ??= userInfo().username;
  } catch {
    user ??= 'unknown';
  }
  return `${user}@${hostname()}`.slice(0, 256);
}

function versionOption(values: ConfigValues): number | undefined {
  return values.version === undefined ? undefined : wholeNumber('--version', values.version, 1);
}

export async function configValidate(file: string | undefined, values: ConfigValues, io: CliIo): Promise<number> {
  const input = await readSource(file, io);
  const result = await validate(input, values, io);
  if (values.json) {
    printJson(
      io,
      result.ok
        ? { valid: true, file: input.label, digest: configDigest(input.source), ...summary(result.config), warnings: result.warnings }
        : { valid: false, file: input.label, issues: result.issues },
    );
  } else if (result.ok) {
    const counts = summary(result.config);
    if (result.warnings.length > 0) io.stdout.write(`${formatIssues(result.warnings, input.label, 'warning: ')}\n`);
    const warned = result.warnings.length === 0 ? '' : `, ${plural(result.warnings.length, 'warning')}`;
    io.stdout.write(`${input.label}: valid (${plural(counts.hooks, 'hook')}, ${plural(counts.oracles, 'oracle')}, ${plural(counts.rules, 'rule')}${warned})\n`);
  } else {
    io.stdout.write(`${formatIssues(result.issues, input.label)}\n`);
    io.stderr.write(`${input.label}: ${plural(result.issues.length, 'issue')}\n`);
  }
  if (!result.ok) return EXIT.invalid;
  // Warnings never make a file invalid; --strict (for CI) treats them as issues.
  if (values.strict === true && result.warnings.length > 0) {
    if (!values.json) io.stderr.write(`${input.label}: ${plural(result.warnings.length, 'warning')} (--strict)\n`);
    return EXIT.invalid;
  }
  return EXIT.ok;
}

export async function configPublish(file: string | undefined, values: ConfigValues, io: CliIo): Promise<number> {
  const input = await readSource(file, io);
  const by = values.by ?? defaultPublisher(io);
  if (by.trim() === '' || by.length > 256) throw usageError('--by must be 1 to 256 characters');
  // Stages, not a share: loading oracle plugins, reaching Redis (or a cluster) are what can take a while.
  const progress = progressReporter(io.stderr, 'config publish');
  progress.update(`validating ${input.label}`);
  const result = await validate(input, values, io);
  progress.done();
  if (!result.ok) {
    if (values.json) printJson(io, { published: false, file: input.label, issues: result.issues });
    io.stderr.write(`${formatIssues(result.issues, input.label)}\n${input.label}: not published (${plural(result.issues.length, 'issue')}); the current version stays in force\n`);
    return EXIT.invalid;
  }
  // Warnings do not stop a publish: they go to stderr, beside the outcome.
  if (result.warnings.length > 0) io.stderr.write(`${formatIssues(result.warnings, input.label, 'warning: ')}\n`);
  progress.update('connecting to Redis');
  let deployment;
  try {
    deployment = await connectDeployment(values, io);
  } finally {
    progress.done();
  }
  try {
    const store = createConfigStore({ redis: deployment.redis, keys: deployment.keys });
    progress.update(`publishing ${input.label}`);
    const outcome = await store.publish({ source: input.source, config: result.config, publishedBy: by, now: Date.now() });
    progress.done();
    if (values.json) {
      printJson(io, { published: !outcome.unchanged, version: outcome.version, unchanged: outcome.unchanged, digest: configDigest(input.source), file: input.label, warnings: result.warnings });
    }
    else if (outcome.unchanged) io.stdout.write(`unchanged: version ${outcome.version} already has this text\n`);
    else io.stdout.write(`published version ${outcome.version} (${input.label})\n`);
    return EXIT.ok;
  } finally {
    await deployment.close();
  }
}

function versionLabel(stored: StoredConfigVersion): string {
  return `version ${stored.version} (published ${stored.published_at} by ${stored.published_by})`;
}

export async function configDiff(file: string | undefined, values: ConfigValues, io: CliIo): Promise<number> {
  const input = await readSource(file, io);
  const wanted = versionOption(values);
  const deployment = await connectDeployment(values, io);
  try {
    const store = createConfigStore({ redis: deployment.redis, keys: deployment.keys });
    const stored = wanted === undefined ? await store.current() : await store.get(wanted);
    if (stored === null && wanted !== undefined) throw invalidInput(`there is no version ${wanted}`);
    const fromLabel = stored === null ? '(no version published)' : versionLabel(stored);
    const diff = unifiedDiff(stored?.source ?? '', input.source, { fromLabel, toLabel: input.label });
    if (values.json) {
      printJson(io, { version: stored?.version ?? null, file: input.label, identical: diff === '', diff });
    } else if (diff === '') {
      io.stderr.write(`${input.label} is identical to ${stored === null ? 'nothing (no version published)' : `version ${stored.version}`}\n`);
    } else {
      io.stdout.write(diff);
    }
    return EXIT.ok;
  } finally {
    await deployment.close();
  }
}

export async function configShow(values: ConfigValues, io: CliIo): Promise<number> {
  const wanted = versionOption(values);
  const deployment = await connectDeployment(values, io);
  try {
    const store = createConfigStore({ redis: deployment.redis, keys: deployment.keys });
    const stored = wanted === undefined ? await store.current() : await store.get(wanted);
    if (stored === null) throw invalidInput(wanted === undefined ? 'no hooks configuration has been published yet' : `there is no version ${wanted}`);
    if (values.json) printJson(io, stored);
    else {
      io.stderr.write(`# ${versionLabel(stored)}\n`);
      io.stdout.write(stored.source.endsWith('\n') || stored.source === '' ? stored.source : `${stored.source}\n`);
    }
    return EXIT.ok;
  } finally {
    await deployment.close();
  }
}

export async function configHistory(values: ConfigValues, io: CliIo): Promise<number> {
  const limit = values.limit === undefined ? 20 : wholeNumber('--limit', values.limit, 1, 10_000);
  const deployment = await connectDeployment(values, io);
  try {
    const store = createConfigStore({ redis: deployment.redis, keys: deployment.keys });
    const [current, history] = await Promise.all([store.currentVersion(), store.history(limit)]);
    if (values.json) {
      printJson(io, { current, versions: history });
      return EXIT.ok;
    }
    if (history.length === 0) {
      io.stderr.write('no hooks configuration has been published yet\n');
      return EXIT.ok;
    }
    const rows = history.map((entry) => [
      `${entry.version === current ? '*' : ' '} ${entry.version}`,
      entry.published_at,
      entry.published_by,
      entry.digest.slice(0, 12),
    ]);
    io.stdout.write(`${table([['  VERSION', 'PUBLISHED AT', 'BY', 'DIGEST'], ...rows])}\n`);
    return EXIT.ok;
  } finally {
    await deployment.close();
  }
}
