/**
 * `probeContinuousUsage`: whether a server puts its running `usage` on every streamed chunk when asked
 * (`stream_options.continuous_usage_stats`, vLLM and SGLang), found with one short request before a load. With it,
 * each chunk's token count is the server's; a server that rejects the option (an HTTP 4xx) or ignores it is not
 * asked during the load.
 *
 * @packageDocumentation
 */
import type { ChatCompletionRequest, CompletionRequest } from '../openai-protocol.js';
import type { OpenAiClient } from './openai-client.js';
import { readExchange } from './read-exchange.js';

/** Output tokens of the probe request. */
export const PROBE_TOKENS = 4;

/**
 * Sends `body` once, streamed, with at most {@link PROBE_TOKENS} output tokens and `continuous_usage_stats`, and
 * says whether a chunk that carried text also carried the running `usage`.
 */
export async function probeContinuousUsage(
  client: Pick<OpenAiClient, 'send' | 'endpoint'>,
  body: CompletionRequest | ChatCompletionRequest,
  signal?: AbortSignal,
): Promise<boolean> {
  const raw = await client.send(
    {
      ...body,
      max_tokens: PROBE_TOKENS,
      ...(body.min_tokens === undefined ? {} : { min_tokens: PROBE_TOKENS }),
      stream: true,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    },
    signal,
  );
  const read = readExchange(raw, client.endpoint, true);
  return read.status === 'ok' && read.pieces.some((p) => p.serverTokensSoFar !== undefined);
}
