/**
 * `dantinox/serving`: benchmarks of models behind an HTTP endpoint — the OpenAI API's records, the load
 * generator that measures any OpenAI-compatible server (TTFT, inter-token latency, goodput under SLOs), and the
 * server that puts any dantinox model behind that API. Serving sits above models and benchmarking and below
 * runs: it never imports visualization, runs or the CLI.
 *
 * @packageDocumentation
 * @module dantinox/serving
 */
export type {
  ChatChoice,
  ChatCompletionRequest,
  ChatCompletionResponse,
  ChatMessage,
  ChatResponseMessage,
  CompletionChoice,
  CompletionRequest,
  CompletionResponse,
  ErrorBody,
  ErrorDetail,
  SamplingFields,
  StreamChoice,
  StreamChunk,
  StreamDelta,
  StreamOptions,
  Usage,
} from './openai-protocol.js';
export { STREAM_DONE } from './openai-protocol.js';
export {
  type ApiErrorBody,
  type ApiErrorDetail,
  type ApiFailure,
  apiFailure,
  badRequest,
  isApiFailure,
  notFound,
} from './server/api-failure.js';
export {
  BatchScheduler,
  type BatchSchedulerOptions,
  type FinishReason,
  type GenerationJob,
  type GenerationOutcome,
  type SubmitAccepted,
  type SubmitRejected,
  type SubmitResult,
} from './server/batch-scheduler.js';
export { CHAT_ROLE_LABELS, renderChatPrompt } from './server/chat-prompt.js';
export {
  type GenerationStream,
  type ResponseMeta,
  streamGeneration,
  wholeResponse,
} from './server/completion-writer.js';
export {
  DEFAULT_TEMPERATURE,
  type Endpoint,
  type GenerationRequest,
  readGenerationRequest,
  type ServedModel,
} from './server/generation-request.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  type ListenOptions,
  OpenAiServer,
  type OpenAiServerOptions,
} from './server/openai-server.js';
export {
  Counter,
  Gauge,
  Histogram,
  type Labels,
  PROMETHEUS_CONTENT_TYPE,
  type PrometheusMetric,
  PrometheusRegistry,
} from './server/prometheus-metrics.js';
export { argmax, type SamplingOptions, sampleToken } from './server/sampler.js';
export {
  BATCH_BUCKETS,
  createServerMetrics,
  type ServerMetrics,
  TIME_BUCKETS_SECONDS,
} from './server/server-metrics.js';
export { StopTextStream } from './server/stop-text-stream.js';
