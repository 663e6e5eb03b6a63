import { Inject, Injectable } from '@nestjs/common';
import { makeError, type AgentEvent, type AgentIdentity, type EventFrame, type TimelineEntry } from '@ahp/protocol';
import type { TimelineStore } from '@ahp/store';
import { AgentAuthService } from '../auth/agent-auth.service.js';
import type { AgentConnection } from '../connections/agent-connection.js';
import { LOGGER } from '../config/config.tokens.js';
import { GatewayEvents } from '../events/gateway-events.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { TIMELINE_STORE } from '../store/store.tokens.js';
import { attributeTeamActivity } from './team-activity-attribution.js';

/**
 * Agent timelines: `event` frames (control signals, plan progress, verification results, team
 * activity) and the coding agents' team events are recorded per agent for the console. A
 * `team_activity` event is recorded with its attribution (team-activity-attribution.ts): who sent
 * it, and whether the names it gives are the sender's own. The frame is acknowledged only once
 * the event is stored.
 */
@Injectable()
export class TimelineService {
  private readonly log: JsonLogger;

  constructor(
    @Inject(TIMELINE_STORE) private readonly timeline: TimelineStore,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(GatewayEvents) private readonly events: GatewayEvents,
    @Inject(AgentAuthService) private readonly auth: AgentAuthService,
  ) {
    this.log = logger.child({ component: 'timeline' });
  }

  /** Serves an `event` frame. */
  async record(connection: AgentConnection, frame: EventFrame, now: number = Date.now()): Promise<void> {
    try {
      await this.append(connection.agent.identity, connection.sessionId, frame.event, now);
    } catch (error) {
      this.log.error({ agentId: connection.agentId, sessionId: connection.sessionId, kind: frame.event.kind, error }, 'recording the event failed');
      connection.sendError(frame.id, makeError('E_UNAVAILABLE', 'the event could not be recorded; retry shortly', undefined, { retryAfterMs: 1000 }));
      return;
    }
    connection.send({ type: 'ack', id: frame.id });
  }

  /** Records `event` of `agent` (in `sessionId`, when known) and tells the live feed. @throws what the store throws. */
  async append(agent: AgentIdentity, sessionId: string | undefined, event: AgentEvent, now: number = Date.now()): Promise<TimelineEntry> {
    const attribution = event.kind === 'team_activity' ? attributeTeamActivity(agent, event, this.auth) : undefined;
    if (attribution?.names === 'claimed') {
      this.log.info({ agentId: agent.id, sessionId, teamName: event.kind === 'team_activity' ? event.team_name : undefined, teammateName: event.kind === 'team_activity' ? event.teammate_name : undefined }, 'team activity names another team or an agent not in the sender\'s team: recorded as the agent\'s claim');
    }
    const entry = await this.timeline.append({
      agentId: agent.id,
      ...(sessionId === undefined ? {} : { sessionId }),
      event,
      ...(attribution === undefined ? {} : { attribution }),
      now,
    });
    this.events.emit('timelineRecorded', { entry });
    return entry;
  }

  /** The newest `limit` events of an agent, newest first. */
  read(agentId: string, limit: number): Promise<TimelineEntry[]> {
    return this.timeline.read(agentId, limit);
  }
}
