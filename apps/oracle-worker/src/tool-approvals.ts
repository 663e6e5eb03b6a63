/**
 * The worker's half of tool approvals required by rules (docs/protocol.md, "Tool approvals
 * required by rules"). A hook never waits for a person inside one evaluation: the oracles'
 * decision says "approval required" (a block signal with `context.approval`), and this module
 * turns it into the answer the server stands by, in two rounds:
 *
 * 1. First round: no usable approval yet. A `tool_approval` request is opened for the hook
 *    (idempotently: its id derives from the hook id) BEFORE the decision is stored, and the
 *    decision is a block with `resolution: { kind: 'await_approval', request_id, deadline }`.
 * 2. Second round: the agent sends the same call again as a new hook, with
 *    `context.approval = { request_id }`. A request that satisfies the rules asking now
 *    (`approvalRefusal`: the request such a rule opened for the operators — never one an agent
 *    opened, to its lead or to operators —, for this agent, session, tool and input digest, asked
 *    for by the same rules on the same terms, decided by an operator) and is settled decides,
 *    used exactly once (`consume`, which also refuses a request whose grant was revoked):
 *    approved → allow (an aid signal), or control with the person's input; rejected → block with
 *    their feedback; expired → block with its own reason, or allow when the rule says
 *    `on_expiry: approve`. Still pending → the same wait again. Any other request is ignored
 *    (logged with the reason) and the call asks the operators again.
 *
 * Before opening a request, a live session grant covering the call allows it (an aid signal
 * naming the grant), and a request an earlier hook opened for the identical call in this session
 * is used as if presented (a Claude Code retry carries no `context.approval`).
 *
 * Other oracles still count: a hard block from another oracle makes the approval moot (the
 * approval signals are dropped and nothing is asked), and their control signals apply alongside
 * the person's decision — except where the person approved an edited input: the operator saw the
 * agent's input (the request's payload), not the oracles' rewrites, and the console tells them
 * "the agent runs this edited input instead". So each field the operator edited runs exactly as
 * they wrote it; a rewrite of that field (decided for a value that no longer runs) is superseded,
 * which the approval's modification says in its reason; rewrites of fields they left alone apply.
 */
import { canonicalJson } from '@ahp/oracles';
import {
  APPROVAL_SIGNAL_TYPES,
  HookDecisionSchema,
  LIMITS,
  clipText,
  SignalSchema,
  aggregateSignals,
  approvalRequirementOf,
  approvalRuleOf,
  hookToolCall,
  inspectJsonValue,
  isRedactionMarker,
  pointerTarget,
  presentedApproval,
} from '@ahp/protocol';
import type { ApprovalRequirement, HookDecision, HookJobData, JsonObject, JsonValue, Modification, ProtocolState, Signal, SignalPayload, ToolGrant } from '@ahp/protocol';
import type { ApprovalTerms, Logger, StoredToolApproval, ToolApprovalStore, ToolCall, ToolGrantStore } from '@ahp/store';
import { approvalRefusal, toolInputDigest } from '@ahp/store';

/** What {@link createToolApprovals} needs. */
export interface ToolApprovalsOptions {
  readonly approvals: Pick<ToolApprovalStore, 'open' | 'findForCall' | 'get' | 'consume' | 'settleIfDue'>;
  readonly grants: Pick<ToolGrantStore, 'match'>;
  readonly logger: Logger;
}

/** Extra clock and ids of one job, shared with the evaluation that produced the decision. */
export interface ToolApprovalsDeps {
  readonly now: () => number;
  readonly newId: () => string;
}

/** Applies the approval flow to one evaluated decision; returns it unchanged when no rule asked for approval. */
export type ToolApprovals = (job: HookJobData, decision: HookDecision, deps: ToolApprovalsDeps) => Promise<HookDecision>;

/**
 * The operator's edited input as modifications of the agent's input: one per leaf that differs
 * (objects compared key by key, arrays of the same length element by element; anything else
 * replaced whole), each targeting its JSON Pointer with the agent's value as `original` (`null`
 * where there was none; a removed key becomes `null`). Applied in order they turn the agent's
 * input into exactly the operator's, and fields the operator left alone are not touched — which
 * is how a secret the operator only saw as a redaction marker stays the agent's value.
 *
 * Returns a reason instead when the edit cannot be carried out: a redaction marker placed where
 * the agent's input does not hold that very marker (moved, copied, or inside a replaced value).
 * The control plane never stores the secret, so it cannot put it anywhere else.
 */
export function inputModifications(original: JsonObject, approved: JsonObject, reason: string): Modification[] | { refused: string } {
  const modifications: Modification[] = [];
  let refused: string | undefined;
  const visit = (before: JsonValue | undefined, after: JsonValue | undefined, path: (string | number)[]): void => {
    if (refused !== undefined || canonicalJson(before) === canonicalJson(after)) return;
    if (isPlainObject(before) && isPlainObject(after)) {
      for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) visit(before[key], after[key], [...path, key]);
      return;
    }
    if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
      before.forEach((item, i) => visit(item, after[i], [...path, i]));
      return;
    }
    const target = pointerTarget(path);
    if (containsMarker(after)) {
      refused = `the edited input puts a redacted secret at ${target}, where the agent's input holds another value; the control plane never stores secrets, so it cannot put one there`;
      return;
    }
    modifications.push({ target, original: before ?? null, updated: after ?? null, reason });
  };
  visit(original, approved, []);
  return refused === undefined ? modifications : { refused };
}

function isPlainObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function containsMarker(value: JsonValue | undefined): boolean {
  if (isRedactionMarker(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  return (Array.isArray(value) ? value : Object.values(value)).some(containsMarker);
}

/** The tool call of a `pre-tool-use` job, or undefined when its context names none (see `hookToolCall`). */
export function toolCallOf(job: HookJobData): ToolCall | undefined {
  const call = hookToolCall(job.context);
  return call === undefined ? undefined : { agentId: job.agent.id, sessionId: job.session_id, tool: call.name, input: call.input };
}

/**
 * Several approval rules matched: one request, on the strictest terms (shortest deadline; reject
 * unless all approve; a held permission prompt denies when any rule says so).
 */
function combinedRequirement(asking: readonly Signal[]): ApprovalRequirement {
  const requirements = asking.flatMap((signal) => approvalRequirementOf(signal) ?? []);
  return {
    deadline_ms: Math.min(...requirements.map((r) => r.deadline_ms)),
    on_expiry: requirements.every((r) => r.on_expiry === 'approve') ? 'approve' : 'reject',
    prompt_fallback: requirements.some((r) => r.prompt_fallback === 'deny') ? 'deny' : 'dialog',
  };
}

function reasonOf(signal: Signal): string {
  return signal.payload.level === 'blocking' ? signal.payload.reason : signal.header.type;
}

/** `text` without the dots and blanks that end it; a loop, as `/[.\s]+$/` is quadratic on a long run of them not at the end. */
function withoutFinalStop(text: string): string {
  let end = text.length;
  while (end > 0 && /[.\s]/.test(text.charAt(end - 1))) end--;
  return text.slice(0, end);
}

/**
 * The rules' reason followed by `suffix`, within a signal reason's limit: the reason may be the
 * limit long already (a rule message quoting the tool's input), and a signal over it fails its
 * schema. The rules' text is cut (marked) so that the suffix, which says what happens next, stays.
 */
export function reasonWith(reason: string, suffix: string): string {
  return clipText(reason, Math.max(0, LIMITS.maxText - suffix.length)) + suffix;
}

/** Creates the flow; see the module comment. */
export function createToolApprovals(options: ToolApprovalsOptions): ToolApprovals {
  const { approvals, grants, logger } = options;

  return async (job, decision, deps) => {
    if (job.trigger !== 'pre-tool-use' || decision.decided_by !== 'oracles') return decision;
    const asking = decision.signals.filter((signal) => approvalRequirementOf(signal) !== undefined);
    const first = asking[0];
    if (first === undefined) return decision;
    const others = decision.signals.filter((signal) => !asking.includes(signal));
    const fields = { agentId: job.agent.id, sessionId: job.session_id, correlationId: job.hook_id };
    const at = () => new Date(deps.now()).toISOString();

    /**
     * The decision with the approval signals replaced by `outcome` (none: dropped), at the first
     * one's place. `authoritative`: `outcome` carries the operator's edited input, which
     * supersedes the other oracles' changes of the fields it replaced (mergeModifications).
     */
    const rebuild = (outcome: Signal | undefined, authoritative = false): HookDecision => {
      const signals = decision.signals.flatMap((signal) => (signal === first && outcome !== undefined ? [outcome] : asking.includes(signal) ? [] : [signal]));
      const aggregated = aggregateSignals({
        hookId: decision.hook_id,
        trigger: decision.trigger,
        signals,
        now: at(),
        newId: deps.newId,
        ...(authoritative && outcome !== undefined ? { authoritativeSignalId: outcome.header.id } : {}),
        ...(decision.config_version === undefined ? {} : { configVersion: decision.config_version }),
      });
      return HookDecisionSchema.parse(decision.error === undefined ? aggregated : { ...aggregated, error: decision.error });
    };

    /** A signal of the approval flow, from the rule that asked: same source and provenance, the outcome in `context.approval`. */
    const outcomeSignal = (type: string, payload: SignalPayload, approval: JsonObject): Signal => {
      const { approval: _requirement, ...provenance } = first.context;
      return SignalSchema.parse({
        header: {
          id: deps.newId(),
          type,
          timestamp: at(),
          source: first.header.source,
          intensity: payload.level === 'blocking' ? 'block' : payload.level === 'controlling' ? 'control' : 'aid',
          correlation_id: job.hook_id,
        },
        context: { ...provenance, approval },
        payload,
      });
    };

    // Another oracle blocks on its own: asking a person would change nothing.
    if (others.some((signal) => signal.header.intensity === 'block')) return rebuild(undefined);

    const reason = asking.map(reasonOf).join('; ');
    const call = toolCallOf(job);
    if (call === undefined) {
      logger.warn(fields, 'a rule asks for approval of a hook that names no tool (context.tool.name); blocking without a request');
      return rebuild(
        outcomeSignal(
          APPROVAL_SIGNAL_TYPES.required,
          { level: 'blocking', decision: 'deny', reason: reasonWith(reason, ' (it cannot be submitted for approval: the hook names no tool in context.tool.name)'), resolvable: false, resolution_path: [] },
          { status: 'unavailable' },
        ),
      );
    }
    const digest = toolInputDigest(call.input);
    const requirement = combinedRequirement(asking);
    const terms: ApprovalTerms = { rules: [...new Set(asking.map((signal) => approvalRuleOf(job.trigger, signal)))].sort(), onExpiry: requirement.on_expiry };

    const awaiting = (state: ProtocolState): HookDecision => {
      const deadline = state.deadline ?? at();
      return rebuild(
        outcomeSignal(
          first.header.type,
          {
            level: 'blocking',
            decision: 'deny',
            reason: reasonWith(withoutFinalStop(reason), `. Waiting for an operator's decision on approval request ${state.request_id} (deadline ${deadline}).`),
            resolvable: true,
            resolution_path: [
              `wait until an operator decides approval request ${state.request_id} (deadline ${deadline})`,
              `then send the same call again (with context.approval = { "request_id": "${state.request_id}" })`,
            ],
            resolution: { kind: 'await_approval', request_id: state.request_id, deadline },
          },
          {
            request_id: state.request_id,
            status: 'pending',
            deadline,
            on_expiry: state.type === 'tool_approval' ? (state.payload.on_expiry ?? 'reject') : 'reject',
            // For the gateway that holds an agent's permission prompt open (promptFallbackOf).
            prompt_fallback: requirement.prompt_fallback ?? 'dialog',
          },
        ),
      );
    };

    /**
     * The decision a request gives this hook, once; undefined when it cannot be used: it does not
     * satisfy the rules asking now (see `approvalRefusal`), another hook used it, its grant was
     * revoked, or it was cancelled.
     */
    const fromSettled = async (found: StoredToolApproval, how: 'presented' | 'found for the call'): Promise<HookDecision | undefined> => {
      const refusal = approvalRefusal(found, call, terms, digest);
      if (refusal !== undefined) {
        logger.warn({ ...fields, requestId: found.state.request_id, refusal }, `${how} approval request does not satisfy the rules asking; ignored`);
        return undefined;
      }
      const state = await approvals.settleIfDue(found.state, deps.now());
      if (state.status === 'pending') return awaiting(state);
      if (state.status === 'cancelled' || state.type !== 'tool_approval') return undefined;
      const used = await approvals.consume(state.request_id, job.hook_id);
      if (used.outcome !== 'consumed') {
        logger.info(
          { ...fields, requestId: state.request_id, consume: used.outcome, ...(used.outcome === 'revoked' ? { grantId: used.grantId } : {}) },
          used.outcome === 'revoked' ? 'approval request belongs to a revoked grant; asking again' : 'approval request already used by another hook; asking again',
        );
        return undefined;
      }
      const id = state.request_id;
      const by = state.decided_by ?? 'an operator';
      const approval = { request_id: id, status: state.status, ...(state.decided_by === undefined ? {} : { decided_by: state.decided_by }) };
      logger.info({ ...fields, requestId: id, status: state.status, decidedBy: state.decided_by }, `tool approval used: ${state.status}`);
      switch (state.status) {
        case 'approved': {
          // The operator saw the agent's input (the request's payload) and the console promised
          // "the agent runs this edited input instead": their edit is final, see rebuild.
          const edited = state.modified_input === undefined ? [] : inputModifications(call.input, state.modified_input, `modified by ${by} when approving request ${id}`);
          if (!Array.isArray(edited)) {
            logger.warn({ ...fields, requestId: id, refusal: edited.refused }, 'approved edit cannot be carried out; blocking');
            return rebuild(
              outcomeSignal(
                APPROVAL_SIGNAL_TYPES.approved,
                { level: 'blocking', decision: 'deny', reason: `${by} approved request ${id} with an edit that cannot be carried out: ${edited.refused}`, resolvable: true, resolution_path: ['send the call again to ask for a new approval'] },
                approval,
              ),
            );
          }
          const modifications = edited;
          if (modifications.length > 0) {
            return rebuild(
              outcomeSignal(APPROVAL_SIGNAL_TYPES.approved, { level: 'controlling', decision: 'allow_with_modification', modifications, reversible: false }, approval),
              true,
            );
          }
          const said = state.feedback === undefined || state.feedback === '' ? '' : `: ${state.feedback}`;
          return rebuild(outcomeSignal(APPROVAL_SIGNAL_TYPES.approved, { level: 'aiding', decision: 'suggest', context: `Approved by ${by} (approval request ${id})${said}`, suggestions: [] }, approval));
        }
        case 'rejected':
          return rebuild(
            outcomeSignal(
              APPROVAL_SIGNAL_TYPES.rejected,
              {
                level: 'blocking',
                decision: 'deny',
                reason: state.feedback === undefined || state.feedback === '' ? `${by} rejected this call (approval request ${id})` : state.feedback,
                resolvable: false,
                resolution_path: [],
              },
              approval,
            ),
          );
        case 'expired': {
          const text = `approval request ${id} expired without a decision`;
          if (state.payload.on_expiry === 'approve') {
            return rebuild(
              outcomeSignal(APPROVAL_SIGNAL_TYPES.expired, { level: 'aiding', decision: 'suggest', context: `${text}; the rule allows the call on expiry (on_expiry: approve)`, suggestions: [] }, approval),
            );
          }
          return rebuild(
            outcomeSignal(
              APPROVAL_SIGNAL_TYPES.expired,
              { level: 'blocking', decision: 'deny', reason: text, resolvable: true, resolution_path: ['send the call again to ask for a new approval'] },
              approval,
            ),
          );
        }
      }
    };

    const byGrant = (grant: ToolGrant): HookDecision => {
      logger.info({ ...fields, grantId: grant.grant_id, requestId: grant.request_id }, 'tool call allowed by a session grant');
      return rebuild(
        outcomeSignal(
          APPROVAL_SIGNAL_TYPES.granted,
          {
            level: 'aiding',
            decision: 'suggest',
            context: `Allowed by session grant ${grant.grant_id} (granted by ${grant.granted_by} from approval request ${grant.request_id}, ${grant.scope === 'session' ? 'this input' : 'any input of this tool'})`,
            suggestions: [],
          },
          {
            grant_id: grant.grant_id,
            request_id: grant.request_id,
            status: 'granted',
            granted_by: grant.granted_by,
            // The grant's use number, counted in Redis with the revocation check: orders this call before any revocation.
            ...(grant.uses === undefined ? {} : { use: grant.uses }),
          },
        ),
      );
    };

    // 1. The approval the agent presents, when it binds to this very call.
    const presented = presentedApproval(job.context);
    if (presented !== undefined) {
      const found = await approvals.get(presented);
      if (found !== null) {
        const decided = await fromSettled(found, 'presented');
        if (decided !== undefined) return decided;
      } else {
        logger.warn({ ...fields, requestId: presented }, 'presented approval request does not exist; ignored');
      }
    }
    // 2. A session grant.
    const grant = await grants.match({ agentId: call.agentId, sessionId: call.sessionId, tool: call.tool, inputDigest: digest, rules: terms.rules }, deps.now());
    if (grant !== null) return byGrant(grant);
    // 3. A request an earlier hook opened for the identical call.
    const earlier = await approvals.findForCall(call);
    if (earlier !== null && earlier.state.request_id !== presented) {
      const decided = await fromSettled(earlier, 'found for the call');
      if (decided !== undefined) return decided;
    }
    // 4. A new request for this hook (none when the agent is at its cap of pending requests). Its payload shows the input to a person and keeps to the
    // request limits (64 KiB a string), tighter than a hook's tool text (256 KiB): an input a
    // person cannot be shown cannot be approved, so the call is refused with the cause, not left
    // to fail the job until the deadline.
    const unshowable = inspectJsonValue(call.input, 1)[0];
    if (unshowable !== undefined) {
      const where = unshowable.path.length === 0 ? '' : ` at ${unshowable.path.join('.')}`;
      logger.info({ ...fields, path: unshowable.path.join('.').slice(0, 200) }, 'tool call needs an approval its input is too large for; blocking');
      return rebuild(
        outcomeSignal(
          APPROVAL_SIGNAL_TYPES.required,
          {
            level: 'blocking',
            decision: 'deny',
            reason: reasonWith(reason, ` (it needs a person's approval, but its input is too large to show in an approval request${where}: ${unshowable.message})`),
            resolvable: true,
            resolution_path: [`split the change into smaller calls (each string of the input at most ${LIMITS.maxJsonString} characters)`],
          },
          { status: 'unavailable' },
        ),
      );
    }
    const opened = await approvals.open({
      hookId: job.hook_id,
      call,
      deadlineMs: requirement.deadline_ms,
      onExpiry: requirement.on_expiry,
      reason: clipText(reason, LIMITS.maxText),
      ...(typeof first.context['rule'] === 'string' ? { rule: approvalRuleOf(job.trigger, first) } : {}),
      rules: terms.rules,
      now: deps.now(),
    });
    if (opened.outcome === 'too_many') {
      // Fail closed, at once: the call needs a person and none can be asked, so it is refused
      // with the cause rather than left waiting for a request that does not exist.
      logger.warn({ ...fields, max: opened.max }, 'tool call needs an approval, but its agent has the most pending requests it may have; blocking');
      return rebuild(
        outcomeSignal(
          APPROVAL_SIGNAL_TYPES.required,
          {
            level: 'blocking',
            decision: 'deny',
            reason: reasonWith(reason, ` (it needs a person's approval, but this agent already has ${opened.max} pending requests, the most it may have)`),
            resolvable: true,
            resolution_path: ['wait until operators decide some of this agent\'s pending requests (or they expire), then send the call again'],
          },
          { status: 'unavailable', cause: 'too_many_pending', max: opened.max },
        ),
      );
    }
    if (opened.outcome === 'conflict') {
      logger.error({ ...fields, requestId: opened.state?.request_id }, 'the approval request id of this hook is taken by a request for another call; blocking');
      return rebuild(
        outcomeSignal(
          APPROVAL_SIGNAL_TYPES.required,
          { level: 'blocking', decision: 'deny', reason: reasonWith(reason, ' (the approval request could not be opened: its id is taken by another request)'), resolvable: false, resolution_path: [] },
          { status: 'unavailable' },
        ),
      );
    }
    logger.info({ ...fields, requestId: opened.state.request_id, created: opened.outcome === 'opened', deadline: opened.state.deadline }, 'tool call waits for approval');
    // A retried job finds the request it opened and answers as the first run did: the wait. (If the
    // request was settled meanwhile, the agent sees that at once and presents it in its next hook;
    // using it here would spend it on a hook whose first answer may already be stored.)
    return awaiting(opened.state);
  };
}
