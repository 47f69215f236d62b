/**
 * The model axes a benchmark matrix can vary, as one table: adding an axis (e.g. an inference engine) is one
 * entry here plus the flag that feeds it.
 *
 * @packageDocumentation
 */
import { basename } from 'node:path';
import { parseDtype } from '../../dtype.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { ENGINE_NAMES } from '../../models/engines/engine-name.js';
import { TARGET_NAMES } from '../../models/engines/target-name.js';

/** One axis of a benchmark matrix: where its values come from and how a value shows in a variant id. */
export interface MatrixAxisDefinition {
  /** Axis name: the key in a `matrix:` YAML section and in variant `axes` records (e.g. `dtype`). */
  readonly name: string;
  /** The `dantinox bench` flag that lists its values (e.g. `--dtype`). */
  readonly flag: string;
  /** Short flag, if any (e.g. `-c`). */
  readonly short?: string;
  /** One-line description (help text and docs). */
  readonly description: string;
  /** Example list of values, for messages (e.g. `1,2`). */
  readonly example: string;
  /** Checks one value and returns its canonical spelling; throws `INVALID_OPTION` naming what is allowed. */
  check(value: string): string;
  /** The part a value contributes to a variant id, e.g. `t2` for 2 threads; letters, digits, `.`, `_`. */
  idPart(value: string): string;
}

/** Letters, digits, `.` and `_` only (a variant id joins parts with `-`). */
const idSafe = (text: string): string => text.replace(/[^A-Za-z0-9._]+/g, '_').replace(/^_+|_+$/g, '') || '_';

/** Accepts any non-empty value (paths and presets are checked where the model is resolved). */
const anyValue = (value: string): string => value;

/** A check that accepts only `allowed`. */
const oneOf =
  (flag: string, allowed: readonly string[]) =>
  (value: string): string => {
    if (!allowed.includes(value))
      throw new DantinoxError('INVALID_OPTION', messages.matrixBadValue(flag, value, allowed));
    return value;
  };

/** A positive integer, canonical (`02` → `2`). */
const positiveInteger =
  (flag: string) =>
  (value: string): string => {
    const n = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < 1)
      throw new DantinoxError('INVALID_OPTION', messages.matrixBadValue(flag, value, ['a positive integer']));
    return String(n);
  };

/** The name of a config file or model folder without its directory and YAML/JSON extension. */
const sourceName = (value: string): string =>
  idSafe(basename(value.replace(/[\\/]+$/, '')).replace(/\.(ya?ml|json)$/i, ''));

/**
 * Every axis, in canonical order: the order of id parts and of the matrix's nested loops (the last axis
 * varies fastest).
 */
export const MATRIX_AXES = [
  {
    name: 'config',
    example: 'tiny,small',
    flag: '--config',
    short: '-c',
    description:
      'built-in model: preset (tiny, small, gpt2-small; brown: trained weights) or YAML/JSON config file',
    check: anyValue,
    idPart: sourceName,
  },
  {
    name: 'model',
    example: 'models/a,models/b',
    flag: '--model',
    short: '-m',
    description:
      'a Hugging Face ONNX folder (config.json, tokenizer.json, onnx/model.onnx), or a dantinox model folder (model.safetensors, e.g. written by "dantinox train"), instead',
    check: anyValue,
    idPart: sourceName,
  },
  {
    name: 'engine',
    example: 'ort,llama.cpp',
    flag: '--engine',
    description:
      'inference engine: ort, llama.cpp (a GGUF export of the same weights) or transformers.js (default: ort)',
    check: oneOf('--engine', ENGINE_NAMES),
    idPart: idSafe,
  },
  {
    name: 'target',
    example: 'node,browser',
    flag: '--target',
    description:
      'where the model runs: node, or browser (onnxruntime-web in a headless Chromium, --engine ort, a built-in model or a --model folder) (default: node)',
    check: oneOf('--target', TARGET_NAMES),
    idPart: idSafe,
  },
  {
    name: 'dtype',
    example: 'fp32,q8',
    flag: '--dtype',
    description:
      'weight dtype: fp32, fp16, q8, q4 (built-in and dantinox model folders: quantized from the same fp32 weights; a Hugging Face --model: that file of the folder)',
    check: (value) => parseDtype(value, '--dtype'),
    idPart: idSafe,
  },
  {
    name: 'threads',
    example: '1,2',
    flag: '--threads',
    description: 'ONNX Runtime intra-op threads (default: all cores)',
    check: positiveInteger('--threads'),
    idPart: (value) => `t${idSafe(value)}`,
  },
  {
    name: 'paradigm',
    example: 'ar,diffusion',
    flag: '--paradigm',
    description: "override the config's paradigm (built-in models): ar or diffusion",
    check: oneOf('--paradigm', ['ar', 'diffusion']),
    idPart: idSafe,
  },
] as const satisfies readonly MatrixAxisDefinition[];

/** Name of a matrix axis. */
export type MatrixAxisName = (typeof MATRIX_AXES)[number]['name'];

/** Every axis name, in canonical order. */
export const MATRIX_AXIS_NAMES: readonly MatrixAxisName[] = MATRIX_AXES.map((a) => a.name);

/** The definition of axis `name`. */
export function matrixAxis(name: MatrixAxisName): MatrixAxisDefinition {
  return MATRIX_AXES.find((a) => a.name === name) as MatrixAxisDefinition;
}
