/**
 * How many connections may wait for one hook id's decision on one gateway at once. A hook id
 * belongs to one agent, so this bounds what a client re-sending a hook on several of its own
 * sockets (a reconnect while the old socket is still open) makes the gateway hold; the
 * connection beyond it is refused at once (`E_RATE_LIMITED`) and re-sends later for the stored
 * decision. docs/protocol.md §2 states the number.
 */
export const MAX_WAITERS_PER_HOOK = 4;
