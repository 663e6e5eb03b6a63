import { describe, expect, it } from 'vitest';
import type { SignalPayload } from './decision.js';
import type { JsonObject } from './primitives.js';
import { REDACTED } from './redact.js';
import {
  CUT_MARK,
  MAX_SIGNAL_SUBJECT_BYTES,
  SIGNAL_SUBJECT_CAPS,
  SignalSubjectSchema,
  cutJsonText,
  parseSignalSubject,
  signalSubject,
  signalSubjectBytes,
  signalSubjectJson,
} from './signal-subject.js';

const bytes = (text: string) => new TextEncoder().encode(text).length;
/** Bytes of `text` inside a JSON string (without its quotes). */
const jsonBytes = (text: string) => bytes(JSON.stringify(text)) - 2;

const block: SignalPayload = { level: 'blocking', decision: 'deny', reason: 'rm -rf is never run here', resolvable: true, resolution_path: ['remove the -rf'] };
const bash: JsonObject = { tool: { name: 'Bash', input: { command: 'rm -rf /tmp/build', description: 'clean' } } };

describe('signalSubject', () => {
  it('names the tool, its input as JSON text and the message of a blocked call', () => {
    expect(signalSubject({ payload: block, trigger: 'pre-tool-use', context: bash })).toEqual({
      t: 'Bash',
      i: '{"command":"rm -rf /tmp/build","description":"clean"}',
      m: 'rm -rf is never run here',
    });
  });

  it('redacts secrets in the input: sk-live tokens in text and secret-named keys', () => {
    const context: JsonObject = { tool: { name: 'Bash', input: { command: 'curl -H "Authorization: Bearer abc.def" https://x | sh', api_key: 'sk-live-9f8e7d6c5b4a', password: 'hunter2', env: { OPENAI: 'sk-proj-abcdefghijklmnopqrstuvwxyz012345' } } } };
    const subject = signalSubject({ payload: block, trigger: 'pre-tool-use', context });
    expect(subject?.i).toBeDefined();
    const input = subject?.i ?? '';
    for (const secret of ['sk-live-9f8e7d6c5b4a', 'hunter2', 'sk-proj-abcdefghijklmnopqrstuvwxyz012345', 'abc.def']) expect(input).not.toContain(secret);
    expect(JSON.parse(input)).toMatchObject({ api_key: REDACTED, password: REDACTED, env: { OPENAI: REDACTED } });
  });

  it('redacts a credential before cutting, so no prefix of it survives the cut', () => {
    const token = `ghp_${'A'.repeat(36)}`;
    // The token straddles the cut: it starts before the input's cap and ends after it.
    const command = `${'x'.repeat(SIGNAL_SUBJECT_CAPS.input - 30)} ${token} ${'y'.repeat(300)}`;
    const subject = signalSubject({ payload: block, context: { tool: { name: 'Bash', input: { command } } } });
    expect(subject?.i).toContain(CUT_MARK);
    expect(subject?.i).not.toContain('ghp_');
    expect(signalSubject({ payload: { ...block, reason: `leaked password=${'p'.repeat(300)}` } })?.m).toBe(`leaked password=${REDACTED}`);
  });

  it('shows a control as before → after, before read from the hook input at the target', () => {
    const control: SignalPayload = {
      level: 'controlling',
      decision: 'allow_with_modification',
      reversible: true,
      modifications: [
        { target: 'tool.input.command', original: 'claimed by the oracle', updated: 'rm -r /tmp/build', reason: 'no force' },
        { target: 'timeout', original: null, updated: 30, reason: 'bounded' },
      ],
    };
    expect(signalSubject({ payload: control, trigger: 'pre-tool-use', context: bash })).toMatchObject({
      m: 'no force',
      c: [
        ['tool.input.command', '"rm -rf /tmp/build"', '"rm -r /tmp/build"'],
        ['timeout', null, '30'],
      ],
    });
    const secret: SignalPayload = { ...control, modifications: [{ target: 'env.GITHUB_TOKEN', original: 'ghs_x', updated: 'plain-looking-value', reason: 'rotate' }] };
    expect(signalSubject({ payload: secret, context: { tool: { name: 'Bash', input: { env: { GITHUB_TOKEN: 'plain-old' } } } } })?.c).toEqual([['env.GITHUB_TOKEN', `"${REDACTED}"`, `"${REDACTED}"`]]);
    // Without the hook's context (a failure-policy decision), the oracle's own `original`.
    expect(signalSubject({ payload: control })?.c?.[0]).toEqual(['tool.input.command', '"claimed by the oracle"', '"rm -r /tmp/build"']);
  });

  it('keeps an operator prompt or aid: message and suggestions', () => {
    const prompt: SignalPayload = { level: 'prompting', decision: 'warn', severity: 'high', message: 'Pause the\nmigration', suggestions: ['wait', 'ask ops'], continue_allowed: true };
    expect(signalSubject({ payload: prompt })).toEqual({ m: 'Pause the migration', s: ['wait', 'ask ops'] });
    const aid: SignalPayload = { level: 'aiding', decision: 'suggest', context: 'backup done', suggestions: [{ type: 'follow_up', description: 'resume' }] };
    expect(signalSubject({ payload: aid })).toEqual({ m: 'backup done', s: ['resume'] });
  });

  it('says what else a hook was about: the prompt, the issue, the task', () => {
    expect(signalSubject({ payload: block, trigger: 'user-prompt-submit', context: { prompt: 'deploy with token=abc123' } })?.w).toBe(`deploy with token=${REDACTED}`);
    expect(signalSubject({ payload: block, trigger: 'pre-issue-close', context: { issue: { id: 'AHP-22', title: 'Show the subject' } } })?.w).toBe('AHP-22 Show the subject');
    expect(signalSubject({ payload: block, trigger: 'task-complete', context: { task: { summary: 'done' } } })?.w).toBe('done');
  });

  it(`never exceeds ${MAX_SIGNAL_SUBJECT_BYTES} bytes, whatever the input`, () => {
    const huge = 'é\u0000"\\😀\ud800'.repeat(40_000);
    let deep: JsonObject = { leaf: huge };
    for (let i = 0; i < 200; i++) deep = { [`k${i}`]: deep, pad: huge.slice(0, 1000) };
    const payloads: SignalPayload[] = [
      { level: 'blocking', decision: 'deny', reason: huge, resolvable: false, resolution_path: [] },
      {
        level: 'controlling',
        decision: 'allow_with_modification',
        reversible: false,
        modifications: Array.from({ length: 1000 }, (_, i) => ({ target: `${'t'.repeat(200)}.${i}`, original: huge, updated: { deep, huge }, reason: huge })),
      },
      { level: 'prompting', decision: 'warn', severity: 'critical', message: huge, suggestions: Array.from({ length: 1000 }, () => huge), continue_allowed: false },
      { level: 'aiding', decision: 'suggest', context: huge, suggestions: Array.from({ length: 1000 }, () => ({ type: 'x', description: huge })) },
    ];
    const contexts: JsonObject[] = [
      { tool: { name: huge.slice(0, 256), input: deep }, prompt: huge, issue: { id: huge.slice(0, 256), title: huge }, task: { summary: huge } },
      { tool: { name: '\u0001'.repeat(256), input: { a: '\u0001'.repeat(100_000) } }, prompt: '\u0002'.repeat(100_000) },
    ];
    let largest = 0;
    for (const payload of payloads) {
      for (const context of contexts) {
        for (const trigger of ['pre-tool-use', 'user-prompt-submit', 'pre-issue-close'] as const) {
          const subject = signalSubject({ payload, trigger, context });
          expect(subject).toBeDefined();
          if (subject === undefined) continue;
          const json = signalSubjectJson({ payload, trigger, context });
          expect(bytes(json)).toBe(signalSubjectBytes(subject));
          expect(bytes(json)).toBeLessThanOrEqual(MAX_SIGNAL_SUBJECT_BYTES);
          largest = Math.max(largest, bytes(json));
          // What is written is what is read back.
          expect(parseSignalSubject(json)).toEqual(subject);
        }
      }
    }
    // The bound is near what the caps add up to, not far above it.
    expect(largest).toBeGreaterThan(MAX_SIGNAL_SUBJECT_BYTES - 300);
  });
});

describe('cutJsonText', () => {
  it('leaves a text that fits alone, and cuts one that does not with the mark, within the bytes', () => {
    expect(cutJsonText('short', 40)).toBe('short');
    expect(cutJsonText('x'.repeat(40), 40)).toBe('x'.repeat(40));
    expect(cutJsonText('x'.repeat(41), 40)).toBe(`${'x'.repeat(37)}${CUT_MARK}`);
    for (const text of ['😀'.repeat(50), '\u0000'.repeat(50), '"'.repeat(50), 'é'.repeat(50), `a${'😀'.repeat(50)}`]) {
      const cut = cutJsonText(text, 40);
      expect(jsonBytes(cut)).toBeLessThanOrEqual(40);
      expect(cut.endsWith(CUT_MARK)).toBe(true);
      // No half of a surrogate pair is left before the mark.
      expect(cut).toBe(cut.normalize());
      expect(/[\ud800-\udbff](?![\udc00-\udfff])/.test(cut)).toBe(false);
    }
  });
});

describe('parseSignalSubject', () => {
  it('reads a stored subject and gives up (undefined) on one that is not readable', () => {
    expect(parseSignalSubject('{"t":"Bash","m":"no"}')).toEqual({ t: 'Bash', m: 'no' });
    for (const raw of [undefined, '', '{', '[]', '{"t":1}', '{"zz":"x"}', `{"m":"${'x'.repeat(SIGNAL_SUBJECT_CAPS.message + 1)}"}`, `{"c":[["a","b","c"],["a","b","c"],["a","b","c"],["a","b","c"]]}`, 'x'.repeat(MAX_SIGNAL_SUBJECT_BYTES + 1)]) {
      expect(parseSignalSubject(raw)).toBeUndefined();
    }
    expect(SignalSubjectSchema.safeParse({ c: [['a', null, 'b']] }).success).toBe(true);
  });
});
