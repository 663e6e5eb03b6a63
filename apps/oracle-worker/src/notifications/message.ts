/**
 * What a notification says: the waiting request reduced to what a person needs to decide whether
 * to open the console (never a token or secret), as a webhook's JSON body or a Slack message.
 */
import { redactFreeText, type DecisionLinks, type NotificationBody, type ParsedNotificationJobData, type ProtocolState, type WaitingRequest } from '@ahp/protocol';
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

/**
 * The console page a decision link opens: `<console>/decide#<token>`. The token rides in the
 * fragment, which browsers never send to a server (no access log, no Referer carries it).
 */
export function decideUrl(approvals: string, token: string): string {
  return `${approvals.replace(/\/approvals$/, '')}/decide#${token}`;
}

/**
 * The text of a per-agent digest (docs/notifications.md, "Throttle per agent"): how many requests
 * the agent opened beyond the ones notified one by one, in which window, and where they wait.
 */
export function digestText(job: ParsedNotificationJobData): string {
  const { digest, request } = job;
  if (digest === undefined) return request.summary;
  const more = digest.more === undefined ? 'more' : `${digest.more} more`;
  return `${request.sender} opened ${more} requests to operators between ${digest.window_start} and ${digest.window_end}, beyond the ${digest.notified} notified one by one. They were not notified; they wait in the console's approval queue.`;
}

/** The JSON body of a webhook attempt. */
export function webhookBody(job: ParsedNotificationJobData, attempt: number, sentAt: Date, links?: DecisionLinks): NotificationBody {
  return {
    event: 'request.waiting',
    delivery_id: job.delivery_id,
    channel: job.channel,
    attempt,
    sent_at: sentAt.toISOString(),
    request: job.request,
    ...(job.console_url === undefined ? {} : { console_url: job.console_url }),
    ...(job.tier === 0 ? {} : { tier: job.tier }),
    ...(links === undefined ? {} : { links }),
    ...(job.digest === undefined ? {} : { digest: job.digest }),
  };
}

/** The title line of a notification: what waits, for whom, and for an escalation how late it is. */
export function titleOf(job: ParsedNotificationJobData): string {
  const { request } = job;
  const who = request.team === undefined ? request.sender : `${request.sender} (${request.team})`;
  if (job.digest !== undefined) return `Many requests from one agent: ${who}`;
  const escalated = job.tier === 0 ? '' : `Still waiting (escalation ${job.tier}) — `;
  return `${escalated}${TYPE_TITLES[request.type]}: ${who}`;
}

/** The lines of a notification's text, shared by Slack and email: summary, tool and input, reason, deadline. */
function detailLines(request: WaitingRequest): string[] {
  const lines = [request.summary];
  if (request.tool !== undefined && request.input !== undefined) lines.push(`${request.tool} ${clip(JSON.stringify(request.input), 500)}`);
  if (request.reason !== undefined && request.type === 'tool_approval') lines.push(request.reason);
  lines.push(request.deadline !== undefined ? `Decide before ${request.deadline} (request ${request.id})` : `Request ${request.id}`);
  return lines;
}

/** An email: subject, plain text and HTML (agent text escaped), with the decision links. */
export function emailMessage(job: ParsedNotificationJobData, links?: DecisionLinks): { subject: string; text: string; html: string } {
  const title = titleOf(job);
  const lines = job.digest === undefined ? detailLines(job.request) : [digestText(job)];
  const text = [title, '', ...lines, ''];
  if (links !== undefined) {
    text.push(`Approve: ${links.approve}`, `Reject: ${links.reject}`, `These links open the console; you decide there, signed in. Each works once, until ${links.expires_at}.`);
  } else if (job.console_url !== undefined) {
    text.push(`Open the console: ${job.console_url}`);
  }
  const html = [
    `<p><strong>${htmlEscape(title)}</strong></p>`,
    ...lines.map((line) => `<p>${htmlEscape(line)}</p>`),
    links !== undefined
      ? `<p><a href="${htmlEscape(links.approve)}">Approve</a> · <a href="${htmlEscape(links.reject)}">Reject</a></p><p><small>These links open the console; you decide there, signed in. Each works once, until ${htmlEscape(links.expires_at)}.</small></p>`
      : job.console_url !== undefined
        ? `<p><a href="${htmlEscape(job.console_url)}">Open the console</a></p>`
        : '',
  ].join('\n');
  // Subjects are one line: an agent's text cannot add headers.
  return { subject: `[AHP] ${clip(title, 150)}`.replace(/[\r\n]+/g, ' '), text: text.join('\n'), html };
}

function htmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
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

/** A Slack incoming-webhook message: a text line (also the notification's preview), details, decision buttons and a button to the console. */
export function slackMessage(job: ParsedNotificationJobData, links?: DecisionLinks): Record<string, unknown> {
  const { request } = job;
  const title = titleOf(job);
  const lines = [`*${slackEscape(title)}*`, slackEscape(job.digest === undefined ? request.summary : digestText(job))];
  if (job.digest === undefined) {
    if (request.tool !== undefined && request.input !== undefined) lines.push(`\`${slackEscape(request.tool)}\` ${slackEscape(clip(JSON.stringify(request.input), 500))}`);
    if (request.reason !== undefined && request.type === 'tool_approval') lines.push(slackEscape(request.reason));
    if (request.deadline !== undefined) lines.push(`Decide before ${request.deadline} (request ${request.id})`);
    else lines.push(`Request ${request.id}`);
  }
  const blocks: Record<string, unknown>[] = [{ type: 'section', text: { type: 'mrkdwn', text: lines.join('\n') } }];
  const elements: Record<string, unknown>[] = [];
  if (links !== undefined) {
    elements.push(
      { type: 'button', style: 'primary', text: { type: 'plain_text', text: 'Approve' }, url: links.approve, action_id: 'ahp-approve' },
      { type: 'button', style: 'danger', text: { type: 'plain_text', text: 'Reject' }, url: links.reject, action_id: 'ahp-reject' },
    );
  }
  if (job.console_url !== undefined) elements.push({ type: 'button', text: { type: 'plain_text', text: 'Open in the console' }, url: job.console_url, action_id: 'ahp-open-console' });
  if (elements.length > 0) blocks.push({ type: 'actions', elements });
  return { text: slackEscape(`${title} — ${job.digest === undefined ? request.summary : digestText(job)}`), blocks };
}
