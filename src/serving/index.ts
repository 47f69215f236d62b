/**
 * `dantinox/serving`: benchmarks of models behind an HTTP endpoint — the OpenAI API's records, the load
 * generator that measures any OpenAI-compatible server (TTFT, inter-token latency, goodput under SLOs), and the
 * server that puts any dantinox model behind that API. Serving sits above models and benchmarking and below
 * runs: it never imports visualization, runs or the CLI.
 *
 * @packageDocumentation
 * @module dantinox/serving
 */

export { type ArrivalOptions, arrivalTimesMs, gammaDraw } from './client/arrival-schedule.js';
export {
  type ClientShare,
  clientSends,
  shareSlots,
} from './client/client-share.js';
export { type ConversationPlan, runConversation } from './client/conversation.js';
export {
  findMaxGoodput,
  type GoodputProbe,
  type GoodputSearchOptions,
  type GoodputSearchResult,
} from './client/find-max-goodput.js';
export {
  ConnectionPool,
  type ConnectionTarget,
  HttpConnection,
  type RawExchange,
  type SocketRead,
  type TransportFailure,
} from './client/http-connection.js';
export {
  defaultWarmup,
  inWindow,
  type LoadPoint,
  type LoadPointOptions,
  type LoadPointResult,
  type LoadWindow,
  type RequestWindow,
  requestBody,
  runLoadPoint,
  type StopRule,
  type TimeWindow,
  WORKER_START_MS,
} from './client/load-generator.js';
export { defaultWorkers, type LaneClientOptions, STREAMS_PER_WORKER } from './client/load-lanes.js';
export { LOAD_CHECK_LIMITS, type LoadCheckContext, validateLoadPoint } from './client/load-validation.js';
export {
  apiBaseUrl,
  isCertificateError,
  OpenAiClient,
  type OpenAiClientOptions,
  type PreparedRequest,
} from './client/openai-client.js';
export { readCaFile } from './client/read-ca-file.js';
export {
  type ExchangeFailed,
  type ExchangeRead,
  type ExchangeReading,
  REQUEST_ERROR_KINDS,
  type RequestErrorKind,
  readExchange,
  type TextChannel,
  type TextPiece,
} from './client/read-exchange.js';
export type { RequestBodyOptions } from './client/request-body.js';
export {
  REQUEST_COLUMNS,
  type RequestLine,
  RequestLineSchema,
  readRequestLines,
  requestCsvRow,
} from './client/request-rows.js';
export {
  type BodyPiece,
  bodyPieces,
  FramingError,
  parseHead,
  type ResponseBody,
  ResponseFramer,
  type ResponseHead,
} from './client/response-framer.js';
export {
  type EarlyStop,
  type LoadClock,
  monotonicMs,
  PACER_SPIN_MS,
  REAL_CLOCK,
  type SendLoopOptions,
  type SendLoopResult,
  type SentRequest,
  sendLoop,
  type TurnExchange,
} from './client/send-loop.js';
export {
  checkServerTokenizer,
  type ServerTokens,
  serverTokenize,
  TOKENIZER_PROBE_TEXT,
  type TokenizerCheck,
} from './client/server-tokenizer.js';
export { SERVING_METRICS } from './client/serving-descriptors.js';
export {
  type Distribution,
  distribution,
  lateness,
  measurementWindowS,
  meetsSlo,
  parseDurationMs,
  parseSlo,
  type ServingMetrics,
  type ServingMetricsOptions,
  type ServingSamples,
  type Slo,
  servingMetrics,
  wilsonInterval,
} from './client/serving-metrics.js';
export { type SseEvent, SseReader } from './client/sse-reader.js';
export { PROBE_TOKENS, probeContinuousUsage } from './client/stream-probe.js';
export {
  apportion,
  countTokens,
  type FailedRequest,
  pieceTokenCounts,
  type RecordContext,
  type RequestPlacement,
  type RequestRecord,
  requestRecord,
  type SucceededRequest,
  TOKEN_SOURCES,
  TOKEN_SPLITS,
  type TokenCounts,
  type TokenSource,
  type TokenSplit,
  type TokenTimings,
  tokenTimings,
} from './client/token-accounting.js';
export {
  conversationWorkload,
  exactTokenText,
  jsonlWorkload,
  parseMooncakeTrace,
  parseTrace,
  type TokenWorkloadOptions,
  TRACE_BLOCK_TOKENS,
  type TraceRow,
  tokenWorkload,
  traceWorkload,
  type WorkItem,
  type Workload,
  type WorkTurn,
} from './client/workload.js';
export type {
  ChatChoice,
  ChatCompletionRequest,
  ChatCompletionResponse,
  ChatMessage,
  ChatResponseMessage,
  CompletionChoice,
  CompletionRequest,
  CompletionResponse,
  CompletionTokensDetails,
  Endpoint,
  ErrorBody,
  ErrorDetail,
  PromptTokensDetails,
  SamplingFields,
  ServerTimings,
  StreamChoice,
  StreamChunk,
  StreamDelta,
  StreamOptions,
  Usage,
} from './openai-protocol.js';
export {
  ChatCompletionRequestSchema,
  ChatCompletionResponseSchema,
  CompletionRequestSchema,
  CompletionResponseSchema,
  ENDPOINT_PATHS,
  ENDPOINTS,
  ErrorBodySchema,
  ServerTimingsSchema,
  STREAM_DONE,
  StreamChunkSchema,
  UsageSchema,
} from './openai-protocol.js';
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
