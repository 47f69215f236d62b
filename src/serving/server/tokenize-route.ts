/**
 * `POST /tokenize` and `POST /detokenize` of `dantinox serve`, in the shape of vLLM's (which SGLang shares) and
 * accepting llama.cpp's `llama-server` field names too: the served model's tokenizer, for clients that count tokens
 * the server's way (`dantinox load` checks its own tokenizer against it).
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { messages } from '../../messages.js';
import { type ApiFailure, badRequest, notFound } from './api-failure.js';
import type { ServedModel } from './generation-request.js';

/** A `/tokenize` body: the text as vLLM's `prompt` or llama-server's `content`; the model name, when given, checked. */
const TokenizeRequestSchema = z.looseObject({
  model: z.string().optional(),
  prompt: z.string().optional(),
  content: z.string().optional(),
});

/** A `/detokenize` body: the token ids. */
const DetokenizeRequestSchema = z.looseObject({
  model: z.string().optional(),
  tokens: z.array(z.number().int().nonnegative()),
});

/** The answer of a tokenize route: a JSON body, or a failure. */
export type TokenizeAnswer = { readonly body: unknown } | ApiFailure;

const checkModel = (model: string | undefined, served: string): ApiFailure | undefined =>
  model === undefined || model === served
    ? undefined
    : notFound(messages.serveUnknownModel(model, served), 'model', 'model_not_found');

/** `POST /tokenize`: `{"count", "max_model_len", "tokens"}` of the text (no special token is added). */
export function tokenizeRoute(body: unknown, target: ServedModel): TokenizeAnswer {
  const parsed = TokenizeRequestSchema.safeParse(body);
  const text = parsed.success ? (parsed.data.prompt ?? parsed.data.content) : undefined;
  if (!parsed.success || text === undefined)
    return badRequest(
      messages.serveInvalidField('prompt', 'must be a string (or "content", as llama-server takes)'),
      'prompt',
    );
  const wrong = checkModel(parsed.data.model, target.name);
  if (wrong !== undefined) return wrong;
  const tokens = target.tokenizer.encode(text);
  return { body: { count: tokens.length, max_model_len: target.maxContext, tokens } };
}

/** `POST /detokenize`: `{"prompt"}`, the text of the token ids (llama-server's `content` too). */
export function detokenizeRoute(body: unknown, target: ServedModel): TokenizeAnswer {
  const parsed = DetokenizeRequestSchema.safeParse(body);
  if (!parsed.success)
    return badRequest(messages.serveInvalidField('tokens', 'must be an array of token ids'), 'tokens');
  const wrong = checkModel(parsed.data.model, target.name);
  if (wrong !== undefined) return wrong;
  const bad = parsed.data.tokens.find((id) => id >= target.vocabSize);
  if (bad !== undefined)
    return badRequest(messages.serveTokenOutOfRange(bad, target.vocabSize, 'tokens'), 'tokens');
  const text = target.tokenizer.decode(parsed.data.tokens);
  return { body: { prompt: text, content: text } };
}
