/**
 * How many MCP calls each agent has in flight on each upstream server through this gateway
 * process (`max_concurrent_calls_per_agent`, docs/mcp-gateway.md). The process shares one
 * upstream connection among all agents, so the count that matters is this process's: it lives in
 * memory, costs no Redis command, and dies with the process — as the calls it counts do.
 */
export class McpCallSlots {
  private readonly held = new Map<string, number>();

  /**
   * Takes one of `limit` slots of `agentId` on `serverId`: the function that gives it back (once,
   * whatever happens to the call), or undefined when all are taken.
   */
  tryTake(serverId: string, agentId: string, limit: number): (() => void) | undefined {
    // The server id cannot hold a NUL (McpServerIdSchema), so the key is unambiguous.
    const key = `${serverId}\0${agentId}`;
    const count = this.held.get(key) ?? 0;
    if (count >= limit) return undefined;
    this.held.set(key, count + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left <= 0) this.held.delete(key);
      else this.held.set(key, left);
    };
  }

  /** The calls `agentId` has in flight on `serverId`. */
  inFlight(serverId: string, agentId: string): number {
    return this.held.get(`${serverId}\0${agentId}`) ?? 0;
  }
}
