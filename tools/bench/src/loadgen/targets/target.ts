/**
 * A thing the load generator can do one operation on. Each kind lives in its own module.
 */
import type { OpenReport } from '../protocol.js';

export interface LoadTarget {
  /** What opening it reported. */
  readonly report: OpenReport;
  /** One operation; resolves when it completed, throws (with a `code`) when it failed. */
  op(index: number): Promise<unknown>;
  /** Releases connections and processes. */
  close(): Promise<void>;
}

/** An Error with a `code`, the form in which the drivers tally failures. */
export function codedError(code: string, message: string): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

/** Rejects with `code` when `promise` has not settled after `ms`; `onTimeout` cleans up. */
export function withTimeout<T>(promise: Promise<T>, ms: number, code: string, onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(codedError(code, `no answer within ${ms} ms`));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
