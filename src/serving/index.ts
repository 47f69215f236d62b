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
