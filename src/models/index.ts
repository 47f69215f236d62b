/**
 * `dantinox/models`: model configs, the model/paradigm/tokenizer contracts, weights and safetensors I/O, the
 * TypeScript reference model, the ar and diffusion paradigms, and the built-in tokenizers.
 *
 * Importing this entry loads no native module: the ONNX runtime is loaded lazily when a model is created.
 *
 * @packageDocumentation
 * @module dantinox/models
 */

// ── calibration ─────────────────────────────────────────────────────────────
export {
  type CalibrateOrtOptions,
  calibrateOrt,
  ceilingsOf,
  lastLevelCacheBytes,
  type OrtCalibration,
  type ProbeResult,
} from './calibration/calibrate-ort.js';
export { describeModel } from './describe-model.js';
// ── engines ─────────────────────────────────────────────────────────────────
export {
  BrowserModel,
  type BrowserProvider,
  browserProvider,
  type CreateBrowserModelOptions,
  createBrowserModel,
} from './engines/browser/browser-model.js';
export { BROWSER_FALLBACKS, BROWSER_NAMES, findBrowser } from './engines/browser/find-browser.js';
export {
  type LoadBrowserHfModelOptions,
  loadBrowserHfModel,
} from './engines/browser/load-browser-hf-model.js';
export { PageClock } from './engines/browser/page-clock.js';
export { type PageServer, type PageServerOptions, startPageServer } from './engines/browser/page-server.js';
export { ENGINE_NAMES, type EngineName } from './engines/engine-name.js';
export {
  builtinEngines,
  type ConfigSource,
  type CreateEngineRegistryOptions,
  createEngineModel,
  createEngineRegistry,
  defaultEngines,
  type EngineAdapter,
  type EngineLoadOptions,
  type EngineModelOptions,
  EngineRegistry,
  type EngineRequest,
  type EngineSource,
  type FolderSource,
  loadEngineModel,
} from './engines/engine-registry.js';
// ── GGUF (llama.cpp) ────────────────────────────────────────────────────────
export {
  type CreateLlamaCppModelOptions,
  createLlamaCppModel,
} from './engines/llama-cpp/create-llama-cpp-model.js';
export {
  LLAMA_CPP_ENGINE,
  LLAMA_KV_CACHE_TYPES,
  LlamaCppModel,
  type LlamaKvCacheType,
  type LlamaKvCacheTypeInfo,
  LOG_PROB_FLOOR,
  type LoadLlamaCppModelOptions,
  loadLlamaCppModel,
} from './engines/llama-cpp/llama-cpp-model.js';
export { NODE_LLAMA_CPP_VERSION } from './engines/llama-cpp/node-llama-cpp-loader.js';
export {
  DEFAULT_EXECUTION_PROVIDER,
  type ExecutionProvider,
  type ProfiledCalls,
  profileModelCalls,
  supportedExecutionProviders,
} from './engines/ort/index.js';
export { TARGET_NAMES, type TargetName } from './engines/target-name.js';
export {
  type CreateTransformersJsModelOptions,
  createTransformersJsModel,
} from './engines/transformers-js/create-transformers-js-model.js';
export {
  type LoadTransformersJsModelOptions,
  loadTransformersJsModel,
  TRANSFORMERS_JS_ENGINE,
  TRANSFORMERS_JS_VERSION,
  TransformersJsModel,
} from './engines/transformers-js/transformers-js-model.js';
export { encodeGgml, GGML_TYPES, type GgmlTypeInfo, type GgmlTypeName } from './gguf/ggml-types.js';
export { type GgufArchitecture, ggufBlocker } from './gguf/gguf-architecture.js';
export {
  exportGguf,
  GGUF_TYPE_OF,
  type GgufExportOptions,
  type GgufExportResult,
  type GgufSource,
} from './gguf/gguf-export.js';
// ── Hugging Face ────────────────────────────────────────────────────────────
export {
  HF_MODEL_TYPES,
  type HfConfig,
  type HfModelType,
  hfConfigFromJson,
  readHfConfig,
} from './hf/hf-config.js';
export {
  exportHfModel,
  type HfExportOptions,
  type HfExportResult,
  type HfExportTokenizer,
  hfConfigJson,
  hfModelTypeOf,
} from './hf/hf-export.js';
export { HfModel, type LoadHfModelOptions, loadHfModel } from './hf/hf-model.js';
export { HfTokenizer, loadHfTokenizer, loadHfTokenizerFiles } from './hf/hf-tokenizer.js';
export {
  type ByteLevelBpe,
  byteLevelBpeFiles,
  bytesToUnicode,
  byteTokenizerFiles,
  END_OF_TEXT,
  gpt2TokenizerFiles,
  HF_TOKENIZER_FILES,
  type HfTokenizerFiles,
  saveHfTokenizerFiles,
} from './hf/hf-tokenizer-json.js';
export { type HfWeights, readHfWeights } from './hf/hf-weights.js';
// ── contracts ───────────────────────────────────────────────────────────────
export type {
  BatchShape,
  BrowserInfo,
  CallOptions,
  DecodeState,
  GpuAdapterInfo,
  Logits,
  Model,
  ModelInfo,
  ModelLoad,
  OffProviderNodes,
  RowBatching,
  StepResult,
} from './model.js';
export { logitPositions } from './model.js';
// ── config ──────────────────────────────────────────────────────────────────
export {
  type Activation,
  type AttentionKind,
  type FfnKind,
  ModelConfig,
  type ModelConfigInput,
  type NormKind,
  type ParadigmKind,
  type PosEncoding,
  type PresetName,
} from './model-config.js';
export {
  MODEL_FOLDER_FILES,
  type ModelFolder,
  modelFolderConfig,
  readModelFolder,
  writeModelFolder,
} from './model-folder.js';
export { modelFootprint } from './model-footprint.js';
export {
  type CheckedSelection,
  checkModelSelection,
  DEFAULT_PRESET,
  type ModelSelection,
} from './model-selection.js';
// ── n-gram models ───────────────────────────────────────────────────────────
export {
  chenGoodmanDiscounts,
  type DevSplit,
  devSplit,
  type FitNgramOptions,
  fitNgrams,
  MIN_DISCOUNT,
  NGRAM_DEV_BLOCKS,
  NGRAM_DEV_EVERY,
  tuneNgram,
} from './ngram/fit-ngram.js';
export {
  type ContextStats,
  CountTable,
  countNgrams,
  NGRAM_ORDERS,
  type NgramCounts,
  type NgramOrder,
} from './ngram/ngram-counts.js';
export {
  type AddKParameters,
  type KneserNeyParameters,
  NGRAM_SMOOTHINGS,
  NgramModel,
  type NgramParameters,
  type NgramScore,
  type NgramScoreOptions,
  type NgramSmoothing,
} from './ngram/ngram-model.js';
// ── ONNX runtime ────────────────────────────────────────────────────────────
export {
  countGraphFlops,
  type GraphFlops,
  type GraphFlopsOptions,
  type GraphNodeCost,
} from './onnx/graph-flops.js';
export { type CreateModelOptions, createModel, OnnxModel } from './onnx/onnx-model.js';
export { buildTransformerGraph, type TransformerGraph } from './onnx/transformer-graph.js';
export {
  CONFIG_METADATA_KEY,
  configOfMetadata,
  loadModel,
  loadWeights,
  saveWeights,
} from './onnx/weights-io.js';
export {
  type GenerateOptions,
  type GenerationResult,
  type LossOptions,
  type LossResult,
  Paradigm,
} from './paradigm.js';
// ── paradigms ───────────────────────────────────────────────────────────────
export { ARParadigm, DEFAULT_MAX_NEW_TOKENS } from './paradigms/ar-paradigm.js';
export {
  DEFAULT_DIFFUSION_STEPS,
  DEFAULT_GEN_LENGTH,
  DiffusionParadigm,
  type MaskedTokens,
  maskTokens,
  unmaskCount,
} from './paradigms/diffusion-paradigm.js';
export { crossEntropy, logSoftmax, logSumExp } from './paradigms/log-probs.js';
export { argmax, type SamplingOptions, sampleToken } from './paradigms/sampling.js';
// ── reference model ─────────────────────────────────────────────────────────
export { ReferenceModel, type ReferenceModelOptions } from './reference-model.js';
export { type ResolvedModelConfig, resolveModelConfig } from './resolve-model-config.js';
// ── weights ─────────────────────────────────────────────────────────────────
export {
  loadSafetensors,
  readSafetensorsMetadata,
  type SafetensorsFile,
  saveSafetensors,
} from './safetensors.js';
export { checkTokenBatch } from './token-checks.js';
export type { Tokenizer } from './tokenizer.js';
// ── tokenizers ──────────────────────────────────────────────────────────────
export { type BpeMerge, BpeTokenizer, MAX_BPE_VOCAB_SIZE } from './tokenizers/bpe-tokenizer.js';
export {
  type BuiltinTokenizerKind,
  builtinTokenizer,
  builtinTokenizerKind,
} from './tokenizers/builtin-tokenizer.js';
export { ByteTokenizer } from './tokenizers/byte-tokenizer.js';
export { GPT2_SPLIT_PATTERN, gpt2PreTokenize } from './tokenizers/gpt2-pre-tokenizer.js';
export { GPT2_END_OF_TEXT, GPT2_VOCAB_SIZE, Gpt2Tokenizer } from './tokenizers/gpt2-tokenizer.js';
export { modelTokenizer } from './tokenizers/model-tokenizer.js';
export { MIN_BPE_VOCAB_SIZE, type TrainBpeOptions, trainBpe } from './tokenizers/train-bpe.js';
export {
  checkTrainedPreset,
  readSha256Sums,
  sha256SumsText,
  TRAINED_PRESET_FILES,
  TRAINED_PRESET_HASHED_FILES,
  TRAINED_PRESETS,
  type TrainedPreset,
  type TrainedPresetName,
  trainedPresetConfigFile,
  trainedPresetDir,
} from './trained-presets.js';
export {
  checkWeights,
  countParameters,
  INIT_STD,
  initWeights,
  numElements,
  seededWeights,
  type WeightInit,
  type WeightMap,
  type WeightSpec,
  type WeightTensor,
  weightSpecs,
} from './weights.js';
