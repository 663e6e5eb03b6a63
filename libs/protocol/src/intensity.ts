/**
 * The continuous control spectrum (docs/spec/spectrum-and-signals.md#spectrum): four intervention intensities, ordered by how
 * binding they are, `block ≺ control ≺ prompt ≺ aid`. Signals carry an intensity in their header;
 * decision payloads carry the matching decision level (`block` ↔ `blocking`, …).
 */
import { z } from 'zod';

/**
 * The intensities, strongest first. The array order IS the spectrum's partial order: every
 * comparison in this library derives from an index in this list, so reordering it changes who wins
 * when several oracles answer the same hook.
 */
export const INTENSITIES = ['block', 'control', 'prompt', 'aid'] as const;

/** How strongly a signal intervenes: deny, adjust parameters, warn, or suggest afterwards. */
export const IntensitySchema = z.enum(INTENSITIES).meta({
  id: 'Intensity',
  description: 'Intervention intensity, strongest first: block ≺ control ≺ prompt ≺ aid.',
});
export type Intensity = z.infer<typeof IntensitySchema>;

/** The decision levels of docs/spec/spectrum-and-signals.md#decision-structures, in the same order as {@link INTENSITIES}. */
export const DECISION_LEVELS = ['blocking', 'controlling', 'prompting', 'aiding'] as const;

/** The `level` field of a decision payload; each level corresponds to exactly one intensity. */
export const DecisionLevelSchema = z.enum(DECISION_LEVELS).meta({
  id: 'DecisionLevel',
  description: 'Level of a decision payload: blocking | controlling | prompting | aiding.',
});
export type DecisionLevel = z.infer<typeof DecisionLevelSchema>;

const RANK: Readonly<Record<Intensity, number>> = { block: 0, control: 1, prompt: 2, aid: 3 };

const LEVEL_OF: Readonly<Record<Intensity, DecisionLevel>> = {
  block: 'blocking',
  control: 'controlling',
  prompt: 'prompting',
  aid: 'aiding',
};

const INTENSITY_OF: Readonly<Record<DecisionLevel, Intensity>> = {
  blocking: 'block',
  controlling: 'control',
  prompting: 'prompt',
  aiding: 'aid',
};

/**
 * Comparator over the spectrum: negative when `a` is stronger (more binding) than `b`, zero when
 * equal, positive when weaker. `[...list].sort(compareIntensity)` puts the strongest first.
 */
export function compareIntensity(a: Intensity, b: Intensity): number {
  return RANK[a] - RANK[b];
}

/** True when `a` binds strictly more than `b` (e.g. `block` over `prompt`). */
export function isStrongerThan(a: Intensity, b: Intensity): boolean {
  return RANK[a] < RANK[b];
}

/**
 * The most binding intensity in `list`, or `null` for an empty list. `null` rather than
 * `undefined` so the result can go straight into `HookDecision.intensity`, where "no signal" is
 * spelled `null` on the wire.
 */
export function strongestIntensity(list: Iterable<Intensity>): Intensity | null {
  let best: Intensity | null = null;
  for (const intensity of list) {
    if (best === null || RANK[intensity] < RANK[best]) best = intensity;
  }
  return best;
}

/** The decision level a payload must carry for a signal of intensity `intensity`. */
export function levelForIntensity(intensity: Intensity): DecisionLevel {
  return LEVEL_OF[intensity];
}

/** The intensity a signal header must carry for a payload of level `level`. */
export function intensityForLevel(level: DecisionLevel): Intensity {
  return INTENSITY_OF[level];
}
