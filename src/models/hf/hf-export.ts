/**
 * Export of a built-in model into the Hugging Face ONNX folder layout that transformers.js and
 * {@link loadHfModel} read: `config.json`, `generation_config.json`, `tokenizer.json`, `tokenizer_config.json`
 * and `onnx/model.onnx` (+ `onnx/model.onnx_data` for large models).
 *
 * @packageDocumentation
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DantinoxError } from '../../errors.js';
import { makeDirectory } from '../../make-directory.js';
import { messages } from '../../messages.js';
import type { ModelConfig } from '../model-config.js';
import { type AccuracyLevel, type BuiltinDtype, hfOnnxFile, resolvePrecision } from '../onnx/precision.js';
import { builtinTokenizerKind } from '../tokenizers/builtin-tokenizer.js';
import { checkWeights, countParameters, type WeightMap } from '../weights.js';
import type { HfModelType } from './hf-config.js';
import { buildHfDecoderGraph, hfExportBlocker } from './hf-decoder-graph.js';
import {
  byteTokenizerFiles,
  gpt2TokenizerFiles,
  type HfTokenizerFiles,
  saveHfTokenizerFiles,
} from './hf-tokenizer-json.js';

/** Which tokenizer to write: the byte-level one, GPT-2's BPE, or your own files. */
export type HfExportTokenizer = 'auto' | 'bytes' | 'gpt2' | HfTokenizerFiles;

/** Options of {@link exportHfModel}. */
export interface HfExportOptions {
  /**
   * Tokenizer files to write. `auto` picks GPT-2's BPE when `vocabSize ≥ 50257` and the byte-level tokenizer when
   * it is 256, the same choice as the built-in models; any other vocabulary needs its own tokenizer files.
   * @default 'auto'
   */
  readonly tokenizer?: HfExportTokenizer;
  /**
   * Store the weights in `onnx/model.onnx_data` (ONNX external data) instead of inside `model.onnx`. `auto`
   * does so above 256 MiB of weights; config.json then carries transformers.js's
   * `use_external_data_format: true` so transformers.js finds the file.
   * @default 'auto'
   */
  readonly externalData?: boolean | 'auto';
  /**
   * Weight dtypes to write, one ONNX file each in transformers.js's names (`fp32` → `onnx/model.onnx`, `fp16` →
   * `model_fp16.onnx`, `q8` → `model_quantized.onnx`, `q4` → `model_q4.onnx`), all quantized by dantinox from
   * the same float32 weights; transformers.js picks one with its `dtype` option, {@link loadHfModel} with its
   * own. The LM head is quantized too unless `headDtype` says otherwise.
   * @default ['fp32']
   */
  readonly dtypes?: readonly BuiltinDtype[];
  /** Dtype of the LM head in every quantized file. @default the file's dtype */
  readonly headDtype?: BuiltinDtype;
  /** K values per 4-bit block of `q4` files. @default 32 */
  readonly blockSize?: number;
  /** `MatMulNBits` accuracy level of `q4` files. @default 4 */
  readonly accuracyLevel?: AccuracyLevel;
  /**
   * Called once every check has passed, right before the first file is written (e.g. to clear the files of the
   * model the folder held, so that a refused export leaves them whole).
   */
  readonly beforeWrite?: () => void;
}

/** What {@link exportHfModel} wrote. */
export interface HfExportResult {
  /** The folder written. */
  readonly folder: string;
  /** `model_type` of `config.json`: `gpt2` (learned positions), `llama`, or `mistral` (with sliding window). */
  readonly modelType: HfModelType;
  /** Whether the weights went to `onnx/model.onnx_data`. */
  readonly externalData: boolean;
  /** Bytes written for the ONNX models and their external data, all dtypes together. */
  readonly onnxBytes: number;
  /** The ONNX files written, by dtype (paths relative to the folder, e.g. `onnx/model_q4.onnx`). */
  readonly files: Readonly<Partial<Record<BuiltinDtype, string>>>;
}

const EXTERNAL_AUTO_BYTES = 256 * 1024 * 1024;

/** The `model_type` a built-in architecture exports as (`undefined` when it has no HF layout). */
export function hfModelTypeOf(config: ModelConfig): HfModelType | undefined {
  if (hfExportBlocker(config) !== undefined) return undefined;
  if (config.posEncoding === 'learned') return 'gpt2';
  return config.slidingWindow ? 'mistral' : 'llama';
}

/**
 * The tokenizer files an export writes for `choice` and a model of `vocabSize` ids (`auto`: the built-in tokenizer
 * of that vocabulary, `builtinTokenizerKind`: GPT-2's BPE from 50,257 ids, bytes at exactly 256).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when the chosen vocabulary does not fit in `vocabSize`, or
 * for `auto` when no built-in tokenizer fits it.
 */
export function exportTokenizerFiles(choice: HfExportTokenizer, vocabSize: number): HfTokenizerFiles {
  const pick = choice === 'auto' ? builtinTokenizerKind(vocabSize) : choice;
  if (pick === undefined) throw new DantinoxError('INVALID_OPTION', messages.exportNoTokenizer(vocabSize));
  if (pick === 'gpt2') {
    if (vocabSize < 50257)
      throw new DantinoxError('INVALID_OPTION', messages.hfExportTokenizer('gpt2', 50257, vocabSize));
    return gpt2TokenizerFiles();
  }
  if (pick === 'bytes') {
    if (vocabSize < 256)
      throw new DantinoxError('INVALID_OPTION', messages.hfExportTokenizer('bytes', 256, vocabSize));
    return byteTokenizerFiles();
  }
  return pick;
}

/** The `config.json` object of `config` as `modelType` (field names of the transformers configuration classes). */
export function hfConfigJson(
  config: ModelConfig,
  modelType: HfModelType,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const ffn = config.expansion * config.dim;
  if (modelType === 'gpt2') {
    return {
      architectures: ['GPT2LMHeadModel'],
      model_type: 'gpt2',
      n_embd: config.dim,
      n_head: config.nHeads,
      n_layer: config.numBlocks,
      n_positions: config.maxContext,
      n_ctx: config.maxContext,
      n_inner: ffn,
      vocab_size: config.vocabSize,
      activation_function: config.activation,
      layer_norm_epsilon: 1e-5,
      tie_word_embeddings: config.weightTying,
      use_cache: true,
      ...extra,
    };
  }
  return {
    architectures: [modelType === 'mistral' ? 'MistralForCausalLM' : 'LlamaForCausalLM'],
    model_type: modelType,
    hidden_size: config.dim,
    num_attention_heads: config.nHeads,
    num_key_value_heads: config.kvHeads,
    head_dim: config.headSize,
    num_hidden_layers: config.numBlocks,
    intermediate_size: ffn,
    max_position_embeddings: config.maxContext,
    vocab_size: config.vocabSize,
    hidden_act: 'silu',
    rms_norm_eps: 1e-5,
    rope_theta: 10000,
    attention_bias: false,
    mlp_bias: false,
    tie_word_embeddings: config.weightTying,
    ...(modelType === 'mistral' ? { sliding_window: config.contextWindow + 1 } : {}),
    use_cache: true,
    ...extra,
  };
}

/**
 * Writes a built-in model (`config` + `weights`, e.g. from `initWeights`) into `folder` in the Hugging Face ONNX
 * layout, with the decoder-with-past I/O names. Loading the folder back with {@link loadHfModel} gives the same
 * logits as the built-in model. Existing files of the same names are overwritten.
 *
 * @throws {@link dantinox!DantinoxError} `UNSUPPORTED` for architectures without a Hugging Face layout (MoE, diffusion,
 *   sinusoidal or no positions, mixed norm/position choices); `INVALID_OPTION` for a tokenizer that does not fit
 *   the vocabulary; `INVALID_INPUT` ({@link dantinox!ValidationError}) when `weights` do not match `config`; `IO` when the
 *   folder cannot be written.
 */
export function exportHfModel(
  config: ModelConfig,
  weights: WeightMap,
  folder: string,
  options: HfExportOptions = {},
): HfExportResult {
  const blocker = hfExportBlocker(config);
  if (blocker !== undefined) throw new DantinoxError('UNSUPPORTED', messages.hfExportUnsupported(blocker));
  const modelType = hfModelTypeOf(config) ?? 'llama';
  const precisions = (options.dtypes ?? ['fp32']).map((dtype) =>
    resolvePrecision(config, {
      dtype,
      headDtype: dtype === 'fp32' ? 'fp32' : (options.headDtype ?? dtype),
      ...(options.blockSize === undefined ? {} : { blockSize: options.blockSize }),
      ...(options.accuracyLevel === undefined ? {} : { accuracyLevel: options.accuracyLevel }),
    }),
  );
  checkWeights(config, weights);
  const tok = exportTokenizerFiles(options.tokenizer ?? 'auto', config.vocabSize);
  const choice = options.externalData ?? 'auto';
  const external = choice === 'auto' ? countParameters(config) * 4 > EXTERNAL_AUTO_BYTES : choice;
  const eos = endOfText(tok);
  const special = eos === undefined ? {} : { bos_token_id: eos, eos_token_id: eos };
  const files: Partial<Record<BuiltinDtype, string>> = {};
  for (const p of precisions) files[p.dtype] = `onnx/${hfOnnxFile(p.dtype)}`;
  const tjs = external ? { 'transformers.js_config': { use_external_data_format: true } } : {};
  options.beforeWrite?.();
  try {
    makeDirectory(join(folder, 'onnx'));
    const json = (name: string, value: unknown): void =>
      writeFileSync(join(folder, name), `${JSON.stringify(value, null, 2)}\n`);
    json('config.json', hfConfigJson(config, modelType, { ...special, ...tjs }));
    json('generation_config.json', { ...special, transformers_version: '4.46.0' });
    saveHfTokenizerFiles(tok, folder);
    let onnxBytes = 0;
    for (const p of precisions) {
      const { graph } = buildHfDecoderGraph(config, weights, p);
      onnxBytes += graph.write(join(folder, 'onnx', hfOnnxFile(p.dtype)), {
        externalData: external,
      });
    }
    return { folder, modelType, externalData: external, onnxBytes, files };
  } catch (cause) {
    if (cause instanceof DantinoxError) throw cause;
    throw new DantinoxError('IO', messages.hfCannotWrite(folder, cause), { cause });
  }
}

/** Id of `<|endoftext|>` (or another special token) when the tokenizer has one. */
function endOfText(files: HfTokenizerFiles): number | undefined {
  const added = files.tokenizerJson['added_tokens'];
  if (!Array.isArray(added)) return undefined;
  for (const t of added) {
    if (t !== null && typeof t === 'object' && (t as { special?: unknown }).special === true) {
      const id = (t as { id?: unknown }).id;
      if (typeof id === 'number') return id;
    }
  }
  return undefined;
}
