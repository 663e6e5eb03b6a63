/**
 * The agent-written text an approval shows (the tool and its input, the rule's message that may
 * quote the input, a plan's title and steps, a stop's reason and summary), gathered as one value
 * so `describeHiddenText` can say where on the card hidden characters or whitespace runs are.
 */
import type { ProtocolState } from '@ahp/protocol';
import { describeHiddenText, type HiddenTextReport } from './visible-text';

/** What of `request` the approval card and the decide page show, by the field path they name it with. */
export function shownText(request: ProtocolState): Record<string, unknown> {
  switch (request.type) {
    case 'tool_approval': {
      const reason = (request.payload as Record<string, unknown>)['reason'];
      return { tool: request.payload.tool, ...(typeof reason === 'string' ? { reason } : {}), input: request.payload.input };
    }
    case 'plan_approval': {
      const { plan } = request.payload;
      return { plan: { title: plan.title, steps: plan.steps.map((step) => ({ id: step.id, description: step.description, dependencies: step.dependencies, tools_expected: step.tools_expected })) } };
    }
    case 'shutdown':
      return request.payload.reason === undefined ? {} : { reason: request.payload.reason };
    case 'intervention':
      return { reason: request.payload.reason, summary: request.payload.summary, ...(request.payload.plan_step === undefined ? {} : { plan_step: request.payload.plan_step }) };
  }
}

/** Where the request's shown text has markers (nothing when it has none). */
export function requestHiddenText(request: ProtocolState): HiddenTextReport {
  return describeHiddenText(shownText(request));
}
