/**
 * The part of the OpenAI HTTP API that serving benchmarks speak: the requests of `/v1/completions` and
 * `/v1/chat/completions` (with the `ignore_eos` / `min_tokens` extensions vLLM and llama.cpp's server honour),
 * their whole responses, the chunks of a streamed response (Server-Sent Events, `data: {json}` lines ended by
 * `data: [DONE]`), the `usage` block and the error body. One interface per record shape and one zod schema that
 * reads it, shared by the load generator (which reads responses) and `dantinox serve` (which reads requests).
 * Unknown fields are kept: servers add their own (`timings` from llama-server, `system_fingerprint`).
 *
 * @packageDocumentation
 */
import { z } from 'zod';

/** The two generation endpoints: `/v1/completions` and `/v1/chat/completions`. */
export type Endpoint = 'completions' | 'chat';

/** Every {@link Endpoint}, for flag validation. */
export const ENDPOINTS: readonly Endpoint[] = ['completions', 'chat'];

/** Path of each endpoint below the API's `/v1`. */
export const ENDPOINT_PATHS: Readonly<Record<Endpoint, string>> = {
  completions: '/completions',
  chat: '/chat/completions',
};

/** How the prompt's tokens were served (`usage.prompt_tokens_details`), in tokens. */
export interface PromptTokensDetails {
  /** Prompt tokens taken from the server's prefix cache instead of computed (vLLM, SGLang, OpenAI). */
  cached_tokens?: number | null | undefined;
}

/** What the generated tokens were (`usage.completion_tokens_details`), in tokens. */
export interface CompletionTokensDetails {
  /** Generated tokens spent reasoning (part of `completion_tokens`). */
  reasoning_tokens?: number | null | undefined;
}

/** Token counts a server reports for one request (`usage`), in tokens. */
export interface Usage {
  /** Tokens of the prompt. */
  prompt_tokens: number;
  /**
   * Tokens generated (reasoning tokens included). On a chunk of a stream with `continuous_usage_stats`, the tokens
   * generated so far.
   */
  completion_tokens: number;
  /** Prompt plus generated tokens, when the server sends it. */
  total_tokens?: number | undefined;
  /** How the prompt was served, when the server says. */
  prompt_tokens_details?: PromptTokensDetails | null | undefined;
  /** What was generated, when the server says. */
  completion_tokens_details?: CompletionTokensDetails | null | undefined;
}

/** The `stream_options` of a request. */
export interface StreamOptions {
  /** Ask for a last chunk that carries `usage`. */
  include_usage?: boolean | undefined;
  /**
   * vLLM and SGLang: put the running `usage` on every chunk too, so that each chunk's token count is the server's
   * (the difference of two chunks' `completion_tokens`).
   */
  continuous_usage_stats?: boolean | undefined;
}

/** Sampling and streaming options common to both completion endpoints; counts in tokens. */
export interface SamplingFields {
  /** The served model's name. */
  model?: string | undefined;
  /** Most tokens to generate. */
  max_tokens?: number | undefined;
  /** Sampling temperature; 0 is greedy. */
  temperature?: number | undefined;
  /** Nucleus sampling mass, in (0, 1]. */
  top_p?: number | undefined;
  /** Sampling seed. */
  seed?: number | undefined;
  /** Text that ends generation. */
  stop?: string | string[] | undefined;
  /** Stream the response as Server-Sent Events. */
  stream?: boolean | undefined;
  /** Streaming options: `include_usage` asks for a last chunk carrying `usage`. */
  stream_options?: StreamOptions | undefined;
  /** vLLM and llama.cpp's server: keep generating past the end-of-sequence token. */
  ignore_eos?: boolean | undefined;
  /** vLLM: generate at least this many tokens. */
  min_tokens?: number | undefined;
}

/** A `/v1/completions` request: the prompt as a text, texts, or token ids. */
export interface CompletionRequest extends SamplingFields {
  /** The prompt. */
  prompt: string | string[] | number[];
}

/** One message of a chat (content as a string; the parts form of multimodal APIs is not read). */
export interface ChatMessage {
  /** Who speaks. */
  role: 'system' | 'user' | 'assistant' | 'developer' | 'tool';
  /** What is said. */
  content: string;
}

/** A `/v1/chat/completions` request. */
export interface ChatCompletionRequest extends SamplingFields {
  /** The conversation so far. */
  messages: ChatMessage[];
  /** Newer name of `max_tokens`, in tokens. */
  max_completion_tokens?: number | undefined;
}

/** One choice of a whole `/v1/completions` response. */
export interface CompletionChoice {
  /** Which choice. */
  index: number;
  /** The generated text. */
  text: string;
  /** Why generation stopped (`length`, `stop`…), when known. */
  finish_reason?: string | null | undefined;
}

/**
 * The time a server says it spent on one request, in milliseconds, as llama.cpp's `llama-server` reports it
 * (`timings`, on a whole response and on the last streamed chunk). Other servers send none.
 */
export interface ServerTimings {
  /** Prompt tokens taken from the server's prompt cache (not computed). */
  cache_n?: number | undefined;
  /** Prompt tokens computed. */
  prompt_n?: number | undefined;
  /** Time computing the prompt (prefill), ms. */
  prompt_ms?: number | undefined;
  /** Tokens generated. */
  predicted_n?: number | undefined;
  /** Time generating them, ms. */
  predicted_ms?: number | undefined;
  /** `predicted_ms / predicted_n`, ms per token. */
  predicted_per_token_ms?: number | undefined;
}

/** A whole (non-streamed) `/v1/completions` response. */
export interface CompletionResponse {
  /** Response id. */
  id: string;
  /** Always `text_completion`. */
  object: 'text_completion';
  /** Creation time, in seconds since the Unix epoch. */
  created: number;
  /** The served model's name. */
  model: string;
  /** The generated texts. */
  choices: CompletionChoice[];
  /** Token counts. */
  usage?: Usage | undefined;
  /** The server's own timings, when it gives them. */
  timings?: ServerTimings | undefined;
}

/** The assistant's message in a whole chat response. */
export interface ChatResponseMessage {
  /** Always `assistant` from a conforming server. */
  role: string;
  /** The generated text. */
  content: string | null;
  /** A reasoning model's thinking, when the server parts it from the answer. */
  reasoning_content?: string | null | undefined;
  /** The same, under the name some servers use. */
  reasoning?: string | null | undefined;
}

/** One choice of a whole `/v1/chat/completions` response. */
export interface ChatChoice {
  /** Which choice. */
  index: number;
  /** The assistant's message. */
  message: ChatResponseMessage;
  /** Why generation stopped, when known. */
  finish_reason?: string | null | undefined;
}

/** A whole (non-streamed) `/v1/chat/completions` response. */
export interface ChatCompletionResponse {
  /** Response id. */
  id: string;
  /** Always `chat.completion`. */
  object: 'chat.completion';
  /** Creation time, in seconds since the Unix epoch. */
  created: number;
  /** The served model's name. */
  model: string;
  /** The generated messages. */
  choices: ChatChoice[];
  /** Token counts. */
  usage?: Usage | undefined;
  /** The server's own timings, when it gives them. */
  timings?: ServerTimings | undefined;
}

/** The new part of a chat message in a streamed chunk. */
export interface StreamDelta {
  /** The role, on the first chunk. */
  role?: string | undefined;
  /** The new text of the answer. */
  content?: string | null | undefined;
  /** The new text of a reasoning model's thinking (vLLM, SGLang, DeepSeek, llama-server). */
  reasoning_content?: string | null | undefined;
  /** The same, under the name some servers use (vLLM's newer parsers, Ollama, OpenRouter). */
  reasoning?: string | null | undefined;
}

/** One choice of a streamed chunk: `text` (completions) or `delta.content` (chat). */
export interface StreamChoice {
  /** Which choice. */
  index?: number | undefined;
  /** The new text (completions). */
  text?: string | undefined;
  /** The new text (chat); the first chunk may carry only the role. */
  delta?: StreamDelta | undefined;
  /** Why generation stopped, on the last chunk of the choice. */
  finish_reason?: string | null | undefined;
}

/**
 * One `data:` chunk of a streamed response, of either endpoint. With `stream_options.include_usage` the last
 * chunk before `[DONE]` has empty `choices` and the `usage`.
 */
export interface StreamChunk {
  /** Response id. */
  id?: string | undefined;
  /** `text_completion` or `chat.completion.chunk`. */
  object?: 'text_completion' | 'chat.completion.chunk' | undefined;
  /** Creation time, in seconds since the Unix epoch. */
  created?: number | undefined;
  /** The served model's name. */
  model?: string | undefined;
  /** The new text of each choice. */
  choices: StreamChoice[];
  /** Token counts, on the usage chunk. */
  usage?: Usage | null | undefined;
  /** The server's own timings, on its last chunk, when it gives them. */
  timings?: ServerTimings | undefined;
}

/** What an error body says. */
export interface ErrorDetail {
  /** What went wrong, for a person. */
  message: string;
  /** The error's kind (`invalid_request_error`, `server_error`…). */
  type?: string | undefined;
  /** A code, when the server gives one. */
  code?: string | number | null | undefined;
}

/** The error body of the OpenAI API (`{ "error": { "message", "type", "code" } }`), also sent as a stream chunk. */
export interface ErrorBody {
  /** What went wrong. */
  error: ErrorDetail;
}

/** The line that ends a streamed response. */
export const STREAM_DONE = '[DONE]';

const tokenCount = z.number().int().nonnegative();

/** Reads a {@link Usage}. */
export const UsageSchema: z.ZodType<Usage> = z.looseObject({
  prompt_tokens: tokenCount,
  completion_tokens: tokenCount,
  total_tokens: tokenCount.optional(),
  prompt_tokens_details: z
    .looseObject({ cached_tokens: tokenCount.nullable().optional() })
    .nullable()
    .optional(),
  completion_tokens_details: z
    .looseObject({ reasoning_tokens: tokenCount.nullable().optional() })
    .nullable()
    .optional(),
});

const samplingShape = {
  model: z.string().optional(),
  max_tokens: z.number().int().positive().optional(),
  temperature: z.number().nonnegative().optional(),
  top_p: z.number().positive().max(1).optional(),
  seed: z.number().int().optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  stream: z.boolean().optional(),
  stream_options: z
    .looseObject({
      include_usage: z.boolean().optional(),
      continuous_usage_stats: z.boolean().optional(),
    })
    .optional(),
  ignore_eos: z.boolean().optional(),
  min_tokens: z.number().int().nonnegative().optional(),
};

/** Reads a {@link CompletionRequest}. */
export const CompletionRequestSchema: z.ZodType<CompletionRequest> = z.looseObject({
  ...samplingShape,
  prompt: z.union([z.string(), z.array(z.string()).min(1), z.array(z.number().int().nonnegative()).min(1)]),
});

/** Reads a {@link ChatCompletionRequest}. */
export const ChatCompletionRequestSchema: z.ZodType<ChatCompletionRequest> = z.looseObject({
  ...samplingShape,
  messages: z
    .array(
      z.looseObject({
        role: z.enum(['system', 'user', 'assistant', 'developer', 'tool']),
        content: z.string(),
      }),
    )
    .min(1),
  max_completion_tokens: z.number().int().positive().optional(),
});

const finishReason = z.string().nullable().optional();

/** Reads {@link ServerTimings}; `undefined` fields (and unknown ones) are allowed. */
export const ServerTimingsSchema: z.ZodType<ServerTimings> = z.looseObject({
  cache_n: z.number().optional(),
  prompt_n: z.number().optional(),
  prompt_ms: z.number().optional(),
  predicted_n: z.number().optional(),
  predicted_ms: z.number().optional(),
  predicted_per_token_ms: z.number().optional(),
});

/** Reads a {@link CompletionResponse}. */
export const CompletionResponseSchema: z.ZodType<CompletionResponse> = z.looseObject({
  id: z.string(),
  object: z.literal('text_completion'),
  created: z.number(),
  model: z.string(),
  choices: z.array(z.looseObject({ index: z.number().int(), text: z.string(), finish_reason: finishReason })),
  usage: UsageSchema.optional(),
  timings: ServerTimingsSchema.optional(),
});

/** Reads a {@link ChatCompletionResponse}. */
export const ChatCompletionResponseSchema: z.ZodType<ChatCompletionResponse> = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number().int(),
      message: z.looseObject({
        role: z.string(),
        content: z.string().nullable(),
        reasoning_content: z.string().nullable().optional(),
        reasoning: z.string().nullable().optional(),
      }),
      finish_reason: finishReason,
    }),
  ),
  usage: UsageSchema.optional(),
  timings: ServerTimingsSchema.optional(),
});

/** Reads a {@link StreamChunk}. */
export const StreamChunkSchema: z.ZodType<StreamChunk> = z.looseObject({
  id: z.string().optional(),
  object: z.enum(['text_completion', 'chat.completion.chunk']).optional(),
  created: z.number().optional(),
  model: z.string().optional(),
  choices: z.array(
    z.looseObject({
      index: z.number().int().optional(),
      text: z.string().optional(),
      delta: z
        .looseObject({
          role: z.string().optional(),
          content: z.string().nullable().optional(),
          reasoning_content: z.string().nullable().optional(),
          reasoning: z.string().nullable().optional(),
        })
        .optional(),
      finish_reason: finishReason,
    }),
  ),
  usage: UsageSchema.nullable().optional(),
  timings: ServerTimingsSchema.optional(),
});

/** Reads an {@link ErrorBody}. */
export const ErrorBodySchema: z.ZodType<ErrorBody> = z.looseObject({
  error: z.looseObject({
    message: z.string(),
    type: z.string().optional(),
    code: z.union([z.string(), z.number()]).nullable().optional(),
  }),
});
