/**
 * What the rules of a coding agent's hook read when its context is over the hook context limits
 * (`hook-context-limits.ts` of @ahp/protocol: the tool's text up to 256 KiB a string, 1 MiB
 * together; 64 KiB for every other string). The policy is the MCP route's (mcp-gateway.service.ts):
 *
 * - a hook before anything happened (a `pre-tool-use` input, a prompt, …) is refused closed,
 *   whatever the failure policy: rules that saw part of a file a Write creates would let the rest
 *   through unseen, and the model decides how large that file is;
 * - a tool result (`post-tool-use`: the tool already ran) whose tool text alone is too long goes
 *   by the trigger's failure policy, as a decision that cannot be made: `fail_closed` refuses it
 *   with the sizes, `fail_open` (the default) has the rules read what fits and says so in the
 *   answer ({@link partlyInspected}) and in the gateway's log — never unevaluated without a word.
 */
import { LIMITS, fitToolText, inspectHookContext, makeError, type AhpError, type FailurePolicy, type HookDecision, type HookTrigger, type JsonObject, type ToolTextCut } from '@ahp/protocol';

/** A context the rules may read (`cut` lists what was left out of it), or the refusal of one they may not. */
export type Inspectable =
  | { readonly kind: 'inspect'; readonly context: JsonObject; readonly cut: readonly ToolTextCut[] }
  | { readonly kind: 'refused'; readonly error: AhpError; readonly path: string; readonly partial: boolean };

/** See the module comment. Pure. */
export function inspectableContext(context: JsonObject, trigger: HookTrigger, policy: FailurePolicy): Inspectable {
  const issue = inspectHookContext(context, 1)[0];
  if (issue === undefined) return { kind: 'inspect', context, cut: [] };
  const path = issue.path.join('.');
  const fitted = trigger === 'post-tool-use' ? fitToolText(context) : undefined;
  if (fitted === undefined) {
    const where = path === '' ? '' : ` at ${path}`;
    return { kind: 'refused', path, partial: false, error: makeError('E_INVALID_FRAME', `the hook input exceeds the hook context limits${where}: ${issue.message}`) };
  }
  if (policy === 'fail_closed') {
    const message =
      `the tool ran, but its result is larger than AHP can inspect in full (${sizes(fitted.cut)}; at most ${LIMITS.maxLongText} characters a string, ` +
      `${LIMITS.maxLongTextTotal} together) and post-tool-use fails closed. Ask for a smaller part of it (a range, a page, a narrower query)`;
    return { kind: 'refused', path, partial: true, error: makeError('E_INVALID_FRAME', message, { reason: 'too_large_to_inspect', limit_chars: LIMITS.maxLongText }) };
  }
  return { kind: 'inspect', context: fitted.context, cut: fitted.cut };
}

/** `decision` with a warning that its rules read the tool result only in part (the agent shows warnings to its user). */
export function partlyInspected(decision: HookDecision, cut: readonly ToolTextCut[]): HookDecision {
  const read = cut
    .slice(0, 3)
    .map((one) => `the first ${one.kept} of the ${one.chars} characters of ${one.path}`)
    .join(', ');
  const more = cut.length > 3 ? ` and ${cut.length - 3} more` : '';
  const warning = `this tool result was inspected in part (fail-open): the rules read ${read}${more}; AHP inspects at most ${LIMITS.maxLongText} characters a string.`;
  return { ...decision, warnings: [...decision.warnings, warning] };
}

/** "tool.response.stdout: 300000 characters, …", at most three. */
function sizes(cut: readonly ToolTextCut[]): string {
  const listed = cut
    .slice(0, 3)
    .map((one) => `${one.path}: ${one.chars} characters`)
    .join(', ');
  return cut.length > 3 ? `${listed} and ${cut.length - 3} more` : listed;
}
