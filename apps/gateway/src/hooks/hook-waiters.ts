/**
 * Who on this gateway waits for a hook's decision, by hook id, and until when.
 *
 * Both ways a hook arrives wait the same way: a socket (several may wait for one hook id: an SDK
 * that re-sends on a new socket while the old one is still open) and an HTTP caller (one per hook
 * id: each HTTP hook gets a fresh id). The registry holds the waiters and their deadline timers,
 * hands them over when a decision arrives, and tells the shutdown when none is left. What a waiter
 * does with a decision is the waiter's (a frame on the socket, a resolved promise).
 *
 * Nothing here survives a crash, and nothing must: the correlation and the decision live in Redis.
 */
import type { HookTrigger } from '@ahp/protocol';

/**
 * How many connections may wait for one hook id's decision on one gateway at once. A hook id
 * belongs to one agent, so this bounds what a client re-sending a hook on several of its own
 * sockets (a reconnect while the old socket is still open) makes the gateway hold; the
 * connection beyond it is refused at once (`E_RATE_LIMITED`) and re-sends later for the stored
 * decision. docs/protocol.md §2 states the number.
 */
export const MAX_WAITERS_PER_HOOK = 4;

/** One party waiting for one hook's decision. */
export interface HookWaiter {
  readonly hookId: string;
  readonly trigger: HookTrigger;
  readonly agentId: string;
  /** Who waits: a socket's connection (at most one entry each), or undefined for an HTTP caller. */
  readonly owner: object | undefined;
  /** When this gateway received the hook (epoch ms), for the decision latency. */
  readonly receivedAt: number;
}

interface Entry<W extends HookWaiter> {
  readonly waiter: W;
  readonly timer: NodeJS.Timeout;
}

/** The waiters of this gateway; `W` is the service's own waiter type (what it needs to answer one). */
export class HookWaiters<W extends HookWaiter> {
  private readonly byHook = new Map<string, Entry<W>[]>();
  private idle: (() => void)[] = [];

  /**
   * @param onDeadline - called once a waiter's deadline passes (the failure policy's turn); the
   *   waiter stays registered, so the decision that follows reaches it.
   * @param onRemoved - called for every waiter that leaves, whichever way (bookkeeping).
   */
  constructor(
    private readonly onDeadline: (hookId: string) => void,
    private readonly onRemoved: (waiter: W) => void = () => undefined,
  ) {}

  /** Hook ids waited for. */
  get size(): number {
    return this.byHook.size;
  }

  /**
   * Registers `waiter` until `deadlineAt`. An owner that already waits for the hook is replaced
   * (its first `receivedAt` is the caller's to keep). False, and nothing registered, when
   * {@link MAX_WAITERS_PER_HOOK} others already wait for it.
   */
  add(waiter: W, deadlineAt: number, now: number): boolean {
    const previous = waiter.owner === undefined ? undefined : this.find(waiter.hookId, waiter.owner);
    if (previous !== undefined) this.remove(previous);
    const entries = this.byHook.get(waiter.hookId) ?? [];
    if (entries.length >= MAX_WAITERS_PER_HOOK) return false;
    const timer = setTimeout(() => this.onDeadline(waiter.hookId), Math.max(0, deadlineAt - now));
    timer.unref();
    entries.push({ waiter, timer });
    this.byHook.set(waiter.hookId, entries);
    return true;
  }

  /** The waiter `owner` registered for `hookId`. */
  find(hookId: string, owner: object): W | undefined {
    return this.byHook.get(hookId)?.find((entry) => entry.waiter.owner === owner)?.waiter;
  }

  /** The first waiter of `hookId` (whose trigger and agent the failure policy uses). */
  first(hookId: string): W | undefined {
    return this.byHook.get(hookId)?.[0]?.waiter;
  }

  /** Every waiter of `hookId`, removed before they are returned: a decision that arrives twice is handed over once. */
  take(hookId: string): W[] {
    const entries = this.byHook.get(hookId);
    if (entries === undefined) return [];
    this.byHook.delete(hookId);
    for (const entry of entries) this.release(entry);
    this.notifyIfIdle();
    return entries.map((entry) => entry.waiter);
  }

  /** Every waiter of every hook, removed (shutdown). */
  takeAll(): W[] {
    return [...this.byHook.keys()].flatMap((hookId) => this.take(hookId));
  }

  /** Forgets one waiter (its socket closed); the others of its hook keep waiting. */
  remove(waiter: W): void {
    const entries = this.byHook.get(waiter.hookId);
    const index = entries?.findIndex((entry) => entry.waiter === waiter) ?? -1;
    if (entries === undefined || index < 0) return;
    const [entry] = entries.splice(index, 1);
    if (entries.length === 0) this.byHook.delete(waiter.hookId);
    if (entry !== undefined) this.release(entry);
    this.notifyIfIdle();
  }

  /** Resolves true once no hook is waited for, false after `timeoutMs`. */
  whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.byHook.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.idle = this.idle.filter((waiter) => waiter !== done);
        resolve(false);
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.idle.push(done);
    });
  }

  private release(entry: Entry<W>): void {
    clearTimeout(entry.timer);
    this.onRemoved(entry.waiter);
  }

  private notifyIfIdle(): void {
    if (this.byHook.size > 0 || this.idle.length === 0) return;
    const waiting = this.idle;
    this.idle = [];
    for (const done of waiting) done();
  }
}
