import { Injectable } from '@nestjs/common';
import type { AgentConnection } from './agent-connection.js';

/**
 * The connections this gateway holds: all of them (for heartbeat, goaway and counts), and the
 * current one per session. A session has at most one current connection: when the SDK resumes a
 * session on a new socket while the old one is not yet known to be dead, the new one replaces it
 * (see {@link promote}). Different sessions of one agent (two runs with the same token) coexist;
 * replacing by agent would make them evict each other in a reconnect loop.
 */
@Injectable()
export class ConnectionRegistry {
  private readonly all = new Set<AgentConnection>();
  /** session id → its current connection */
  private readonly current = new Map<string, AgentConnection>();
  /** agent id → how many of {@link all} are its (the per-agent connection cap reads it at every upgrade) */
  private readonly perAgent = new Map<string, number>();

  /** Registers a freshly upgraded connection (not yet current for its agent). */
  add(connection: AgentConnection): void {
    if (this.all.has(connection)) return;
    this.all.add(connection);
    this.perAgent.set(connection.agentId, (this.perAgent.get(connection.agentId) ?? 0) + 1);
  }

  /** How many open connections (welcomed or not) the agent has on this gateway. */
  countOf(agentId: string): number {
    return this.perAgent.get(agentId) ?? 0;
  }

  /**
   * Makes `connection` (which has completed its handshake) its session's current connection and
   * returns the one it replaces, if any; the caller closes that one. Only a current connection
   * may remove its session's presence entry.
   */
  promote(connection: AgentConnection): AgentConnection | undefined {
    const session = sessionOf(connection);
    const previous = this.current.get(session);
    this.current.set(session, connection);
    return previous === connection ? undefined : previous;
  }

  /** Whether `connection` is its session's current connection here. */
  isCurrent(connection: AgentConnection): boolean {
    return connection.sessionId !== undefined && this.current.get(connection.sessionId) === connection;
  }

  /** The most recently connected current connection of an agent on this gateway, other than `except`. */
  latestOf(agentId: string, except?: AgentConnection): AgentConnection | undefined {
    let latest: AgentConnection | undefined;
    for (const connection of this.current.values()) {
      if (connection === except || connection.agentId !== agentId) continue;
      if (latest === undefined || connection.connectedAt > latest.connectedAt) latest = connection;
    }
    return latest;
  }

  /** Every current connection of an agent on this gateway (one per session; usually one). */
  currentOf(agentId: string): AgentConnection[] {
    return [...this.current.values()].filter((connection) => connection.agentId === agentId);
  }

  /** Forgets a closed connection; returns whether it was its session's current one. */
  remove(connection: AgentConnection): boolean {
    if (this.all.delete(connection)) {
      const left = (this.perAgent.get(connection.agentId) ?? 1) - 1;
      if (left > 0) this.perAgent.set(connection.agentId, left);
      else this.perAgent.delete(connection.agentId);
    }
    if (!this.isCurrent(connection)) return false;
    this.current.delete(sessionOf(connection));
    return true;
  }

  /** Every open connection (a copy: callers may close connections while iterating). */
  list(): AgentConnection[] {
    return [...this.all];
  }

  get size(): number {
    return this.all.size;
  }
}

function sessionOf(connection: AgentConnection): string {
  if (connection.sessionId === undefined) throw new Error('a connection becomes current only after its handshake');
  return connection.sessionId;
}
