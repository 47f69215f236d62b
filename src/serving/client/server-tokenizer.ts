/**
 * The server's own tokenizer, through its `/tokenize` endpoint (vLLM, SGLang and llama.cpp's `llama-server` have
 * one; so does `dantinox serve`): whether the client's tokenizer is the server's, and, when it is not, the server's
 * count of a text's tokens — so that a response without `usage` is still counted by the server.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import type { Tokenizer } from '../../models/tokenizer.js';
import type { OpenAiClient } from './openai-client.js';

/**
 * A sample that tells BPE vocabularies apart: common words, a rare one, punctuation, digits, a contraction, a
 * line break and repeated short pieces (` tok tok`, which GPT-2 splits in two tokens each).
 */
export const TOKENIZER_PROBE_TEXT =
  "The jury said it didn't find 1,247 irregularities in Fulton County's 1961 election;\n tok tok tok, quizzically.";

/** What `/tokenize` answers: token ids (vLLM, SGLang, llama-server; pieces too with `with_pieces`) and a count. */
const TokenizeAnswerSchema = z.looseObject({
  tokens: z.array(z.union([z.number(), z.looseObject({ id: z.number() })])).optional(),
  count: z.number().int().nonnegative().optional(),
});

/** The server's tokenization of a text: its ids when it gave them, and their count. */
export interface ServerTokens {
  /** Token ids, when the server listed them. */
  readonly ids?: readonly number[];
  /** Number of tokens. */
  readonly count: number;
}

/**
 * Asks the server to tokenize `text` without special tokens (the body carries both vLLM's `prompt` and
 * llama-server's `content`): at the server's root (`/tokenize`), then under the API's path (`/v1/tokenize`).
 * `undefined` when neither answers.
 */
export async function serverTokenize(
  client: Pick<OpenAiClient, 'postJson' | 'url'>,
  text: string,
  model?: string,
): Promise<ServerTokens | undefined> {
  const body = {
    ...(model === undefined ? {} : { model }),
    prompt: text,
    content: text,
    add_special_tokens: false,
    add_special: false,
  };
  const api = client.url.pathname.replace(/\/(chat\/)?completions$/, '');
  for (const path of ['/tokenize', `${api}/tokenize`]) {
    const parsed = TokenizeAnswerSchema.safeParse(await client.postJson(path, body));
    if (!parsed.success || (parsed.data.tokens === undefined && parsed.data.count === undefined)) continue;
    const ids = parsed.data.tokens?.map((t) => (typeof t === 'number' ? t : t.id));
    return { ...(ids === undefined ? {} : { ids }), count: parsed.data.count ?? ids?.length ?? 0 };
  }
  return undefined;
}

/** How the client's tokenizer compares with the server's: a union on `status`. */
export type TokenizerCheck =
  | {
      /** The server has no `/tokenize` that answers. */
      readonly status: 'unavailable';
    }
  | {
      /** The server tokenized the probe text exactly as the client's tokenizer did. */
      readonly status: 'matches';
    }
  | {
      /** It did not: `count` asks the server for a text's token count. */
      readonly status: 'differs';
      /** The server's tokens of the probe text. */
      readonly server: number;
      /** The client's tokens of the probe text. */
      readonly client: number;
      /** The server's count of `text`'s tokens; `undefined` when it could not say. */
      readonly count: (text: string) => Promise<number | undefined>;
    };

/** Compares the client's tokenizer with the server's on {@link TOKENIZER_PROBE_TEXT}. */
export async function checkServerTokenizer(
  client: Pick<OpenAiClient, 'postJson' | 'url'>,
  local: Pick<Tokenizer, 'encode'>,
  model?: string,
): Promise<TokenizerCheck> {
  const server = await serverTokenize(client, TOKENIZER_PROBE_TEXT, model);
  if (server === undefined) return { status: 'unavailable' };
  const ids = local.encode(TOKENIZER_PROBE_TEXT);
  const same =
    server.ids === undefined
      ? server.count === ids.length
      : server.ids.length === ids.length && server.ids.every((id, i) => id === ids[i]);
  if (same) return { status: 'matches' };
  return {
    status: 'differs',
    server: server.count,
    client: ids.length,
    count: async (text) => (await serverTokenize(client, text, model))?.count,
  };
}
