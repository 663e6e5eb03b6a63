/**
 * The seam between a synthetic agent's SDK client and its sockets. The SDK takes a transport
 * factory; this one wraps the real (`ws`) transport to
 * - resolve the agent's gateway URLs through the {@link GatewayDirectory} on every connection
 *   attempt, the way DNS or a load balancer would, so a replacement gateway on a new port takes
 *   over the URL of the one that was killed;
 * - show every frame read off the wire to the ledger (decision frames are counted per socket,
 *   below the SDK's own de-duplication);
 * - let the chaos loop terminate the current socket abruptly (no close frame).
 */
import type { Transport, TransportFactory } from '@ahp/sdk/transport';
import type { WireDecision } from './hook-ledger.js';

/**
 * Gateway "slots": agents are configured with one stable URL per slot
 * (`ws://gateway-<n>.chaos.invalid/v1/agents`) and every connection attempt is sent to the gateway
 * that holds the slot now. The `.invalid` name cannot resolve, so a URL that bypassed the
 * directory would fail instead of reaching anything.
 */
export class GatewayDirectory {
  readonly #endpoints: string[];

  /** `endpoints`: the agent endpoint of each initial gateway, one slot each. */
  constructor(endpoints: readonly string[]) {
    if (endpoints.length === 0) throw new RangeError('at least one gateway endpoint is required');
    this.#endpoints = [...endpoints];
  }

  /** The URLs agents are configured with, one per slot. */
  get urls(): string[] {
    return this.#endpoints.map((_, slot) => GatewayDirectory.slotUrl(slot));
  }

  /** The stable URL of `slot`. */
  static slotUrl(slot: number): string {
    return `ws://gateway-${slot + 1}.chaos.invalid/v1/agents`;
  }

  /** The endpoint a slot URL stands for now; any other URL is returned unchanged. */
  resolve(url: string): string {
    const match = /^ws:\/\/gateway-(\d+)\.chaos\.invalid\//.exec(url);
    if (match === null) return url;
    return this.#endpoints[Number(match[1]) - 1] ?? url;
  }

  /** The slot served by `endpoint`, or -1. */
  slotOf(endpoint: string): number {
    return this.#endpoints.indexOf(endpoint);
  }

  /** Points `slot` at a new gateway (the replacement of a killed one). */
  replace(slot: number, endpoint: string): void {
    if (slot < 0 || slot >= this.#endpoints.length) throw new RangeError(`no gateway slot ${slot}`);
    this.#endpoints[slot] = endpoint;
  }
}

/** Options of {@link WireTap}. */
export interface WireTapOptions {
  /** The real transport (from the SDK's `resolveTransport()`). */
  readonly base: TransportFactory;
  /** Maps the URL the SDK asks for to the one to dial. */
  readonly resolve: (url: string) => string;
  /** Prefix of socket ids, e.g. the agent id; sockets are numbered after it. */
  readonly name: string;
  /** Every decision frame read, with the id of the socket it came on. */
  readonly onDecision: (decision: WireDecision) => void;
}

/** See the module comment. One per SDK client. */
export class WireTap {
  readonly #options: WireTapOptions;
  #current: Transport | undefined;
  #sockets = 0;

  constructor(options: WireTapOptions) {
    this.#options = options;
  }

  /** Sockets opened so far (one per connection attempt). */
  get sockets(): number {
    return this.#sockets;
  }

  /** Pass this as the SDK's `transport` option. */
  readonly factory: TransportFactory = (connect, handlers) => {
    this.#sockets += 1;
    const socket = `${this.#options.name}/${this.#sockets}`;
    const transport = this.#options.base(
      { ...connect, url: this.#options.resolve(connect.url) },
      {
        ...handlers,
        message: (text) => {
          const decision = decisionOf(text, socket);
          if (decision !== undefined) this.#options.onDecision(decision);
          handlers.message(text);
        },
        close: (info) => {
          if (this.#current === transport) this.#current = undefined;
          handlers.close(info);
        },
      },
    );
    this.#current = transport;
    return transport;
  };

  /** Drops the current socket without a close frame, as a network failure would. False when there is none. */
  terminate(): boolean {
    const transport = this.#current;
    if (transport === undefined) return false;
    transport.terminate('chaos: socket dropped');
    return true;
  }
}

/**
 * The decision in a raw server frame, or undefined for any other frame. Only the fields the
 * ledger compares are read; the SDK validates the frame in full.
 */
export function decisionOf(text: string, socket: string): WireDecision | undefined {
  if (!text.includes('"decision"')) return undefined;
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof frame !== 'object' || frame === null) return undefined;
  const { type, id, decision } = frame as { type?: unknown; id?: unknown; decision?: unknown };
  if (type !== 'decision' || typeof id !== 'string' || typeof decision !== 'object' || decision === null) return undefined;
  return { hookId: id, socket, fingerprint: decisionFingerprint(decision as DecisionFields) };
}

/** The fields that tell two decisions of one hook apart. */
export interface DecisionFields {
  readonly allowed?: unknown;
  readonly decided_by?: unknown;
  readonly decided_at?: unknown;
}

/**
 * `allow/oracles/2025-01-01T00:00:00.000Z`: equal for every delivery of one stored decision,
 * different for two decisions of the same hook (another decider, or the same one at another time).
 */
export function decisionFingerprint(decision: DecisionFields): string {
  return `${decision.allowed === true ? 'allow' : 'block'}/${String(decision.decided_by)}/${String(decision.decided_at)}`;
}
