/**
 * GGUF tokenizer metadata (`tokenizer.ggml.*`) from a Hugging Face `tokenizer.json` with a byte-level BPE model:
 * the built-in vocabularies (GPT-2's BPE and the byte-level one, written by `hf-tokenizer-json.ts`) and users'
 * GPT-2-style tokenizers.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { GgufValue } from './gguf-writer.js';

/** llama.cpp token types (`tokenizer.ggml.token_type`). */
const TOKEN_TYPE = { normal: 1, control: 3, unused: 5 } as const;

interface AddedToken {
  readonly id: number;
  readonly content: string;
  readonly special?: boolean;
}

function unsupported(problem: string): DantinoxError {
  return new DantinoxError('UNSUPPORTED', messages.ggufTokenizer(problem));
}

/**
 * The `tokenizer.ggml.*` entries for `tokenizerJson` and a model of `vocabSize` ids: model `gpt2` with the
 * GPT-2 pre-tokenizer, one token string per id (ids the tokenizer lacks are filled with `[PAD<id>]` of type
 * unused), token types (added special tokens are control tokens), the merges in rank order, and
 * `<|endoftext|>` (or the only special token) as BOS/EOS when there is one.
 *
 * @throws {@link dantinox!DantinoxError} `UNSUPPORTED` for a tokenizer llama.cpp's `gpt2` tokenizer cannot reproduce (not
 * a byte-level BPE) or one with more ids than the model.
 */
export function ggufTokenizerMetadata(
  tokenizerJson: Record<string, unknown>,
  vocabSize: number,
): Map<string, GgufValue> {
  const model = tokenizerJson['model'] as Record<string, unknown> | undefined;
  const pre = tokenizerJson['pre_tokenizer'] as Record<string, unknown> | null | undefined;
  if (model?.['type'] !== 'BPE' || pre?.['type'] !== 'ByteLevel') {
    throw unsupported(
      `model type ${JSON.stringify(model?.['type'])} with pre-tokenizer ${JSON.stringify(pre?.['type'])}; only byte-level BPE (GPT-2 style) is written`,
    );
  }
  const vocab = (model['vocab'] ?? {}) as Record<string, number>;
  const tokens = new Array<string | undefined>(vocabSize);
  const types = new Int32Array(vocabSize).fill(TOKEN_TYPE.normal);
  const place = (text: string, id: number, type: number): void => {
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize) {
      throw unsupported(`token ${JSON.stringify(text)} has id ${id}, outside the model's ${vocabSize} ids`);
    }
    tokens[id] = text;
    types[id] = type;
  };
  for (const [text, id] of Object.entries(vocab)) place(text, id, TOKEN_TYPE.normal);
  const specials: AddedToken[] = [];
  for (const t of (tokenizerJson['added_tokens'] ?? []) as AddedToken[]) {
    place(t.content, t.id, t.special === true ? TOKEN_TYPE.control : TOKEN_TYPE.normal);
    if (t.special === true) specials.push(t);
  }
  for (let id = 0; id < vocabSize; id++) {
    if (tokens[id] === undefined) {
      tokens[id] = `[PAD${id}]`;
      types[id] = TOKEN_TYPE.unused;
    }
  }
  const merges = ((model['merges'] ?? []) as (string | [string, string])[]).map((m) =>
    typeof m === 'string' ? m : `${m[0]} ${m[1]}`,
  );
  const out = new Map<string, GgufValue>([
    ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
    ['tokenizer.ggml.pre', { type: 'string', value: 'gpt-2' }],
    ['tokenizer.ggml.tokens', { type: 'array', of: 'string', values: tokens as string[] }],
    ['tokenizer.ggml.token_type', { type: 'array', of: 'i32', values: types }],
    ['tokenizer.ggml.merges', { type: 'array', of: 'string', values: merges }],
  ]);
  const eos =
    specials.find((t) => t.content === '<|endoftext|>') ?? (specials.length === 1 ? specials[0] : undefined);
  if (eos !== undefined) {
    out.set('tokenizer.ggml.bos_token_id', { type: 'u32', value: eos.id });
    out.set('tokenizer.ggml.eos_token_id', { type: 'u32', value: eos.id });
  }
  out.set('tokenizer.ggml.add_bos_token', { type: 'bool', value: false });
  return out;
}
