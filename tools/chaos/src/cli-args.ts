/** Parsers for the command line's values: durations, ranges, fault weights. Pure, so they are tested alone. */
import { FAULT_KINDS, type FaultKind, type FaultWeights } from './fault-plan.js';
import type { Range } from './random.js';

/** `90s`, `10m`, `1500ms`, or a bare number of seconds; returns milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (match === null) throw new TypeError(`not a duration: ${JSON.stringify(text)} (use e.g. 90s, 10m, 1500ms)`);
  const value = Number(match[1]);
  const unit = match[2] ?? 's';
  return Math.round(value * (unit === 'ms' ? 1 : unit === 's' ? 1000 : 60_000));
}

/** `2000-5000` (or a single `3000`) as a range of whole numbers. */
export function parseRange(text: string): Range {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  if (match === null) throw new TypeError(`not a range: ${JSON.stringify(text)} (use e.g. 2000-5000)`);
  const min = Number(match[1]);
  const max = Number(match[2] ?? match[1]);
  if (max < min) throw new TypeError(`range ${JSON.stringify(text)} ends before it starts`);
  return { min, max };
}

/**
 * `kill-worker=2,restart-redis=0.5`: weights of the named kinds; kinds not named keep their
 * weight from `base`. A plain list (`kill-gateway,stop-worker`) gives the listed kinds weight 1
 * and every other kind 0.
 */
export function parseWeights(text: string, base: FaultWeights): FaultWeights {
  const weights: Record<FaultKind, number> = { ...base };
  const items = text.split(',').map((item) => item.trim()).filter(Boolean);
  const isKind = (name: string): name is FaultKind => (FAULT_KINDS as readonly string[]).includes(name);
  if (items.every((item) => !item.includes('='))) {
    for (const kind of FAULT_KINDS) weights[kind] = 0;
    for (const item of items) {
      if (!isKind(item)) throw new TypeError(`unknown fault kind ${JSON.stringify(item)}; known: ${FAULT_KINDS.join(', ')}`);
      weights[item] = 1;
    }
    return weights;
  }
  for (const item of items) {
    const [name = '', value = ''] = item.split('=');
    if (!isKind(name)) throw new TypeError(`unknown fault kind ${JSON.stringify(name)}; known: ${FAULT_KINDS.join(', ')}`);
    const weight = Number(value);
    if (value === '' || !Number.isFinite(weight) || weight < 0) throw new TypeError(`weight of ${name} must be a number >= 0, got ${JSON.stringify(value)}`);
    weights[name] = weight;
  }
  return weights;
}
