/**
 * What a notification says: the waiting request reduced to what a person needs to decide whether
 * to open the console (never a token or secret), as a webhook's JSON body or a Slack message.
 */
import { redactFreeText, type NotificationBody, type NotificationJobData, type ProtocolState, type WaitingRequest } from '@ahp/protocol';
import { requestSummary } from '@ahp/store';

/** Characters of the summary line kept (a plan title or an intervention summary can be long). */
const MAX_SUMMARY_CHARS = 500;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The request as a notification tells it. A tool call's input is redacted as the signal log
 * redacts free text (fields named like secrets, credentials inside strings); other payloads are
 * reduced to their summary (a plan's steps stay in the console).
 */
export function waitingRequestOf(state: ProtocolState, team: string | undefined): WaitingRequest {
  const base: WaitingRequest = {
    id: state.request_id,
    type: state.type,
    sender: state.sender,
    ...(team === undefined ? {} : { team }),
    summary: clip(redactFreeText(requestSummary(state)), MAX_SUMMARY_CHARS),
    created_at: state.created_at,
    ...(state.deadline === undefined ? {} : { deadline: state.deadline }),
  };
  switch (state.type) {
    case 'tool_approval':
      return {
        ...base,
        tool: state.payload.tool,
        input: redactFreeText(state.payload.input),
        ...(state.payload.reason === undefined ? {} : { reason: redactFreeText(state.payload.reason) }),
      };
    case 'plan_approval':
      return { ...base, plan_title: redactFreeText(state.payload.plan.title) };
    case 'intervention':
      return { ...base, reason: state.payload.reason };
    case 'shutdown':
      return state.payload.reason === undefined ? base : { ...base, reason: redactFreeText(state.payload.reason) };
  }
}

/** The console's approvals page, where the request's card is. */
export function approvalsUrl(consoleUrl: string): string {
  return `${consoleUrl}/approvals`;
}

/** The JSON body of a webhook attempt. */
export function webhookBody(job: NotificationJobData, attempt: number, sentAt: Date): NotificationBody {
  return {
    event: 'request.waiting',
    delivery_id: job.delivery_id,
    channel: job.channel,
    attempt,
    sent_at: sentAt.toISOString(),
    request: job.request,
    ...(job.console_url === undefined ? {} : { console_url: job.console_url }),
  };
}

const TYPE_TITLES: Readonly<Record<WaitingRequest['type'], string>> = {
  tool_approval: 'A tool call waits for approval',
  plan_approval: 'A plan waits for approval',
  intervention: 'A stopped agent asks for a person',
  shutdown: 'A shutdown request waits',
};

/** Slack's mrkdwn treats & < > as markup: escaped, so an agent's text cannot forge links or mentions. */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A Slack incoming-webhook message: a text line (also the notification's preview), details and a button to the console. */
export function slackMessage(job: NotificationJobData): Record<string, unknown> {
  const { request } = job;
  const who = request.team === undefined ? request.sender : `${request.sender} (${request.team})`;
  const title = `${TYPE_TITLES[request.type]}: ${who}`;
  const lines = [`*${slackEscape(title)}*`, slackEscape(request.summary)];
  if (request.tool !== undefined && request.input !== undefined) lines.push(`\`${slackEscape(request.tool)}\` ${slackEscape(clip(JSON.stringify(request.input), 500))}`);
  if (request.reason !== undefined && request.type === 'tool_approval') lines.push(slackEscape(request.reason));
  if (request.deadline !== undefined) lines.push(`Decide before ${request.deadline} (request ${request.id})`);
  else lines.push(`Request ${request.id}`);
  const blocks: Record<string, unknown>[] = [{ type: 'section', text: { type: 'mrkdwn', text: lines.join('\n') } }];
  if (job.console_url !== undefined) {
    blocks.push({
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in the console' }, url: job.console_url, action_id: 'ahp-open-console' }],
    });
  }
  return { text: slackEscape(`${title} — ${request.summary}`), blocks };
}
