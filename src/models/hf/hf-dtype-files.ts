/**
 * Which weight dtypes a Hugging Face ONNX folder holds, by the transformers.js file names in its `onnx/`
 * (`model.onnx`, `model_fp16.onnx`, `model_quantized.onnx`, `model_q4.onnx`).
 *
 * @packageDocumentation
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { BUILTIN_DTYPES, type BuiltinDtype, hfOnnxFile } from '../onnx/precision.js';
import { HF_TOKENIZER_FILES } from './hf-tokenizer-json.js';

/** Metadata files an export writes at the top of a Hugging Face folder. */
export const HF_JSON_FILES = ['config.json', 'generation_config.json', ...HF_TOKENIZER_FILES] as const;

/**
 * Every file a Hugging Face export may write in its folder (relative paths): the metadata files, then each
 * dtype's ONNX file and its external data (`onnx/model.onnx`, `onnx/model.onnx_data`, `onnx/model_fp16.onnx`…).
 */
export const HF_EXPORT_FILES: readonly string[] = [
  ...HF_JSON_FILES,
  ...BUILTIN_DTYPES.flatMap((d) => [`onnx/${hfOnnxFile(d)}`, `onnx/${hfOnnxFile(d)}_data`]),
];

/** The dtypes whose transformers.js file exists in `folder/onnx/`, in table order. */
export function hfFolderDtypes(folder: string): BuiltinDtype[] {
  return BUILTIN_DTYPES.filter((d) => existsSync(join(folder, 'onnx', hfOnnxFile(d))));
}

/**
 * The path, relative to `folder`, of the ONNX file of `dtype` (e.g. `onnx/model_q4.onnx`).
 *
 * @throws {@link dantinox!DantinoxError} `IO` when the folder has no such file, listing the dtypes it has.
 */
export function hfDtypeFile(folder: string, dtype: BuiltinDtype): string {
  const file = join('onnx', hfOnnxFile(dtype));
  if (existsSync(join(folder, file))) return file;
  throw new DantinoxError(
    'IO',
    messages.hfDtypeMissing(folder, dtype, hfOnnxFile(dtype), hfFolderDtypes(folder)),
  );
}
