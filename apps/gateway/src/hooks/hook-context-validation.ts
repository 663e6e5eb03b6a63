/**
 * The gateway's check of a hook's context against its trigger's typed schema
 * (`parseHookContext` of `@ahp/protocol`), made before the hook is recorded or queued: a context
 * the rules would misread (a string where `tool: {name, input}` belongs, a typo, a top-level
 * `environment` claim) is refused with `E_INVALID_CONTEXT` naming the path, instead of being
 * evaluated as "nothing matched" and allowed. Kept apart from the hook round trip so the one
 * place that decides what a rule may see is easy to find.
 */
import { parseHookContext, type AhpError, type HookTrigger, type JsonObject } from '@ahp/protocol';

/** The outcome: the context to evaluate, or the error to answer with. */
export type HookContextCheck = { ok: true; context: JsonObject } | { ok: false; error: AhpError };

/** Checks `context` for `trigger`; never throws. */
export function checkHookContext(trigger: HookTrigger, context: JsonObject): HookContextCheck {
  return parseHookContext(trigger, context);
}
