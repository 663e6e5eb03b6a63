/**
 * The token-overflow circuit breaker of docs/spec/circuit-breakers.md#token-overflow: when the conversation no longer fits the
 * model's context, drop the oldest user/assistant exchanges and keep the system message, instead
 * of letting the model call fail.
 */

/** One message of a conversation. Only `role` and `content` matter to the trimmer. */
export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string;
}

/** Counts the tokens of one message. Plug in the model's tokenizer; the default is an estimate. */
export type TokenCounter = (message: ChatMessage) => number;

/**
 * A tokenizer-free estimate: one token per four characters, rounded up, plus four for the message
 * framing. Good enough to stay clear of a limit; use the real tokenizer when it matters.
 */
export const estimateTokens: TokenCounter = (message) => Math.ceil(message.content.length / 4) + 4;

/** Options of {@link trimHistory}. */
export interface TrimHistoryOptions {
  /** The largest total token count the trimmed history may have. */
  readonly budget: number;
  /** @defaultValue {@link estimateTokens} */
  readonly countTokens?: TokenCounter;
}

/** What {@link trimHistory} returns. */
export interface TrimmedHistory<M extends ChatMessage> {
  /** The history to send: the system messages and the newest exchanges that fit. */
  readonly messages: M[];
  /** How many messages were dropped; `> 0` means the `HISTORY_TRIMMED` breaker tripped. */
  readonly removed: number;
  /** Token total of `messages`. May still exceed the budget when nothing more can be dropped. */
  readonly tokens: number;
}

/**
 * Drops the oldest exchanges until the history fits `budget`. An exchange is a user message with
 * everything up to the next user message (the assistant's answer and tool results), so a reply is
 * never kept without the question it answers. System messages are always kept, and so is the
 * newest exchange: the model must see what it is answering, even if that alone is over budget.
 * Does not modify `history`.
 */
export function trimHistory<M extends ChatMessage>(history: readonly M[], options: TrimHistoryOptions): TrimmedHistory<M> {
  const count = options.countTokens ?? estimateTokens;
  const cost = history.map((message) => count(message));
  let tokens = cost.reduce((sum, n) => sum + n, 0);
  const dropped = new Set<number>();
  const exchanges = exchangeStarts(history);
  // The last exchange stays whatever it costs, hence `length - 1`.
  for (let e = 0; e < exchanges.length - 1 && tokens > options.budget; e++) {
    const end = exchanges[e + 1] ?? history.length;
    for (let i = exchanges[e] ?? 0; i < end; i++) {
      if (history[i]?.role === 'system') continue;
      dropped.add(i);
      tokens -= cost[i] ?? 0;
    }
  }
  return { messages: history.filter((_, i) => !dropped.has(i)), removed: dropped.size, tokens };
}

/** Indices where an exchange begins: each user message, and the first non-system message before any. */
function exchangeStarts(history: readonly ChatMessage[]): number[] {
  const starts: number[] = [];
  history.forEach((message, i) => {
    if (message.role === 'user' || (starts.length === 0 && message.role !== 'system')) starts.push(i);
  });
  return starts;
}
