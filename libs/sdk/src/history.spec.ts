import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './history.js';
import { estimateTokens, trimHistory } from './history.js';

/** Every message costs its length, so budgets in the tests read as character counts. */
const byLength = (message: ChatMessage) => message.content.length;

const system: ChatMessage = { role: 'system', content: 'sys' };
const exchange = (n: number): ChatMessage[] => [
  { role: 'user', content: `u${n}` },
  { role: 'assistant', content: `a${n}` },
];

describe('trimHistory', () => {
  it('keeps a history that fits', () => {
    const history = [system, ...exchange(1)];
    const result = trimHistory(history, { budget: 100, countTokens: byLength });
    expect(result).toEqual({ messages: history, removed: 0, tokens: 7 });
  });

  it('drops the oldest user/assistant pairs and keeps the system message', () => {
    const history = [system, ...exchange(1), ...exchange(2), ...exchange(3)];
    const result = trimHistory(history, { budget: 11, countTokens: byLength });
    expect(result.messages.map((m) => m.content)).toEqual(['sys', 'u2', 'a2', 'u3', 'a3']);
    expect(result.removed).toBe(2);
    expect(result.tokens).toBe(11);
  });

  it('drops tool results together with the exchange they belong to', () => {
    const history: ChatMessage[] = [system, ...exchange(1), { role: 'tool', content: 'tool-output' }, ...exchange(2)];
    const result = trimHistory(history, { budget: 10, countTokens: byLength });
    expect(result.messages.map((m) => m.content)).toEqual(['sys', 'u2', 'a2']);
    expect(result.removed).toBe(3);
  });

  it('keeps the newest exchange even when it alone is over budget', () => {
    const history = [system, ...exchange(1), { role: 'user', content: 'x'.repeat(50) } as ChatMessage];
    const result = trimHistory(history, { budget: 10, countTokens: byLength });
    expect(result.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(result.tokens).toBe(53);
  });

  it('does not modify its input and estimates tokens by default', () => {
    const history = [system, ...exchange(1), ...exchange(2)];
    const copy = [...history];
    const result = trimHistory(history, { budget: 3 * estimateTokens(system) });
    expect(history).toEqual(copy);
    expect(result.messages.map((m) => m.content)).toEqual(['sys', 'u2', 'a2']);
  });
});
