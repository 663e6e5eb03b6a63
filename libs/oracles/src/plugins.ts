/**
 * Oracle plugins: user modules that export oracles, loaded when a worker starts.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OracleSetupError } from './errors.js';
import { describeValue, oracleShapeProblem } from './oracle.js';
import type { Oracle } from './oracle.js';

/** Options of {@link loadOraclePlugins}. */
export interface LoadOraclePluginsOptions {
  /**
   * Directory that relative paths (`./x.js`, `../y.mjs`) are resolved against.
   * @defaultValue `process.cwd()`
   */
  readonly baseDir?: string;
}

/** The export names a plugin module may use, in the order they are read. */
const EXPORT_NAMES = ['default', 'oracles', 'oracle'] as const;

/**
 * Imports oracle plugin modules and returns their oracles, module by module in the given order.
 *
 * Each specifier is one of:
 * - a path: absolute, or starting with `./` or `../` (resolved against `baseDir`);
 * - a `file:` URL;
 * - a package specifier (`@acme/ahp-oracles`, `@acme/pkg/oracles`), resolved the way an `import`
 *   inside the worker's installation resolves it.
 *
 * A module provides oracles through its default export, a named `oracles` export, a named
 * `oracle` export, or several of them; each holds an {@link Oracle} or an array of them. The same
 * object exported under two names counts once. Every oracle's shape is checked here, and names
 * must be unique across all modules, so a broken plugin stops the worker at start.
 *
 * Modules are plain JavaScript as Node imports it: a plugin written in TypeScript is compiled
 * first.
 *
 * @throws {@link OracleSetupError}: `E_PLUGIN_LOAD` when a module cannot be imported,
 *   `E_PLUGIN_SHAPE` when it exports no oracle or a malformed one, `E_DUPLICATE_ORACLE` when
 *   two oracles share a name. `module` names the specifier concerned.
 */
export async function loadOraclePlugins(
  specifiers: readonly string[],
  options: LoadOraclePluginsOptions = {},
): Promise<Oracle[]> {
  const baseDir = options.baseDir ?? process.cwd();
  const loaded: Oracle[] = [];
  const origin = new Map<string, string>();
  for (const specifier of specifiers) {
    for (const oracle of await loadModule(specifier, baseDir)) {
      const earlier = origin.get(oracle.name);
      if (earlier !== undefined) {
        throw new OracleSetupError(
          'E_DUPLICATE_ORACLE',
          `oracle plugin ${JSON.stringify(specifier)}: oracle "${oracle.name}" is also exported by ${JSON.stringify(earlier)}`,
          { module: specifier },
        );
      }
      origin.set(oracle.name, specifier);
      loaded.push(oracle);
    }
  }
  return loaded;
}

/**
 * Concatenates oracle lists in order (e.g. the defaults, then the plugins) and checks that names
 * are unique, since a signal's `source` must say which oracle produced it.
 *
 * @throws {@link OracleSetupError} with code `E_DUPLICATE_ORACLE`.
 */
export function combineOracles(...lists: readonly (readonly Oracle[])[]): Oracle[] {
  const combined: Oracle[] = [];
  const names = new Set<string>();
  for (const oracle of lists.flat()) {
    if (names.has(oracle.name)) {
      throw new OracleSetupError('E_DUPLICATE_ORACLE', `two oracles are named "${oracle.name}"; oracle names must be unique`);
    }
    names.add(oracle.name);
    combined.push(oracle);
  }
  return combined;
}

async function loadModule(specifier: string, baseDir: string): Promise<Oracle[]> {
  const label = JSON.stringify(specifier);
  if (typeof specifier !== 'string' || specifier.trim() === '') {
    throw new OracleSetupError('E_PLUGIN_LOAD', `oracle plugin specifier must be a non-empty string, got ${label}`, {
      module: String(specifier),
    });
  }
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(toImportable(specifier, baseDir))) as Record<string, unknown>;
  } catch (error) {
    throw new OracleSetupError('E_PLUGIN_LOAD', `oracle plugin ${label} could not be loaded: ${reason(error)}`, {
      module: specifier,
      cause: error,
    });
  }

  const found: Oracle[] = [];
  const seen = new Set<unknown>();
  for (const exportName of EXPORT_NAMES) {
    const exported = namespace[exportName];
    if (exported === undefined) continue;
    const items = Array.isArray(exported) ? exported : [exported];
    if (items.length === 0) {
      throw new OracleSetupError('E_PLUGIN_SHAPE', `oracle plugin ${label}: export "${exportName}" is an empty array`, {
        module: specifier,
      });
    }
    items.forEach((item: unknown, index) => {
      if (seen.has(item)) return;
      const problem = oracleShapeProblem(item);
      if (problem !== undefined) {
        const where = Array.isArray(exported) ? `${exportName}[${index}]` : exportName;
        throw new OracleSetupError('E_PLUGIN_SHAPE', `oracle plugin ${label}: export "${where}" is not an oracle: ${problem}`, {
          module: specifier,
        });
      }
      seen.add(item);
      found.push(item as Oracle);
    });
  }
  if (found.length === 0) {
    const names = Object.keys(namespace);
    throw new OracleSetupError(
      'E_PLUGIN_SHAPE',
      `oracle plugin ${label} exports no oracle: expected a default export, "oracles" or "oracle" (it exports ${
        names.length === 0 ? 'nothing' : names.map((n) => `"${n}"`).join(', ')
      })`,
      { module: specifier },
    );
  }
  return found;
}

function toImportable(specifier: string, baseDir: string): string {
  if (specifier.startsWith('file:')) return specifier;
  if (isAbsolute(specifier) || /^\.\.?[\\/]/.test(specifier)) return pathToFileURL(resolve(baseDir, specifier)).href;
  return specifier;
}

function reason(error: unknown): string {
  if (error instanceof Error) return error.message;
  return `threw ${describeValue(error)}`;
}
