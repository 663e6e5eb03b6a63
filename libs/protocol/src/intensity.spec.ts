import { describe, expect, it } from 'vitest';
import {
  DECISION_LEVELS,
  DecisionLevelSchema,
  INTENSITIES,
  IntensitySchema,
  compareIntensity,
  intensityForLevel,
  isStrongerThan,
  levelForIntensity,
  strongestIntensity,
  type Intensity,
} from './intensity.js';

describe('IntensitySchema', () => {
  it('accepts the four intensities', () => {
    for (const i of ['block', 'control', 'prompt', 'aid']) expect(IntensitySchema.parse(i)).toBe(i);
  });

  it('rejects other spellings with invalid_value listing the options', () => {
    for (const bad of ['Block', 'blocking', 'allow', '', 3, null]) {
      const result = IntensitySchema.safeParse(bad);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.code).toBe('invalid_value');
    }
    expect(IntensitySchema.safeParse('allow').error?.issues[0]?.message).toContain('"block"');
  });
});

describe('spectrum order (docs/spec/spectrum-and-signals.md#spectrum: B ≺ C ≺ P ≺ A)', () => {
  it('lists intensities strongest first', () => {
    expect(INTENSITIES).toEqual(['block', 'control', 'prompt', 'aid']);
  });

  it('compareIntensity is negative when the first is stronger', () => {
    expect(compareIntensity('block', 'control')).toBeLessThan(0);
    expect(compareIntensity('aid', 'prompt')).toBeGreaterThan(0);
    expect(compareIntensity('prompt', 'prompt')).toBe(0);
  });

  it('sorting with compareIntensity puts the strongest first', () => {
    const mixed: Intensity[] = ['aid', 'prompt', 'block', 'aid', 'control'];
    expect([...mixed].sort(compareIntensity)).toEqual(['block', 'control', 'prompt', 'aid', 'aid']);
  });

  it('isStrongerThan is strict', () => {
    expect(isStrongerThan('block', 'aid')).toBe(true);
    expect(isStrongerThan('aid', 'block')).toBe(false);
    expect(isStrongerThan('control', 'control')).toBe(false);
  });

  it('strongestIntensity picks the most binding and returns null for nothing', () => {
    expect(strongestIntensity(['aid', 'prompt', 'control'])).toBe('control');
    expect(strongestIntensity(['aid', 'block', 'prompt'])).toBe('block');
    expect(strongestIntensity(['aid'])).toBe('aid');
    expect(strongestIntensity([])).toBeNull();
    expect(strongestIntensity(new Set<Intensity>(['prompt', 'aid']))).toBe('prompt');
  });
});

describe('decision levels', () => {
  it('maps each intensity to its level and back', () => {
    expect(INTENSITIES.map(levelForIntensity)).toEqual(['blocking', 'controlling', 'prompting', 'aiding']);
    expect(DECISION_LEVELS.map(intensityForLevel)).toEqual([...INTENSITIES]);
    for (const i of INTENSITIES) expect(intensityForLevel(levelForIntensity(i))).toBe(i);
  });

  it('DecisionLevelSchema rejects intensity names', () => {
    expect(DecisionLevelSchema.parse('aiding')).toBe('aiding');
    expect(DecisionLevelSchema.safeParse('aid').error?.issues[0]).toMatchObject({ code: 'invalid_value', path: [] });
  });
});
