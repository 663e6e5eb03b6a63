import { Inject, Injectable } from '@nestjs/common';
import { makeError, type EventFrame, type TimelineEntry } from '@ahp/protocol';
import type { TimelineStore } from '@ahp/store';
import type { AgentConnection } from '../connections/agent-connection.js';
import { LOGGER } from '../config/config.tokens.js';
import { GatewayEvents } from '../events/gateway-events.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { TIMELINE_STORE } from '../store/store.tokens.js';

/**
 * Agent timelines: `event` frames (control signals, plan progress, verification results) are
 * recorded per agent for the console. The frame is acknowledged only once the event is stored.
 */
@Injectable()
export class TimelineService {
  private readonly log: JsonLogger;

  constructor(
    @Inject(TIMELINE_STORE) private readonly timeline: TimelineStore,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(GatewayEvents) private readonly events: GatewayEvents,
  ) {
    this.log = logger.child({ component: 'timeline' });
  }

  /** Serves an `event` frame. */
  async record(connection: AgentConnection, frame: EventFrame, now: number = Date.now()): Promise<void> {
    let entry: TimelineEntry;
    try {
      entry = await this.timeline.append({
        agentId: connection.agentId,
        ...(connection.sessionId === undefined ? {} : { sessionId: connection.sessionId }),
        event: frame.event,
        now,
      });
    } catch (error) {
      this.log.error({ agentId: connection.agentId, sessionId: connection.sessionId, kind: frame.event.kind, error }, 'recording the event failed');
      connection.sendError(frame.id, makeError('E_UNAVAILABLE', 'the event could not be recorded; retry shortly', undefined, { retryAfterMs: 1000 }));
      return;
    }
    connection.send({ type: 'ack', id: frame.id });
    this.events.emit('timelineRecorded', { entry });
  }

  /** The newest `limit` events of an agent, newest first. */
  read(agentId: string, limit: number): Promise<TimelineEntry[]> {
    return this.timeline.read(agentId, limit);
  }
}
