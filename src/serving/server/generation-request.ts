/**
 * Reads a `/v1/completions` or `/v1/chat/completions` body into what the scheduler runs: the prompt's token ids
 * (chat messages through {@link renderChatPrompt}), the token limits and the sampling options, checked against
 * the model's context and vocabulary. A bad request is an {@link ApiFailure} naming the field, never a throw.
 *
 * @packageDocumentation
 */
import type { z } from 'zod';
import { messages } from '../../messages.js';
import type { Tokenizer } from '../../models/tokenizer.js';
import {
  type ChatCompletionRequest,
  ChatCompletionRequestSchema,
  type CompletionRequest,
  CompletionRequestSchema,
  type Endpoint,
} from '../openai-protocol.js';
import { type ApiFailure, badRequest, notFound } from './api-failure.js';
import { renderChatPrompt } from './chat-prompt.js';

/** A checked generation request. */
export interface GenerationRequest {
  /** The endpoint. */
  readonly endpoint: Endpoint;
  /** The prompt's token ids. */
  readonly promptIds: readonly number[];
  /** Most tokens to generate. */
  readonly maxTokens: number;
  /** Tokens to generate before the end-of-sequence token may end generation. */
  readonly minTokens: number;
  /** Sampling temperature; 0 is greedy. */
  readonly temperature: number;
  /** Nucleus mass. */
  readonly topP: number;
  /** The request's seed, when it gave one. */
  readonly seed: number | undefined;
  /** Whether to keep generating past the end-of-sequence token. */
  readonly ignoreEos: boolean;
  /** Texts that end generation. */
  readonly stops: readonly string[];
  /** Whether to stream Server-Sent Events. */
  readonly stream: boolean;
  /** Whether a streamed response ends with a `usage` chunk. */
  readonly includeUsage: boolean;
}

/** What the checks need to know about the served model. */
export interface ServedModel {
  /** The name clients pass as `model`. */
  readonly name: string;
  /** The tokenizer of prompts and generated text. */
  readonly tokenizer: Tokenizer;
  /** Ids the model takes: prompt ids must be below it. */
  readonly vocabSize: number;
  /** Context length, in tokens: prompt plus generated tokens fit in it. */
  readonly maxContext: number;
}

/** The default temperature when a request gives none (OpenAI's default). */
export const DEFAULT_TEMPERATURE = 1;

function fieldFailure(error: z.ZodError): ApiFailure {
  const issue = error.issues[0];
  const field = issue === undefined ? '' : issue.path.map(String).join('.');
  return badRequest(messages.serveInvalidField(field, issue?.message ?? 'invalid'), field);
}

/** The prompt ids of a `/v1/completions` prompt, or why it cannot be read. */
function completionPromptIds(prompt: CompletionRequest['prompt'], model: ServedModel): number[] | ApiFailure {
  if (typeof prompt === 'string') return model.tokenizer.encode(prompt);
  if (prompt.length > 1 && typeof prompt[0] === 'string')
    return badRequest(
      messages.serveUnsupportedField('prompt', `${prompt.length} prompts`, 'one prompt per request'),
      'prompt',
    );
  if (typeof prompt[0] === 'string') return model.tokenizer.encode(prompt[0]);
  const ids = prompt as number[];
  const bad = ids.find((id) => id >= model.vocabSize);
  return bad === undefined
    ? [...ids]
    : badRequest(messages.serveTokenOutOfRange(bad, model.vocabSize), 'prompt');
}

/** Reads and checks a request body of `endpoint`. */
export function readGenerationRequest(
  endpoint: Endpoint,
  body: unknown,
  model: ServedModel,
): GenerationRequest | ApiFailure {
  const parsed =
    endpoint === 'chat'
      ? ChatCompletionRequestSchema.safeParse(body)
      : CompletionRequestSchema.safeParse(body);
  if (!parsed.success) return fieldFailure(parsed.error);
  const request: CompletionRequest | ChatCompletionRequest = parsed.data;
  if (request.model !== undefined && request.model !== model.name)
    return notFound(messages.serveUnknownModel(request.model, model.name), 'model', 'model_not_found');
  const n = (request as { n?: unknown }).n;
  if (n !== undefined && n !== 1) return badRequest(messages.serveUnsupportedField('n', n, '1'), 'n');
  const promptIds =
    endpoint === 'chat'
      ? model.tokenizer.encode(renderChatPrompt((request as ChatCompletionRequest).messages))
      : completionPromptIds((request as CompletionRequest).prompt, model);
  if (!Array.isArray(promptIds)) return promptIds;
  if (promptIds.length === 0)
    return badRequest(messages.serveEmptyPrompt(), endpoint === 'chat' ? 'messages' : 'prompt');
  if (promptIds.length >= model.maxContext)
    return badRequest(
      messages.servePromptTooLong(promptIds.length, model.maxContext),
      endpoint === 'chat' ? 'messages' : 'prompt',
    );
  const limitField =
    endpoint === 'chat' && (request as ChatCompletionRequest).max_completion_tokens !== undefined
      ? 'max_completion_tokens'
      : 'max_tokens';
  const asked =
    limitField === 'max_completion_tokens'
      ? (request as ChatCompletionRequest).max_completion_tokens
      : request.max_tokens;
  const room = model.maxContext - promptIds.length;
  if (asked !== undefined && asked > room)
    return badRequest(
      messages.serveMaxTokensTooLarge(limitField, asked, promptIds.length, model.maxContext),
      limitField,
    );
  const maxTokens = asked ?? room;
  const minTokens = request.min_tokens ?? 0;
  if (minTokens > maxTokens) return badRequest(messages.serveMinAboveMax(minTokens, maxTokens), 'min_tokens');
  const stop = request.stop;
  return {
    endpoint,
    promptIds,
    maxTokens,
    minTokens,
    temperature: request.temperature ?? DEFAULT_TEMPERATURE,
    topP: request.top_p ?? 1,
    seed: request.seed,
    ignoreEos: request.ignore_eos === true,
    stops: stop === undefined ? [] : typeof stop === 'string' ? [stop] : stop,
    stream: request.stream === true,
    includeUsage: request.stream_options?.include_usage === true,
  };
}
