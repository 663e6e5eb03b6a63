/**
 * The orchestrator's handle on the load generator process: forks it, sends it requests and
 * resolves with its replies.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadRun } from '../load/drivers.js';
import type { LoadReply, LoadRequest, LoopSpec, OpenReport, TargetName, TargetSpec } from '../loadgen/protocol.js';

/** `Omit` applied to each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const ENTRY = fileURLToPath(new URL('../children/loadgen.js', import.meta.url));

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

export class LoadGenerator {
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (reply: LoadReply) => {
      const pending = this.#pending.get(reply.id);
      if (pending === undefined) return;
      this.#pending.delete(reply.id);
      if (reply.ok) pending.resolve(reply.result);
      else pending.reject(new Error(`load generator: ${reply.error}`));
    });
    child.once('exit', (code, signal) => {
      const error = new Error(`the load generator exited (${signal ?? `code ${String(code)}`})`);
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    });
  }

  /** Forks the load generator and waits until it listens. */
  static async start(): Promise<LoadGenerator> {
    // No inherited Node flags (a --cpu-prof on the orchestrator must not profile the load generator).
    const child = fork(ENTRY, [], { serialization: 'advanced', execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`the load generator exited with ${String(code)} before it was ready`)));
    });
    return new LoadGenerator(child);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  open(target: TargetSpec): Promise<OpenReport> {
    return this.#request({ type: 'open', target }) as Promise<OpenReport>;
  }

  run(target: TargetName, loop: LoopSpec): Promise<LoadRun> {
    return this.#request({ type: 'run', target, loop }) as Promise<LoadRun>;
  }

  async close(target: TargetName): Promise<void> {
    await this.#request({ type: 'close', target });
  }

  /** Waits until no operation on `target` is outstanding, at most `timeoutMs`; resolves with how many still are. */
  idle(target: TargetName, timeoutMs: number): Promise<number> {
    return this.#request({ type: 'idle', target, timeoutMs }) as Promise<number>;
  }

  /** Ends the process (its targets' sockets close with it). */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }

  #request(body: DistributiveOmit<LoadRequest, 'id'>): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.child.send({ id, ...body });
    });
  }
}
