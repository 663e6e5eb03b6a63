/**
 * A bounded look at a coding agent's hook body (Claude Code, Codex) before it is parsed: the protocol's single-pass shape
 * scan (`measureJsonShape`), with the hook context's limits and the body's own naming keys.
 *
 * Two uses: refuse shapes the hook context limits would refuse anyway (nesting, keys, elements)
 * before `JSON.parse` builds them — a megabyte nested 500,000 levels deep costs ~80 ms to parse
 * and more to walk — and find `hook_event_name` in a body the gateway will not parse at all
 * (over the size limit, over the rate limit), so that even that refusal is answered in the form
 * Claude Code obeys for the event. Claude Code writes the common fields, `hook_event_name` among
 * them, before the tool input, so they sit in the first few kilobytes; only the outermost object's
 * key counts, so a tool input the model wrote cannot choose the event.
 */
import { FRAME_SHAPE_LIMITS, LIMITS, measureJsonShape, type JsonShapeLimits } from '@ahp/protocol';

/**
 * The hook context limits (`LIMITS`), which the scan must never be stricter than: a tool input at
 * depth d of the body is at depth d + 1 of the hook context, so anything the scan refuses the
 * context check would refuse too.
 */
export const HOOK_BODY_SHAPE_LIMITS: Readonly<JsonShapeLimits> = Object.freeze({
  maxDepth: LIMITS.maxJsonDepth,
  maxKeys: LIMITS.maxObjectKeys,
  maxElements: LIMITS.maxArrayLength,
  maxValues: FRAME_SHAPE_LIMITS.maxValues,
});

/** A hook body is named by its session and says its kind in `hook_event_name`. */
const BODY_KEYS = Object.freeze({ id: 'session_id', type: 'hook_event_name' });

/** What {@link scanHookBody} found. */
export interface HookBodyScan {
  /** The top-level `hook_event_name` as written (the dialect tells whether it names an event it maps); undefined when none. */
  readonly event: string | undefined;
  /** The first shape limit the body breaks, in words (`nested deeper than 32 levels`); undefined when none. */
  readonly problem: string | undefined;
}

/** Scans `text` (a whole body, or the prefix of one that will not be parsed). Never throws. */
export function scanHookBody(text: string, limits: Readonly<JsonShapeLimits> = HOOK_BODY_SHAPE_LIMITS): HookBodyScan {
  const shape = measureJsonShape(text, limits, BODY_KEYS);
  return { event: typeof shape.type === 'string' ? shape.type : undefined, problem: shape.ok ? undefined : shape.message };
}
