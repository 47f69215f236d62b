/**
 * dantinox: profile and benchmark transformer language models on Node.js. The root entry holds the shared core;
 * each layer has its own subpath: `dantinox/profiling`, `dantinox/benchmarking`, `dantinox/visualization`,
 * `dantinox/models`.
 *
 * @packageDocumentation
 * @module dantinox
 */

export {
  DTYPE_NAMES,
  DTYPES,
  type Dtype,
  type DtypeInfo,
  dtypeOfOnnxFile,
  isDtype,
  parseDtype,
  TENSOR_TYPES,
  type TensorType,
  type TensorTypeInfo,
  tensorTypeOfOnnx,
  WEIGHT_TENSOR_TYPES,
} from './dtype.js';
export {
  DantinoxError,
  type DantinoxErrorOptions,
  type ErrorCode,
  ValidationError,
  type ValidationIssue,
} from './errors.js';
export { ModelConfig, type ModelConfigInput, type PresetName } from './models/model-config.js';
export { formatSignificant } from './number-format.js';
export type { DantinoxPlugin, PluginRegistries } from './plugin.js';
export { type RegisterOptions, Registry } from './registry.js';
export { Rng, xoshiro128 } from './rng.js';
export { CLIENT_FLAGS, type IndexFlags, SHARD_FLAGS } from './scheduler-index.js';
