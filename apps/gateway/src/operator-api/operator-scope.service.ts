/**
 * What a scoped operator token may see (docs/operator-api.md, "Scoped tokens"). Everything an
 * operator reads belongs to an agent — a request to its sender, a signal, grant, timeline entry or
 * fleet row to its agent — and an agent's team is the one its token names (the agent tokens file),
 * never one a frame or a stored row claims. A fleet-wide token (no scope) sees everything.
 *
 * The answers are the same on every gateway, since every gateway reads the same tokens files.
 */
import { Inject, Injectable } from '@nestjs/common';
import { isFleetWide, makeError, scopeCoversTeam, type OperatorIdentity, type OperatorLiveEvent, type ProtocolState } from '@ahp/protocol';
import { AgentAuthService } from '../auth/agent-auth.service.js';
import { OperatorApiError } from './api-error.js';

@Injectable()
export class OperatorScopeService {
  constructor(@Inject(AgentAuthService) private readonly agents: AgentAuthService) {}

  /** The team of a known, unrevoked agent per its token; undefined for one without a team or unknown. */
  teamOf(agentId: string): string | undefined {
    return this.agents.identityOf(agentId)?.team;
  }

  /** Whether the operator may see what belongs to this agent. */
  seesAgent(operator: OperatorIdentity, agentId: string): boolean {
    return operator.scope?.teams === undefined || scopeCoversTeam(operator, this.teamOf(agentId));
  }

  /** Whether the operator may see the request: a request belongs to its sender's team. */
  seesRequest(operator: OperatorIdentity, state: ProtocolState): boolean {
    return this.seesAgent(operator, state.sender);
  }

  /**
   * A list filter naming a team outside the scope is refused with 403: the operator asked for
   * something it knows it may not read (team names are not secrets), and an empty answer would
   * read as "that team has none".
   * @throws OperatorApiError 403 `E_FORBIDDEN`
   */
  checkTeamFilter(operator: OperatorIdentity, team: string | undefined): void {
    if (team === undefined || scopeCoversTeam(operator, team)) return;
    throw new OperatorApiError(makeError('E_FORBIDDEN', `your token is scoped to other teams than "${team}"`, { team, scope: operator.scope ?? {} }));
  }

  /**
   * The live events this operator may receive: its teams' agent rows, timeline entries and request
   * changes, the signal hints of its teams' agents (others' ids removed), and `ready` and `config`,
   * which concern no agent. A request event without a sender (a refused answer carries no state)
   * is withheld from team-scoped operators: what cannot be placed is not shown.
   */
  liveEvents(operator: OperatorIdentity, events: readonly OperatorLiveEvent[]): readonly OperatorLiveEvent[] {
    if (isFleetWide(operator) || operator.scope?.teams === undefined) return events;
    const visible: OperatorLiveEvent[] = [];
    for (const event of events) {
      switch (event.kind) {
        case 'ready':
        case 'heartbeat':
        case 'config':
          visible.push(event);
          break;
        case 'agent':
          if (this.seesAgent(operator, event.agent.agent.id)) visible.push(event);
          break;
        case 'timeline':
          if (this.seesAgent(operator, event.entry.agent_id)) visible.push(event);
          break;
        case 'request':
          if (event.sender !== undefined && this.seesAgent(operator, event.sender)) visible.push(event);
          break;
        case 'signals': {
          const agentIds = event.agent_ids.filter((agentId) => this.seesAgent(operator, agentId));
          if (agentIds.length > 0) visible.push({ ...event, agent_ids: agentIds });
          break;
        }
      }
    }
    return visible;
  }
}
