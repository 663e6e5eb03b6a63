/**
 * The agent side of the control envelope (docs/spec/control-envelope.md): read a model's output for `step_done` /
 * `replan`, warn about legacy strings, and report every control signal to the control plane.
 * The rules themselves live in @ahp/protocol (`classifyControlOutput`).
 */
import { classifyControlOutput, controlSignalEvent } from '@ahp/protocol/wire';
import type { ControlClassification, ControlReadMode } from '@ahp/protocol/wire';
import { reportQuietly } from './event-sink.js';
import type { EventSink } from './event-sink.js';
import { silentLogger } from './logger.js';
import type { Logger } from './logger.js';

/** Options of {@link readControlSignal}. */
export interface ReadControlOptions {
  /** The plan step the output belongs to; carried on the `control_signal` event. */
  readonly stepId?: string;
  /** Receives the `control_signal` event, e.g. the {@link AhpClient}. @defaultValue none: nothing is reported */
  readonly sink?: EventSink;
  /** Receives the legacy-format warning. @defaultValue {@link silentLogger} */
  readonly logger?: Logger;
  /**
   * `seed`: the original design's reading (docs/spec/control-envelope.md#read-modes) — a legacy `STEP_DONE` / `REPLAN` counts anywhere as a word of its
   * own, an envelope's unknown keys are pruned. `strict`: a legacy token only on a line of its
   * own, an envelope with unknown keys is none. @defaultValue `'seed'`
   */
  readonly mode?: ControlReadMode;
}

/**
 * Classifies `output`: a JSON control envelope wins; a legacy `STEP_DONE` / `REPLAN` still counts
 * but is logged as a warning (where it may stand depends on `mode`); anything else (variants such
 * as `step_done`, unrelated JSON such as `{"tool":"read_file"}`) is no control signal. Every signal
 * found is reported as a `control_signal` event before the promise resolves; reporting failures
 * are logged, not thrown.
 */
export async function readControlSignal(output: string, options: ReadControlOptions = {}): Promise<ControlClassification> {
  const logger = options.logger ?? silentLogger;
  const classification = classifyControlOutput(output, { mode: options.mode ?? 'seed' });
  if (classification.kind === 'legacy') logger.warn({ control: classification.control, stepId: options.stepId }, classification.warning);
  const event = controlSignalEvent(classification, options.stepId);
  if (event !== null) await reportQuietly(options.sink, { kind: 'control_signal', control_signal: event }, logger);
  return classification;
}
