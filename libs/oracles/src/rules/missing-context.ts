/**
 * Failing closed on a context the rules cannot read. A rule that can restrict (block, control or
 * require approval) and whose condition came out false after reading a context field the hook
 * does not have, or a value of a type its operator cannot read (`["rm", "-rf", "/"]` where
 * `matches` needs a string, `["prod"] == "prod"`), did not decide anything: "no such field" or
 * "not a string" read as "does not match" would turn a deny rule into an allow. The rule oracle
 * throws this error instead; the evaluation turns it into the hook's failure-policy decision with
 * `E_INVALID_CONTEXT`, naming the fields and the type problems.
 */

/** A restricting rule read context fields the hook does not have, or values it cannot read. */
export class MissingContextError extends Error {
  override readonly name = 'MissingContextError';
  /** Always `E_INVALID_CONTEXT`: the decision's `error.code`. */
  readonly code = 'E_INVALID_CONTEXT' as const;
  /** The context paths read and not found, e.g. `tool.input.command`. */
  readonly paths: readonly string[];
  /** The operands of the wrong type, each as a sentence (`tool.input.command is a list, and "matches" needs a string`). */
  readonly mistyped: readonly string[];

  constructor(oracle: string, rule: string, paths: readonly string[], mistyped: readonly string[] = []) {
    const unique = [...new Set(paths)];
    const problems = [...new Set(mistyped)];
    const parts: string[] = [];
    if (unique.length > 0) {
      parts.push(
        `reads ${unique.map((path) => `context.${path.replace(/^context\./, '')}`).join(', ')}, which this hook's context does not have; ` +
          'send the field (see docs/protocol.md, "Hook contexts"), or write the rule with default() or exists() if absence is expected',
      );
    }
    if (problems.length > 0) {
      parts.push(
        `cannot read ${problems.join('; ')}; send the value with the type the rule expects, or convert it in the rule (shell_join(), path_normalize(), see docs/hooks.md, "Values of the wrong type")`,
      );
    }
    super(`oracle "${oracle}", rule "${rule}" ${parts.join('; and it ')}`);
    this.paths = unique;
    this.mistyped = problems;
  }
}
