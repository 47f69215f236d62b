/**
 * A Hugging Face `tokenizer.json` (+ `tokenizer_config.json`) as a dantinox {@link Tokenizer}, run by
 * `@huggingface/tokenizers` (pure JavaScript, the tokenizer of transformers.js).
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Tokenizer as HfTokenizerImpl } from '@huggingface/tokenizers';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { readTextFile } from '../../text-file.js';
import type { Tokenizer } from '../tokenizer.js';
import type { HfTokenizerFiles } from './hf-tokenizer-json.js';

function readJson(path: string, what: string): Record<string, unknown> {
  const text = readTextFile(path, what);
  try {
    const json: unknown = JSON.parse(text);
    if (json === null || typeof json !== 'object' || Array.isArray(json))
      throw new Error('not a JSON object');
    return json as Record<string, unknown>;
  } catch (cause) {
    throw new DantinoxError('IO', messages.malformedFile(path, 'JSON', cause), { cause });
  }
}

/**
 * A tokenizer built from the JSON of `tokenizer.json` and `tokenizer_config.json`. `encode` adds no special
 * tokens (no BOS), as perplexity over raw text needs; `decode` keeps special tokens and follows the config's
 * `clean_up_tokenization_spaces`.
 */
export class HfTokenizer implements Tokenizer {
  /** `hf:<model type of tokenizer.json>`, e.g. `hf:BPE`. */
  readonly name: string;
  /** `hf:sha256:<hex>` of the two JSON objects as given: two BPE files with one name differ here. */
  readonly identity: string;
  /** One more than the largest id of the vocabulary (added tokens included). */
  readonly vocabSize: number;
  readonly #impl: HfTokenizerImpl;

  /**
   * @param tokenizerJson - the parsed `tokenizer.json`.
   * @param tokenizerConfig - the parsed `tokenizer_config.json`. @default {}
   * @param source - file path used in error messages and the name. @default 'tokenizer.json'
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when `@huggingface/tokenizers` rejects the JSON.
   */
  constructor(
    tokenizerJson: Record<string, unknown>,
    tokenizerConfig: Record<string, unknown> = {},
    source = 'tokenizer.json',
  ) {
    try {
      this.#impl = new HfTokenizerImpl(tokenizerJson, tokenizerConfig);
    } catch (cause) {
      throw new DantinoxError('INVALID_INPUT', messages.hfBadTokenizer(source, cause), { cause });
    }
    let maxId = -1;
    for (const id of this.#impl.get_vocab(true).values()) if (id > maxId) maxId = id;
    this.vocabSize = maxId + 1;
    const model = tokenizerJson['model'];
    const type =
      model !== null && typeof model === 'object' && 'type' in model && typeof model.type === 'string'
        ? model.type
        : 'tokenizer.json';
    this.name = `hf:${type}`;
    const hash = createHash('sha256').update(JSON.stringify(tokenizerJson)).update('\0');
    this.identity = `hf:sha256:${hash.update(JSON.stringify(tokenizerConfig)).digest('hex')}`;
  }

  /** Token ids of `text`, without special tokens. */
  encode(text: string): number[] {
    if (text === '') return [];
    return this.#impl.encode(text, { add_special_tokens: false }).ids;
  }

  /** Text of `ids` (special tokens kept). */
  decode(ids: readonly number[]): string {
    if (ids.length === 0) return '';
    return this.#impl.decode([...ids]);
  }
}

/**
 * Loads `tokenizer.json` and, when present beside it, `tokenizer_config.json`.
 *
 * @param path - the `tokenizer.json` file, or the model folder that contains it.
 * @throws {@link dantinox!DantinoxError} `IO` when a file cannot be read or is not JSON; `INVALID_INPUT` when the
 *   tokenizer library rejects it.
 */
export function loadHfTokenizer(path: string): HfTokenizer {
  const file = path.endsWith('.json') ? path : join(path, 'tokenizer.json');
  const { tokenizerJson, tokenizerConfig } = loadHfTokenizerFiles(file);
  return new HfTokenizer(tokenizerJson, tokenizerConfig, file);
}

/**
 * The contents of a folder's `tokenizer.json` and `tokenizer_config.json` (`{}` when the latter is absent), given
 * the folder or the `tokenizer.json` path.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when `tokenizer.json` is missing or a file is not JSON.
 */
export function loadHfTokenizerFiles(path: string): HfTokenizerFiles {
  const file = path.endsWith('.json') ? path : join(path, 'tokenizer.json');
  const folder = dirname(file);
  if (!existsSync(file)) {
    throw new DantinoxError('IO', messages.hfMissingFile(folder, basename(file), 'the tokenizer'));
  }
  const tokenizerJson = readJson(file, 'tokenizer');
  const configPath = join(folder, 'tokenizer_config.json');
  const tokenizerConfig = existsSync(configPath) ? readJson(configPath, 'tokenizer config') : {};
  return { tokenizerJson, tokenizerConfig };
}
