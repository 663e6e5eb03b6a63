/**
 * Where the agent-side protocols send their observability events. Reporting is best effort: a
 * lost timeline entry must not stop an agent mid-step, so a failure is logged and swallowed.
 */
import type { AgentEvent } from '@ahp/protocol/wire';
import type { Logger } from './logger.js';

/** Anything that records an agent event; {@link AhpClient} fits as it is (`client.report`). */
export interface EventSink {
  report(event: AgentEvent): Promise<void>;
}

/** Reports `event` to `sink` when there is one; a rejection is logged as a warning, never thrown. */
export async function reportQuietly(sink: EventSink | undefined, event: AgentEvent, logger: Logger): Promise<void> {
  if (sink === undefined) return;
  try {
    await sink.report(event);
  } catch (error) {
    logger.warn({ kind: event.kind, error: error instanceof Error ? error.message : String(error) }, 'could not report an agent event');
  }
}
