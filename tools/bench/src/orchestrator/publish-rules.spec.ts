import { describe, expect, it } from 'vitest';
import { workerConfigVersion } from './publish-rules.js';

const ready = (fields: Record<string, unknown>) => JSON.stringify({ time: 't', level: 'info', msg: 'oracle worker ready', ...fields });

describe('the configuration version a worker reports', () => {
  it('is read from its ready log line', () => {
    expect(workerConfigVersion(['{"msg":"connecting"}', ready({ configVersion: 3 })])).toBe(3);
  });

  it('is null when the line names no version (a worker running its built-in defaults)', () => {
    expect(workerConfigVersion([ready({ configVersion: null })])).toBeNull();
    expect(workerConfigVersion([ready({})])).toBeNull();
  });

  it('is undefined until the line was seen', () => {
    expect(workerConfigVersion(['{"msg":"starting"}'])).toBeUndefined();
  });
});
