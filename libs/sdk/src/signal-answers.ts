/**
 * Signals and their answers: the signals the gateway pushes outside hook decisions go to the
 * application's handlers (held until the first one subscribes), and `respond()` reports how the
 * agent consumed a signal. The intensity of every signal seen lately is remembered, so an answer
 * that does not fit it fails here instead of at the gateway.
 */
import { ConsumptionActionSchema, SignalResponseFrameSchema, actionsForIntensity, isActionValidFor } from '@ahp/protocol/wire';
import type { ConsumptionAction, Intensity, JsonObject, Signal, SignalResponseFrame } from '@ahp/protocol/wire';
import { checkDuration } from './client-options.js';
import { AhpClientError } from './errors.js';
import { Emitter } from './events.js';
import type { Logger } from './logger.js';
import { checkOutgoing } from './outgoing-frame.js';
import type { RequestManager } from './request-manager.js';

/** Per-call options of {@link AhpClient.respond}. */
export interface RespondOptions {
  /** @defaultValue `ClientOptions.requestDeadlineMs` */
  deadlineMs?: number;
  /**
   * When the agent consumed the signal.
   * @defaultValue now
   */
  consumedAt?: Date;
}

/** Handles a signal pushed by the gateway (outside a hook decision). */
export type SignalHandler = (signal: Signal) => void | Promise<void>;

/** Signals remembered for client-side action checks in `respond(signalId, …)`. */
const MAX_KNOWN_SIGNALS = 4_096;

/** What {@link SignalAnswers} needs from the client. */
export interface SignalAnswersDeps {
  readonly requests: RequestManager;
  readonly requestDeadlineMs: number;
  readonly logger: Logger;
}

/** See the module comment. */
export class SignalAnswers {
  readonly #deps: SignalAnswersDeps;
  readonly #known = new Map<string, Intensity>();
  readonly #handlers: Emitter<{ signal: Signal }>;

  constructor(deps: SignalAnswersDeps) {
    this.#deps = deps;
    this.#handlers = new Emitter<{ signal: Signal }>({ logger: deps.logger, hold: ['signal'] });
  }

  /** A signal pushed by the gateway: remembered, then handed to the handlers (or held for the first). */
  deliver(signal: Signal): void {
    this.remember(signal);
    this.#handlers.emit('signal', signal);
  }

  /** Subscribes a handler to pushed signals; returns the unsubscribe function. */
  on(handler: SignalHandler): () => void {
    return this.#handlers.on('signal', handler);
  }

  /** Forgets handlers and held signals (the client closed). */
  clear(): void {
    this.#handlers.clear();
  }

  /** Keeps the signal's intensity for the action check of a later `respond(signalId, …)`; the oldest goes first. */
  remember(signal: Signal): void {
    const id = signal.header.id;
    this.#known.delete(id);
    this.#known.set(id, signal.header.intensity);
    if (this.#known.size > MAX_KNOWN_SIGNALS) {
      const oldest = this.#known.keys().next();
      if (oldest.done !== true) this.#known.delete(oldest.value);
    }
  }

  /** See {@link AhpClient.respond}. */
  async respond(signal: Signal | string, action: ConsumptionAction, details?: JsonObject, options: RespondOptions = {}): Promise<void> {
    const deadlineMs = checkDuration('deadlineMs', options.deadlineMs, this.#deps.requestDeadlineMs);
    const signalId = typeof signal === 'string' ? signal : signal.header.id;
    const intensity = typeof signal === 'string' ? this.#known.get(signal) : signal.header.intensity;
    if (!ConsumptionActionSchema.safeParse(action).success) {
      throw new AhpClientError('E_INVALID_ACTION', `"${String(action)}" is not a consumption action`, {
        details: { signal_id: signalId, action: String(action) },
      });
    }
    if (intensity !== undefined && !isActionValidFor(intensity, action)) {
      const allowed = actionsForIntensity(intensity);
      throw new AhpClientError('E_INVALID_ACTION', `"${action}" cannot answer a ${intensity} signal; use one of ${allowed.join(', ')}`, {
        details: { signal_id: signalId, intensity, action, allowed: [...allowed] },
      });
    }
    const frame: SignalResponseFrame = {
      type: 'signal_response',
      id: globalThis.crypto.randomUUID(),
      response: {
        signal_id: signalId,
        consumed_at: (options.consumedAt ?? new Date()).toISOString(),
        action,
        ...(details === undefined ? {} : { details }),
      },
    };
    checkOutgoing(SignalResponseFrameSchema, frame, 'signal response');
    await this.#deps.requests.send(frame, { deadlineMs });
  }
}
