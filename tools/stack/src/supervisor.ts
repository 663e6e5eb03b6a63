/**
 * Restarts the stack's processes when they crash, so that one dead worker does not leave agents
 * without a gateway (or a gateway without workers): each crash is followed by a restart after a
 * delay that doubles with every crash in the window, and a process that crashes too often in a
 * row (a crash loop: a bad configuration, a port taken, a bug on start-up) is given up on, which
 * the owner of the stack reports and answers by stopping everything.
 *
 * What counts as a crash: an exit the supervisor did not ask for with a signal (SIGKILL, SIGSEGV…)
 * or a non-zero code, and a restart that did not reach its ready line. A clean exit (code 0) is a
 * process that was asked to stop by someone else (SIGTERM from an operator): it is reported and
 * not restarted.
 */
import type { ServiceExit, ServiceProcess } from './service-process.js';

/** When and how often a crashed process is restarted. */
export interface RestartPolicy {
  /**
   * Delay before the restart after the first crash in the window; each further crash in the
   * window doubles it.
   * @defaultValue 1000
   */
  initialDelayMs?: number;
  /**
   * Upper bound of the restart delay.
   * @defaultValue 30000
   */
  maxDelayMs?: number;
  /**
   * Crash loop: this many crashes of one process within {@link RestartPolicy.windowMs} and the
   * supervisor gives up on it (no restart; a `gave-up` event).
   * @defaultValue 5
   */
  maxCrashes?: number;
  /**
   * The window over which crashes are counted.
   * @defaultValue 60000
   */
  windowMs?: number;
}

/** The defaults of {@link RestartPolicy}, as documented there. */
export const DEFAULT_RESTART_POLICY: Readonly<Required<RestartPolicy>> = Object.freeze({
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
  maxCrashes: 5,
  windowMs: 60_000,
});

/** What the supervisor did, for the owner to print (the CLI) or to check (tests). */
export type SupervisorEvent =
  | {
      kind: 'crashed';
      name: string;
      /** How it ended: the exit of a running process, or why a restart did not become ready. */
      cause: string;
      lastLines: string[];
      /** Crashes of this process within the window, this one included. */
      crashesInWindow: number;
      restartInMs: number;
    }
  | { kind: 'restarted'; name: string; service: ServiceProcess }
  | { kind: 'exited-cleanly'; name: string }
  | { kind: 'gave-up'; name: string; cause: string; crashes: number; windowMs: number; lastLines: string[] };

/** One process under supervision: how to start it again, and where its new incarnation goes. */
export interface SupervisedSlot<S extends ServiceProcess = ServiceProcess> {
  name: string;
  service: S;
  /** Starts a new incarnation; rejects when it does not become ready (a ServiceStartError). */
  restart(previous: S): Promise<S>;
  /** Called with each new incarnation (e.g. to put it in the stack's list in place of the one it replaces). */
  replace(previous: S, next: S): void;
}

/** The restart delay after the `crashesInWindow`-th crash in the window (1-based). */
export function restartDelay(crashesInWindow: number, policy: Required<RestartPolicy>): number {
  return Math.min(policy.initialDelayMs * 2 ** Math.min(Math.max(crashesInWindow - 1, 0), 30), policy.maxDelayMs);
}

function describeExit(exit: ServiceExit): string {
  return exit.signal ? `killed by ${exit.signal}` : `exited with code ${String(exit.code)}`;
}

/** Watches slots and restarts crashed processes by {@link RestartPolicy}; see the module comment. */
export class Supervisor {
  private readonly policy: Required<RestartPolicy>;
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    policy: RestartPolicy,
    private readonly onEvent: (event: SupervisorEvent) => void,
  ) {
    this.policy = { ...DEFAULT_RESTART_POLICY, ...policy };
  }

  /** Supervises `slot.service` and each incarnation that replaces it, until {@link stop}. */
  watch<S extends ServiceProcess>(slot: SupervisedSlot<S>): void {
    const crashes: number[] = [];
    const crashed = (cause: string, lastLines: string[]) => {
      const now = Date.now();
      crashes.push(now);
      while (crashes.length > 0 && (crashes[0] ?? now) <= now - this.policy.windowMs) crashes.shift();
      if (crashes.length >= this.policy.maxCrashes) {
        this.onEvent({ kind: 'gave-up', name: slot.name, cause, crashes: crashes.length, windowMs: this.policy.windowMs, lastLines });
        return;
      }
      const delay = restartDelay(crashes.length, this.policy);
      this.onEvent({ kind: 'crashed', name: slot.name, cause, lastLines, crashesInWindow: crashes.length, restartInMs: delay });
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (this.stopped) return;
        const attempt = slot.restart(slot.service).then(
          (next) => {
            // stop() may have come while it was starting: it waits for this promise, then stops what is in the stack.
            const previous = slot.service;
            slot.service = next;
            slot.replace(previous, next);
            if (this.stopped) return;
            this.onEvent({ kind: 'restarted', name: slot.name, service: next });
            follow(next);
          },
          (error: unknown) => {
            if (this.stopped) return;
            const lines = (error as { lastLines?: unknown }).lastLines;
            crashed(`restart failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, Array.isArray(lines) ? (lines as string[]) : []);
          },
        );
        this.inFlight.add(attempt);
        void attempt.finally(() => this.inFlight.delete(attempt));
      }, delay);
      this.timers.add(timer);
    };
    const follow = (service: S) => {
      void service.exited.then((exit) => {
        if (this.stopped || slot.service !== service) return;
        if (exit.signal === null && exit.code === 0) {
          this.onEvent({ kind: 'exited-cleanly', name: slot.name });
          return;
        }
        crashed(describeExit(exit), service.recentLines().slice(-20));
      });
    };
    follow(slot.service);
  }

  /** No more restarts: cancels pending ones and waits for those already starting (the caller then stops every process). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
  }
}
