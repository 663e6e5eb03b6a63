import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  DEFAULT_OPERATOR_SIGNAL_TTL_MS,
  makeError,
  operatorSignal,
  type OperatorIdentity,
  type OperatorSignalBody,
  type OperatorSignalResponse,
  type Signal,
} from '@ahp/protocol';
import { MAX_PENDING_OPERATOR_SIGNALS, type OperatorSignalStore } from '@ahp/store';
import type { AgentConnection } from '../connections/agent-connection.js';
import { PushLoop } from '../connections/push-loop.js';
import { ConnectionRegistry } from '../connections/connection-registry.js';
import { AgentAuthService } from '../auth/agent-auth.service.js';
import { LOGGER } from '../config/config.tokens.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { OperatorApiError } from '../operator-api/api-error.js';
import { OperatorScopeService } from '../operator-api/operator-scope.service.js';
import { OPERATOR_SIGNAL_STORE } from '../store/store.tokens.js';

/** Where pushing one connection's operator signals stands (as InboxService's delivery). */
interface Delivery {
  /** Signal ids already pushed on this connection: a connection gets each once. */
  pushed: Set<string>;
  loop: PushLoop;
}

/**
 * Signals operators push to agents outside any hook (docs/spec/spectrum-and-signals.md#operator-signals): sending one, and pushing an
 * agent's unanswered ones to its connections here as `signal` frames.
 *
 * Delivery: the signal is stored (OperatorSignalStore) until the agent answers it or its
 * `ttl_ms` ends, and the gateway the agent is connected to — any gateway, through its feed — is
 * woken to push it. An agent that is offline gets it when it next connects, within the TTL; a
 * new connection (a reconnect after a drop, another gateway) gets every unanswered one again,
 * because a push on a socket that died is not a delivery. The operator's answer says whether the
 * agent was connected (`pushed`) or not (`queued`).
 */
@Injectable()
export class OperatorSignalsService {
  private readonly deliveries = new WeakMap<AgentConnection, Delivery>();
  private readonly log: JsonLogger;

  constructor(
    @Inject(OPERATOR_SIGNAL_STORE) private readonly store: OperatorSignalStore,
    @Inject(AgentAuthService) private readonly auth: AgentAuthService,
    @Inject(ConnectionRegistry) private readonly registry: ConnectionRegistry,
    @Inject(OperatorScopeService) private readonly scopes: OperatorScopeService,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'operator-signals' });
  }

  /**
   * Sends `body` to `agentId` as `operator`. 404 for an agent this gateway does not know and, for
   * a scoped token, for one outside its teams (the two look alike); 429 when the agent already
   * holds {@link MAX_PENDING_OPERATOR_SIGNALS} unanswered operator signals.
   */
  async send(operator: OperatorIdentity, agentId: string, body: OperatorSignalBody, now: number = Date.now()): Promise<OperatorSignalResponse> {
    if (this.auth.identityOf(agentId) === undefined || !this.scopes.seesAgent(operator, agentId)) {
      throw new OperatorApiError(makeError('E_NOT_FOUND', `no agent ${agentId}`, { agent: agentId }));
    }
    const signal = operatorSignal(body, { id: randomUUID(), operatorId: operator.id, now: new Date(now) });
    const expiresAt = now + (body.ttl_ms ?? DEFAULT_OPERATOR_SIGNAL_TTL_MS);
    const outcome = await this.store.send(agentId, signal, expiresAt, now);
    if (outcome.outcome === 'full') {
      throw new OperatorApiError(
        makeError('E_RATE_LIMITED', `agent ${agentId} already has ${MAX_PENDING_OPERATOR_SIGNALS} unanswered operator signals`, { agent: agentId, limit: MAX_PENDING_OPERATOR_SIGNALS }, { retryAfterMs: 60_000 }),
      );
    }
    this.log.info(
      { operator: operator.id, agentId, signalId: signal.header.id, intensity: signal.header.intensity, gatewayId: outcome.gatewayId },
      'operator signal sent',
    );
    return { signal, delivery: outcome.gatewayId === null ? 'queued' : 'pushed', expires_at: new Date(expiresAt).toISOString() };
  }

  /** Starts a welcomed connection's delivery: every unanswered operator signal of the agent. */
  connected(connection: AgentConnection): void {
    const delivery: Delivery = { pushed: new Set(), loop: new PushLoop(() => this.pushPending(connection, delivery)) };
    this.deliveries.set(connection, delivery);
    delivery.loop.trigger();
  }

  /** The store says an operator sent `agentId` a signal: push it to the agent's connections here. */
  notify(agentId: string): void {
    for (const connection of this.registry.currentOf(agentId)) this.deliveries.get(connection)?.loop.trigger();
  }

  /** Pushes the agent's unanswered signals not yet pushed on this connection; false when delivery must stop. */
  private async pushPending(connection: AgentConnection, delivery: Delivery): Promise<boolean> {
    if (connection.state !== 'ready' || !connection.isOpen) return false;
    let pending: Signal[];
    try {
      pending = await this.store.pending(connection.agentId, Date.now());
    } catch (error) {
      // Nothing is lost: the signals stay stored; the next notice or connection reads them.
      this.log.warn({ agentId: connection.agentId, sessionId: connection.sessionId, error }, 'reading operator signals failed');
      return false;
    }
    for (const signal of pending) {
      if (delivery.pushed.has(signal.header.id)) continue;
      if (!connection.push({ type: 'signal', signal })) return false;
      delivery.pushed.add(signal.header.id);
      connection.log.debug({ sessionId: connection.sessionId, signalId: signal.header.id }, 'operator signal pushed');
    }
    return true;
  }
}
