/**
 * The approvals history as rows people read and export: what was asked, who decided, when, with
 * what feedback and edits. Pure, so the same rows feed the table and the CSV download.
 */
import type { ProtocolState } from '@ahp/protocol';

export interface HistoryRow {
  requestId: string;
  type: ProtocolState['type'];
  status: ProtocolState['status'];
  sender: string;
  /** One line saying what was asked. */
  what: string;
  createdAt: string;
  decidedAt: string | undefined;
  /** Who settled it: an operator, an agent, or nobody (expired). */
  decidedBy: string | undefined;
  feedback: string | undefined;
  /** For a tool approval: the input the agent asked to run, and the one it ran instead if edited. */
  input: string | undefined;
  editedInput: string | undefined;
}

const MAX_WHAT_CHARS = 200;

function clip(text: string): string {
  return text.length > MAX_WHAT_CHARS ? `${text.slice(0, MAX_WHAT_CHARS - 1)}…` : text;
}

/** One line saying what a request asked for. */
export function requestSummary(request: ProtocolState): string {
  switch (request.type) {
    case 'plan_approval':
      return clip(`plan "${request.payload.plan.title}" (${request.payload.plan.steps.length} steps)`);
    case 'tool_approval':
      return clip(`${request.payload.tool} ${JSON.stringify(request.payload.input)}`);
    case 'shutdown':
      return clip(`shut down${request.payload.reason ? `: ${request.payload.reason}` : ''}`);
    case 'intervention':
      return clip(`intervention (${request.payload.reason}): ${request.payload.summary}`);
  }
}

export function historyRow(request: ProtocolState): HistoryRow {
  return {
    requestId: request.request_id,
    type: request.type,
    status: request.status,
    sender: request.sender,
    what: requestSummary(request),
    createdAt: request.created_at,
    decidedAt: request.decided_at,
    decidedBy: request.decided_by,
    feedback: request.feedback,
    input: request.type === 'tool_approval' ? JSON.stringify(request.payload.input) : undefined,
    editedInput: request.modified_input === undefined ? undefined : JSON.stringify(request.modified_input),
  };
}

const CSV_COLUMNS: readonly (readonly [string, keyof HistoryRow])[] = [
  ['request_id', 'requestId'],
  ['type', 'type'],
  ['status', 'status'],
  ['sender', 'sender'],
  ['what', 'what'],
  ['created_at', 'createdAt'],
  ['decided_at', 'decidedAt'],
  ['decided_by', 'decidedBy'],
  ['feedback', 'feedback'],
  ['input', 'input'],
  ['edited_input', 'editedInput'],
];

/**
 * One CSV cell. Agents write much of this text (tool inputs, plan titles, feedback relayed from
 * them), and a spreadsheet runs a cell that starts with `=`, `+`, `-`, `@`, tab or CR as a
 * formula: such a cell gets a leading `'` so it stays text.
 */
export function csvCell(value: string | undefined): string {
  if (value === undefined) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The rows as CSV (RFC 4180, CRLF line ends, a header line). */
export function historyCsv(rows: readonly HistoryRow[]): string {
  const lines = [CSV_COLUMNS.map(([name]) => name).join(',')];
  for (const row of rows) lines.push(CSV_COLUMNS.map(([, key]) => csvCell(row[key])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
