/**
 * Problems found in a hooks configuration, located by line, column and field path.
 */

/**
 * One problem in a hooks configuration. `line` and `column` are 1-based positions in the YAML
 * text (0 when the configuration did not come from text, e.g. {@link compileHooksConfig} on a
 * stored value); `path` names the field, e.g.
 * `hooks.pre-issue-submit.oracles[0].rules[1].condition`.
 */
export interface ConfigIssue {
  line: number;
  column: number;
  path: string;
  message: string;
}

/** Thrown by `compileHooksConfig` when the configuration cannot be compiled. */
export class ConfigCompileError extends Error {
  override readonly name = 'ConfigCompileError';
  readonly issues: ConfigIssue[];

  constructor(issues: ConfigIssue[]) {
    const first = issues[0];
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    super(first === undefined ? 'invalid hooks configuration' : `invalid hooks configuration: ${first.path || '(root)'}: ${first.message}${more}`);
    this.issues = issues;
  }
}

/** A path segment: a key of a mapping or an index of a list. */
export type PathSegment = string | number;

/**
 * A problem before it is located: where (field path, and for expressions the offset inside the
 * string) and what. `at: 'key'` points at the key of a mapping entry instead of its value;
 * `at: 'none'` is a problem outside the file (a plugin), reported at line 0.
 */
export interface RawIssue {
  path: readonly PathSegment[];
  message: string;
  offset?: number;
  at?: 'key' | 'none';
}

/**
 * Issues as text, one per line, compiler style: `.ahp/hooks.yaml:12:20: hooks.pre-tool-use…: message`
 * (the position is left out when it is unknown).
 */
export function formatConfigIssues(issues: readonly ConfigIssue[], file = '.ahp/hooks.yaml'): string {
  return issues
    .map((issue) => {
      const where = issue.line > 0 ? `${file}:${issue.line}:${issue.column}` : file;
      return `${where}: ${issue.path === '' ? '' : `${issue.path}: `}${issue.message}`;
    })
    .join('\n');
}
