/**
 * Failing closed on a context the rules cannot read. A rule that can restrict (block, control or
 * require approval) and whose condition came out false after reading a context field the hook
 * does not have did not decide anything: "no such field" read as "does not match" would turn a
 * deny rule into an allow. The rule oracle throws this error instead; the evaluation turns it into
 * the hook's failure-policy decision with `E_INVALID_CONTEXT`, naming the fields.
 */

/** A restricting rule read context fields the hook does not have. */
export class MissingContextError extends Error {
  override readonly name = 'MissingContextError';
  /** Always `E_INVALID_CONTEXT`: the decision's `error.code`. */
  readonly code = 'E_INVALID_CONTEXT' as const;
  /** The context paths read and not found, e.g. `tool.input.command`. */
  readonly paths: readonly string[];

  constructor(oracle: string, rule: string, paths: readonly string[]) {
    const unique = [...new Set(paths)];
    super(
      `oracle "${oracle}", rule "${rule}" reads ${unique.map((path) => `context.${path.replace(/^context\./, '')}`).join(', ')}, which this hook's context does not have; ` +
        'send the field (see docs/protocol.md, "Hook contexts"), or write the rule with default() or exists() if absence is expected',
    );
    this.paths = unique;
  }
}
