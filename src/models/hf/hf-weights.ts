/**
 * `readHfWeights`: the config and float32 weights of a Hugging Face folder written by `exportHfModel`, read back
 * from its `onnx/model.onnx` (inline or external data), so that other exporters (GGUF) can convert a folder.
 *
 * @packageDocumentation
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { ModelConfig } from '../model-config.js';
import { onnx } from '../onnx/graph-builder.js';
import { type WeightMap, type WeightTensor, weightSpecs } from '../weights.js';
import { readHfConfig } from './hf-config.js';
import { checkHfGraph } from './hf-graph-check.js';
import { loadHfTokenizerFiles } from './hf-tokenizer.js';
import type { HfTokenizerFiles } from './hf-tokenizer-json.js';
import { type OnnxGraphInfo, readOnnxGraph } from './onnx-file-info.js';

/** What {@link readHfWeights} read. */
export interface HfWeights {
  /** The architecture, from `config.json`. */
  readonly config: ModelConfig;
  /** Every weight of `config`, by its canonical name, as float32. */
  readonly weights: WeightMap;
  /** The folder's `tokenizer.json` and `tokenizer_config.json`. */
  readonly tokenizer: HfTokenizerFiles;
}

/**
 * Reads the config, tokenizer and float32 weights of `folder` (its `onnx/model.onnx`). The weights are found by
 * the canonical names `exportHfModel` gives its initializers (`blocks.0.attn.q.weight`, …), so a folder exported by
 * another tool is refused naming the first weight it lacks.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when a file cannot be read; `INVALID_INPUT` when config.json disagrees with
 * the graph's shapes (see `loadHfModel`); `UNSUPPORTED` when a weight is missing or not a float32 initializer of
 * the expected shape; the errors of `readHfConfig`.
 */
export function readHfWeights(folder: string): HfWeights {
  const configPath = join(folder, 'config.json');
  const hf = readHfConfig(configPath);
  const { config } = hf;
  const modelPath = join(folder, 'onnx', 'model.onnx');
  // A config.json that disagrees with the graph (e.g. fewer layers than it has) would convert part of the model.
  let graph: OnnxGraphInfo;
  try {
    graph = readOnnxGraph(modelPath);
  } catch (cause) {
    throw new DantinoxError('IO', messages.cannotRead(modelPath, 'ONNX model', cause), { cause });
  }
  checkHfGraph(hf, graph, configPath, modelPath);
  let model: onnx.ModelProto;
  try {
    model = onnx.ModelProto.decode(readFileSync(modelPath));
  } catch (cause) {
    throw new DantinoxError('IO', messages.cannotRead(modelPath, 'ONNX model', cause), { cause });
  }
  const initializers = new Map((model.graph?.initializer ?? []).map((t) => [t.name ?? '', t]));
  const weights = new Map<string, WeightTensor>();
  for (const spec of weightSpecs(config)) {
    const t = initializers.get(spec.name);
    const dims = (t?.dims ?? []).map(Number);
    if (
      t === undefined ||
      t.dataType !== onnx.TensorProto.DataType.FLOAT ||
      dims.length !== spec.dims.length ||
      dims.some((d, i) => d !== spec.dims[i])
    ) {
      throw new DantinoxError('UNSUPPORTED', messages.hfWeightNotFound(folder, spec.name, spec.dims));
    }
    weights.set(spec.name, { dims: spec.dims, data: tensorData(t, dirname(modelPath)) });
  }
  return { config, weights, tokenizer: loadHfTokenizerFiles(folder) };
}

/** The float32 values of `t`: its `raw_data`, `float_data`, or the bytes its external-data entries point at. */
function tensorData(t: onnx.ITensorProto, dir: string): Float32Array {
  const entries = new Map((t.externalData ?? []).map((e) => [e.key ?? '', e.value ?? '']));
  const location = entries.get('location');
  if (location === undefined) {
    if (t.rawData !== null && t.rawData !== undefined && t.rawData.length > 0) {
      const raw = t.rawData;
      return new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    }
    return Float32Array.from(t.floatData ?? []);
  }
  const offset = Number(entries.get('offset') ?? 0);
  const length = Number(entries.get('length'));
  const out = new Float32Array(length / 4);
  const path = join(dir, location);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (cause) {
    throw new DantinoxError('IO', messages.cannotRead(path, 'ONNX external data', cause), { cause });
  }
  try {
    const bytes = new Uint8Array(out.buffer);
    for (let done = 0; done < length; ) {
      const n = readSync(fd, bytes, done, length - done, offset + done);
      if (n === 0) throw new DantinoxError('IO', messages.cannotRead(path, 'ONNX external data'));
      done += n;
    }
  } finally {
    closeSync(fd);
  }
  return out;
}
