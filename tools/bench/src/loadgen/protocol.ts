/**
 * What the orchestrator and the load generator process say to each other over Node's IPC channel
 * (structured clone, so latency samples travel as typed arrays).
 *
 * The load generator holds "targets": things it can do one operation on (a PING, an echo, a job,
 * a spawned hook, an in-process evaluation, an SDK hook, a raw-socket hook). The orchestrator
 * opens a target, runs loops over it, and closes it.
 */
import type { LoadRun } from '../load/drivers.js';
import type { EchoEnvelope } from '../shared/echo-message.js';

/** An agent's plain token, handed to the load generator only (never written to disk). */
export interface AgentLogin {
  agentId: string;
  token: string;
}

/** How to open each kind of target. */
export type TargetSpec =
  | { name: 'redis'; url: string }
  | {
      name: 'ws';
      url: string;
      connections: number;
      envelope: EchoEnvelope;
    }
  | { name: 'bullmq'; redisUrl: string; prefix: string; queue: string; replyStream: string }
  | {
      name: 'spawn';
      script: string;
      /** Arguments after the script (e.g. `hook claude-code --gateway …`). */
      args?: string[];
      /** Variables added to the child's environment (e.g. AHP_TOKEN). */
      env?: Record<string, string>;
      /** What the child reads on stdin; by default the workload's first event as a PreToolUse. */
      input?: string;
    }
  | { name: 'eval'; workspaceRoot: string }
  | { name: 'sdk'; urls: string[]; logins: AgentLogin[] }
  | { name: 'approval'; agentUrl: string; login: AgentLogin; operatorUrl: string; operatorToken: string }
  | {
      name: 'raw';
      url: string;
      /** Agents to connect now, added to those already connected. */
      logins: AgentLogin[];
      /** Handshakes under way at once. */
      parallel: number;
      /** Source addresses to spread connections over (each gives ~28k ephemeral ports). */
      localAddresses: string[];
    };

export type TargetName = TargetSpec['name'];

/** A loop to run over an open target. */
export type LoopSpec =
  | { kind: 'closed'; concurrency: number; count?: number; durationMs?: number }
  | { kind: 'open'; rate: number; durationMs: number; drainMs: number };

/** What opening a target reports. */
export interface OpenReport {
  /** Connections (or clients) the target holds now. */
  connections: number;
  /** Connections that failed to open in this call. */
  failed: number;
  /** The first few failure messages. */
  failures: string[];
  /** A note for the report (e.g. which rule configuration the eval target uses). */
  note?: string;
}

/** Requests from the orchestrator. */
export type LoadRequest =
  | { id: number; type: 'open'; target: TargetSpec }
  | { id: number; type: 'run'; target: TargetName; loop: LoopSpec }
  | { id: number; type: 'close'; target: TargetName }
  /** Waits until no operation on the target is outstanding (or the timeout passed); answers how many still are. */
  | { id: number; type: 'idle'; target: TargetName; timeoutMs: number };

/** Replies from the load generator; `result` is an OpenReport for `open`, a LoadRun for `run`, the outstanding count for `idle`. */
export type LoadReply =
  | { id: number; ok: true; result: OpenReport | LoadRun | number | null }
  | { id: number; ok: false; error: string }
  | { id: 0; ok: true; result: 'ready' };
