/**
 * The precision the weight matrices of a generated graph are stored in ({@link WeightPrecision}), checked
 * against a config before anything is built ({@link resolvePrecision}). This module loads nothing heavy, so the
 * CLI checks `--dtype` and `--block-size` at once; the products themselves are emitted by `linear.ts`.
 *
 * @packageDocumentation
 */
import { DTYPES } from '../../dtype.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { QuantizationInfo } from '../model.js';
import type { ModelConfig } from '../model-config.js';

/** Weight dtypes the built-in ONNX graphs run. */
export const BUILTIN_DTYPES = ['fp32', 'fp16', 'q8', 'q4'] as const;
/** A weight dtype of the built-in ONNX graphs. */
export type BuiltinDtype = (typeof BUILTIN_DTYPES)[number];

/** The transformers.js ONNX file name of a built-in dtype (in a folder's `onnx/`), from the dtype table. */
export function hfOnnxFile(dtype: BuiltinDtype): string {
  // Every built-in dtype has a conventional file in the table (pinned by the dtype tests).
  return DTYPES[dtype].onnxFile!;
}

/** `MatMulNBits` `accuracy_level` values: 0 unset, 1 fp32, 2 fp16, 3 bf16, 4 int8 compute. */
export type AccuracyLevel = 0 | 1 | 2 | 3 | 4;

/** How the weight matrices of a graph are stored. */
export interface WeightPrecision {
  /** Dtype of the matrices inside the blocks (attention, MLP, experts, router). */
  readonly dtype: BuiltinDtype;
  /** Dtype of the LM head. */
  readonly headDtype: BuiltinDtype;
  /** K values per 4-bit block. */
  readonly blockSize: number;
  /** `MatMulNBits` compute accuracy. */
  readonly accuracyLevel: AccuracyLevel;
}

/** Defaults of {@link WeightPrecision} fields. */
export const DEFAULT_BLOCK_SIZE = 32;
/** Default `accuracy_level` of the 4-bit products (int8 compute: fastest measured, see `npm run bench:quant`). */
export const DEFAULT_ACCURACY_LEVEL: AccuracyLevel = 4;

/** float32 everywhere. */
export const FP32_PRECISION: WeightPrecision = Object.freeze({
  dtype: 'fp32',
  headDtype: 'fp32',
  blockSize: DEFAULT_BLOCK_SIZE,
  accuracyLevel: DEFAULT_ACCURACY_LEVEL,
});

/** Options that choose a {@link WeightPrecision} (those of `createModel`). */
export interface PrecisionOptions {
  /** Dtype of the block matrices. @default 'fp32' */
  readonly dtype?: string;
  /** Dtype of the LM head. @default `dtype` */
  readonly headDtype?: string;
  /** K values per 4-bit block. @default 32 */
  readonly blockSize?: number;
  /** `MatMulNBits` accuracy level. @default 4 */
  readonly accuracyLevel?: number;
}

/** Input dimensions K of every weight matrix of `config` (the block size of 4-bit matrices must divide them). */
export function matrixInputDims(config: ModelConfig): { blocks: number[]; head: number } {
  const ffn = Math.round(config.expansion * config.dim);
  return { blocks: [config.dim, config.nHeads * config.headSize, ffn], head: config.dim };
}

function checkDtype(dtype: string): BuiltinDtype {
  if ((BUILTIN_DTYPES as readonly string[]).includes(dtype)) return dtype as BuiltinDtype;
  throw new DantinoxError(
    'INVALID_OPTION',
    messages.dtypeNotAvailable(dtype, 'the built-in ONNX models', BUILTIN_DTYPES),
  );
}

/**
 * The {@link WeightPrecision} of `options` for `config`, checked before any weight is made.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for a dtype the built-in graphs do not run, a block size that
 * is not a power of two ≥ 16 or does not divide a 4-bit matrix's K (the message lists those that do), or an
 * accuracy level outside 0–4.
 */
export function resolvePrecision(config: ModelConfig, options: PrecisionOptions = {}): WeightPrecision {
  const dtype = checkDtype(options.dtype ?? 'fp32');
  const headDtype = checkDtype(options.headDtype ?? dtype);
  const blockSize = options.blockSize ?? DEFAULT_BLOCK_SIZE;
  const accuracyLevel = options.accuracyLevel ?? DEFAULT_ACCURACY_LEVEL;
  if (!Number.isSafeInteger(blockSize) || blockSize < 16 || (blockSize & (blockSize - 1)) !== 0) {
    throw new DantinoxError('INVALID_OPTION', messages.invalidBlockSize(blockSize));
  }
  if (!Number.isInteger(accuracyLevel) || accuracyLevel < 0 || accuracyLevel > 4) {
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('accuracyLevel', accuracyLevel, 'an integer from 0 to 4'),
    );
  }
  const dims = matrixInputDims(config);
  const ks = [...(dtype === 'q4' ? dims.blocks : []), ...(headDtype === 'q4' ? [dims.head] : [])];
  const bad = ks.find((k) => k % blockSize !== 0);
  if (bad !== undefined) {
    const fits = [16, 32, 64, 128, 256].filter((b) => ks.every((k) => k % b === 0));
    throw new DantinoxError('INVALID_OPTION', messages.blockSizeDoesNotDivide(blockSize, bad, fits));
  }
  return Object.freeze({ dtype, headDtype, blockSize, accuracyLevel: accuracyLevel as AccuracyLevel });
}

/** The {@link QuantizationInfo} of a built graph, or `undefined` when every matrix is float32. */
export function quantizationInfo(
  precision: WeightPrecision,
  quantized: ReadonlyMap<string, BuiltinDtype>,
): QuantizationInfo | undefined {
  if (quantized.size === 0) return undefined;
  const q4 = [...quantized.values()].includes('q4');
  return {
    dtype: precision.dtype,
    headDtype: precision.headDtype,
    matrices: Object.fromEntries(quantized),
    ...(q4 ? { blockSize: precision.blockSize, accuracyLevel: precision.accuracyLevel } : {}),
  };
}
