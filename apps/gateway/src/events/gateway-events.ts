import { Injectable } from '@nestjs/common';
import type { AgentIdentity, AhpError, HookDecision, HookTrigger, TimelineEntry } from '@ahp/protocol';

/**
 * What happened on this gateway, as facts other features observe without the services that
 * produce them knowing about those features: the fleet view and the operators' live feed, and
 * the Prometheus metrics, both listen here. Emitting is synchronous and never fails the emitter:
 * a listener that throws is isolated and reported (see {@link GatewayEvents.emit}).
 */
export interface GatewayEventMap {
  /** An agent finished its handshake on this gateway (its presence entry is written). */
  agentConnected: { agent: AgentIdentity; sessionId: string; connectedAt: number; at: number };
  /** An agent's connection closed; `wasCurrent` when it was its session's current connection. */
  agentDisconnected: { agent: AgentIdentity; sessionId: string | undefined; wasCurrent: boolean; at: number };
  /** A hook was accepted for evaluation (opened or joined), over a socket or the HTTP hook endpoint. */
  hookReceived: { agentId: string; sessionId: string; hookId: string; trigger: HookTrigger; tool: string | undefined; via: 'ws' | 'http'; at: number };
  /** A new hook was refused before evaluation by an admission check (plan gate, unanswered signals); nothing was recorded for it. */
  hookRefused: { agentId: string; sessionId: string; hookId: string; trigger: HookTrigger; error: AhpError; via: 'ws' | 'http'; at: number };
  /** A decision was handed to the agent that waited for it; `latencyMs` from when this gateway received the hook. */
  decisionDelivered: { agentId: string; decision: HookDecision; latencyMs: number | undefined; via: 'ws' | 'http'; at: number };
  /** An agent reported an event and it is stored in its timeline. */
  timelineRecorded: { entry: TimelineEntry };
  /** This gateway answered an agent frame with a typed error. */
  errorSent: { agentId: string; code: string };
  /** The operator API answered a call with a typed error (`status` is the HTTP status sent). */
  operatorErrorSent: { code: string; status: number };
}

export type GatewayEventName = keyof GatewayEventMap;
type Listener<K extends GatewayEventName> = (payload: GatewayEventMap[K]) => void;

/** The gateway's in-process event hub. */
@Injectable()
export class GatewayEvents {
  private readonly listeners: { [K in GatewayEventName]?: Listener<K>[] } = {};
  /** Listener failures since start; a listener bug must not break the hot path, but it must show. */
  listenerFailures = 0;
  private onListenerError: (error: unknown, event: GatewayEventName) => void = () => undefined;

  /** Subscribes; returns the unsubscribe function. */
  on<K extends GatewayEventName>(event: K, listener: Listener<K>): () => void {
    const list = (this.listeners[event] ??= []) as Listener<K>[];
    list.push(listener);
    return () => {
      const index = list.indexOf(listener);
      if (index >= 0) list.splice(index, 1);
    };
  }

  /** Calls every listener of `event` in subscription order; a listener that throws is counted and reported, the rest still run. */
  emit<K extends GatewayEventName>(event: K, payload: GatewayEventMap[K]): void {
    const list = this.listeners[event] as Listener<K>[] | undefined;
    if (list === undefined) return;
    for (const listener of list) {
      try {
        listener(payload);
      } catch (error) {
        this.listenerFailures += 1;
        this.onListenerError(error, event);
      }
    }
  }

  /** Where listener failures are reported (the gateway's logger); set once at start. */
  reportListenerErrorsTo(report: (error: unknown, event: GatewayEventName) => void): void {
    this.onListenerError = report;
  }
}
