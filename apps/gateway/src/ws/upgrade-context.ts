/**
 * Hands the agent authenticated at the HTTP upgrade to the connection handler.
 *
 * ws passes the upgrade request to the `connection` event; the adapter authenticates that very
 * request object in `verifyClient`, so a WeakMap keyed by it carries the result across without
 * adding properties to Node's request and without outliving the request.
 */
import type { IncomingMessage } from 'node:http';
import type { AuthenticatedAgent } from '../auth/agent-auth.service.js';

const agents = new WeakMap<IncomingMessage, AuthenticatedAgent>();

/** Records the agent a request was authenticated as (called by the adapter). */
export function setUpgradeAgent(request: IncomingMessage, agent: AuthenticatedAgent): void {
  agents.set(request, agent);
}

/** The agent a request was authenticated as, once: the entry is removed when read. */
export function takeUpgradeAgent(request: IncomingMessage | undefined): AuthenticatedAgent | undefined {
  if (request === undefined) return undefined;
  const agent = agents.get(request);
  agents.delete(request);
  return agent;
}
