/**
 * `ahp agents list|enforcement|reset` and `ahp requests list|approve|reject`: the operator API
 * (docs/operator-api.md) from the command line, with the operator token in AHP_OPERATOR_TOKEN.
 */
import {
  AgentListResponseSchema,
  ENFORCEMENT_PARTS,
  EnforcementPartSchema,
  EnforcementResetResponseSchema,
  EnforcementStateResponseSchema,
  type EnforcementPart,
  type EnforcementState,
  RequestDecisionResponseSchema,
  RequestListResponseSchema,
  type ProtocolState,
} from '@ahp/protocol';
import { CliError, EXIT, printJson, table, usageError, type CliIo, type GlobalValues } from './cli-support.js';
import { callGateway, tokenFrom, type GatewayValues } from './gateway-client.js';

/** Parsed options of the operator commands. */
export interface OperatorValues extends GlobalValues, GatewayValues {
  status?: string | undefined;
  type?: string | undefined;
  agent?: string | undefined;
  team?: string | undefined;
  limit?: string | undefined;
  feedback?: string | undefined;
  parts?: string | undefined;
}

/** A 2xx body that does not match its schema: a gateway of another version, most likely. */
function unexpected(what: string): CliError {
  return new CliError(EXIT.invalid, `the gateway's ${what} answer does not match this CLI's protocol version`);
}

function operatorCall(io: CliIo, values: OperatorValues, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  return callGateway(io, values, tokenFrom(io, 'AHP_OPERATOR_TOKEN'), method, path, body);
}

/** `ahp agents list`: connected agents, then the live gateways. */
export async function agentsList(values: OperatorValues, io: CliIo): Promise<number> {
  const parsed = AgentListResponseSchema.safeParse(await operatorCall(io, values, 'GET', '/v1/operator/agents'));
  if (!parsed.success) throw unexpected('agent list');
  if (values.json === true) {
    printJson(io, parsed.data);
    return EXIT.ok;
  }
  const rows = parsed.data.agents.map((entry) => [entry.agent.id, entry.agent.name, entry.agent.team ?? '-', entry.agent.role ?? '-', entry.gateway_id, entry.session_id, entry.last_activity_at]);
  io.stdout.write(`${table([['AGENT', 'NAME', 'TEAM', 'ROLE', 'GATEWAY', 'SESSION', 'LAST ACTIVITY'], ...rows])}\n`);
  io.stdout.write(`${parsed.data.agents.length} agent(s) connected to ${parsed.data.gateways.length} gateway(s)\n`);
  return EXIT.ok;
}

function target(state: ProtocolState): string {
  return state.target.kind === 'agent' ? state.target.agent : state.target.kind;
}

/** `ahp requests list`: newest first, filtered by the API's own filters. */
export async function requestsList(values: OperatorValues, io: CliIo): Promise<number> {
  const query = new URLSearchParams();
  for (const key of ['status', 'type', 'agent', 'team', 'limit'] as const) {
    const value = values[key];
    if (value !== undefined) query.set(key, value);
  }
  const suffix = query.size > 0 ? `?${query.toString()}` : '';
  const parsed = RequestListResponseSchema.safeParse(await operatorCall(io, values, 'GET', `/v1/operator/requests${suffix}`));
  if (!parsed.success) throw unexpected('request list');
  if (values.json === true) {
    printJson(io, parsed.data);
    return EXIT.ok;
  }
  const rows = parsed.data.requests.map((state) => [state.request_id, state.type, state.status, state.sender, target(state), state.created_at]);
  io.stdout.write(`${table([['REQUEST', 'TYPE', 'STATUS', 'FROM', 'TO', 'CREATED'], ...rows])}\n`);
  return EXIT.ok;
}

/**
 * `ahp requests approve|reject <id>`. Exit 0 when the request is decided this way (now or
 * before), 1 when the gateway refuses (unknown request, decided otherwise, not allowed).
 */
export async function requestsDecide(requestId: string, approve: boolean, values: OperatorValues, io: CliIo): Promise<number> {
  if (!approve && (values.feedback === undefined || values.feedback.trim() === '')) throw usageError('a rejection needs --feedback saying why');
  const body = { approve, ...(values.feedback === undefined ? {} : { feedback: values.feedback }) };
  const answer = await operatorCall(io, values, 'POST', `/v1/operator/requests/${encodeURIComponent(requestId)}/decision`, body);
  const parsed = RequestDecisionResponseSchema.safeParse(answer);
  if (!parsed.success) throw unexpected('decision');
  if (values.json === true) {
    printJson(io, parsed.data);
    return EXIT.ok;
  }
  const how = parsed.data.outcome === 'applied' ? '' : ' (it already was)';
  io.stdout.write(`${requestId} ${parsed.data.request.status}${how}\n`);
  return EXIT.ok;
}

/** The enforcement state as lines of text, one per part present. */
export function describeEnforcement(state: EnforcementState): string[] {
  const lines: string[] = [];
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  if (state.breakers !== undefined) {
    const { identical_calls: calls, iterations } = state.breakers;
    const most = calls.distinct === 0 ? '' : ` (the most repeated made ${plural(calls.highest, 'time')})`;
    lines.push(`breakers: ${plural(calls.distinct, 'distinct tool call')}${most}, ${plural(iterations, 'iteration')}`);
  }
  if (state.hold !== undefined) {
    const { unanswered, signal_ids: ids } = state.hold;
    const listed = ids.length === 0 ? '' : `: ${ids.join(', ')}${ids.length < unanswered ? ', …' : ''}`;
    lines.push(`hold: ${plural(unanswered, 'unanswered block/control signal')}${listed}`);
  }
  if (state.escalation !== undefined) {
    const { rules, counters } = state.escalation;
    const listed = counters.map((counter) => `${counter.rule} ${counter.violations}`).join(', ');
    lines.push(`escalation: ${plural(rules, 'rule counter')}${listed === '' ? '' : `: ${listed}${counters.length < rules ? ', …' : ''}`}`);
  }
  return lines;
}

/** `ahp agents enforcement <id>`: the agent's breakers, hold and escalation counters (any role). */
export async function agentsEnforcement(agentId: string, values: OperatorValues, io: CliIo): Promise<number> {
  const parsed = EnforcementStateResponseSchema.safeParse(await operatorCall(io, values, 'GET', `/v1/operator/agents/${encodeURIComponent(agentId)}/enforcement`));
  if (!parsed.success) throw unexpected('enforcement state');
  if (values.json === true) {
    printJson(io, parsed.data);
    return EXIT.ok;
  }
  io.stdout.write(`${describeEnforcement(parsed.data.state).join('\n')}\n`);
  return EXIT.ok;
}

/** `--parts breakers,hold`: the parts named, each once; none given means all (the gateway's default). */
function partsOf(text: string | undefined): EnforcementPart[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',').map((part) => part.trim()).filter((part) => part !== '');
  const known = parts.map((part) => EnforcementPartSchema.safeParse(part));
  if (parts.length === 0 || known.some((part) => !part.success)) throw usageError(`--parts takes a comma-separated list of ${ENFORCEMENT_PARTS.join(', ')}`);
  return [...new Set(known.map((part) => part.data as EnforcementPart))];
}

/**
 * `ahp agents reset <id> [--parts …]`: lifts the agent's enforcement state (approver role) and
 * prints what it held before. Exit 0 also when there was nothing to lift (it says so).
 */
export async function agentsReset(agentId: string, values: OperatorValues, io: CliIo): Promise<number> {
  const parts = partsOf(values.parts);
  const answer = await operatorCall(io, values, 'POST', `/v1/operator/agents/${encodeURIComponent(agentId)}/enforcement/reset`, parts === undefined ? {} : { parts });
  const parsed = EnforcementResetResponseSchema.safeParse(answer);
  if (!parsed.success) throw unexpected('enforcement reset');
  if (values.json === true) {
    printJson(io, parsed.data);
    return EXIT.ok;
  }
  const what = parsed.data.changed ? 'reset' : 'reset (they held nothing)';
  io.stdout.write(`${agentId}: ${parsed.data.parts.join(', ')} ${what}; before:\n${describeEnforcement(parsed.data.before).map((line) => `  ${line}`).join('\n')}\n`);
  return EXIT.ok;
}
