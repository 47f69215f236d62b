/**
 * `requestBody`: the OpenAI request a work item (or a conversation's turn) becomes — exact output lengths when asked
 * (`max_tokens` = `min_tokens`, `ignore_eos`), greedy, streamed with `usage` — with the conversation so far before
 * the new message.
 *
 * @packageDocumentation
 */
import type { ChatCompletionRequest, ChatMessage, CompletionRequest, Endpoint } from '../openai-protocol.js';
import type { WorkTurn } from './workload.js';

/** How every request of a load is asked. */
export interface RequestBodyOptions {
  /** The served model's name (`model` field). */
  readonly model?: string | undefined;
  /** Stream the response (SSE, with `stream_options.include_usage`). */
  readonly stream: boolean;
  /** Ask for exactly the output length: `min_tokens` = `max_tokens` and `ignore_eos: true`. */
  readonly exactLengths: boolean;
  /** Ask for a running usage on every chunk (`stream_options.continuous_usage_stats`). @default false */
  readonly continuousUsage?: boolean | undefined;
}

/**
 * The request body of one message (`item.prompt`), after `history` (the conversation's earlier messages and
 * answers, in order): the chat endpoint gets them as messages, the completions endpoint as one prompt, messages
 * separated by a blank line.
 */
export function requestBody(
  item: Pick<WorkTurn, 'prompt' | 'outputTokens'>,
  endpoint: Endpoint,
  options: RequestBodyOptions,
  history: readonly ChatMessage[] = [],
): CompletionRequest | ChatCompletionRequest {
  const streamOptions = {
    include_usage: true,
    ...(options.continuousUsage === true ? { continuous_usage_stats: true } : {}),
  };
  const common = {
    ...(options.model === undefined ? {} : { model: options.model }),
    max_tokens: item.outputTokens,
    temperature: 0,
    stream: options.stream,
    ...(options.stream ? { stream_options: streamOptions } : {}),
    ...(options.exactLengths ? { ignore_eos: true, min_tokens: item.outputTokens } : {}),
  };
  return endpoint === 'chat'
    ? { ...common, messages: [...history, { role: 'user', content: item.prompt }] }
    : { ...common, prompt: [...history.map((m) => m.content), item.prompt].join('\n\n') };
}
