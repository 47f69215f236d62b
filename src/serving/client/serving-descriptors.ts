/**
 * Units, directions and definitions of the metrics a load writes per sweep point (the cells of task `serving`),
 * so that `compare` judges them in the right direction and the report's glossary explains them.
 *
 * @packageDocumentation
 */
import type { MetricDescriptor } from '../../benchmarking/task.js';

const latency = (key: string, what: string): MetricDescriptor[] => [
  {
    key: `${key}_ms`,
    unit: 'ms',
    description: `${what}, mean over the measured requests.`,
    higherIsBetter: false,
  },
  { key: `${key}_p50_ms`, unit: 'ms', description: `${what}, median.`, higherIsBetter: false },
  { key: `${key}_p90_ms`, unit: 'ms', description: `${what}, 90th percentile.`, higherIsBetter: false },
  { key: `${key}_p99_ms`, unit: 'ms', description: `${what}, 99th percentile.`, higherIsBetter: false },
];

/** Descriptors of the metrics of a serving sweep point (`errors_{kind}` counts are listed as one pattern each). */
export const SERVING_METRICS: readonly MetricDescriptor[] = [
  ...latency('ttft', 'Time to first token (send to the first chunk carrying text, thinking included)'),
  ...latency('ttst', 'Time to second token (send to the chunk carrying token 2)'),
  ...latency('ttfa', 'Time to the first token of the answer, after any thinking (reasoning models)'),
  ...latency('itl', 'Inter-token latency, per token (a chunk gap spread over its tokens)'),
  ...latency('tpot', 'Time per output token, (e2e − TTFT) / (output tokens − 1)'),
  ...latency('e2e', 'End-to-end latency (send to last byte)'),
  ...latency(
    'e2e_queue',
    'End-to-end latency from the planned send (client queue time and schedule lateness included)',
  ),
  {
    key: 'output_tps',
    unit: 'tok/s',
    description: 'Output tokens of successful requests / measurement window.',
    higherIsBetter: true,
  },
  {
    key: 'requests_per_s',
    unit: 'req/s',
    description: 'Successful requests / measurement window.',
    higherIsBetter: true,
  },
  {
    key: 'goodput_rps',
    unit: 'req/s',
    description: 'Requests meeting every SLO / measurement window.',
    higherIsBetter: true,
  },
  {
    key: 'slo_attainment',
    unit: '1',
    description: 'Share of measured requests meeting every SLO (failures do not).',
    higherIsBetter: true,
  },
  {
    key: 'slo_attainment_low',
    unit: '1',
    description: 'Lower bound of the 95% Wilson interval of the SLO attainment.',
  },
  {
    key: 'slo_attainment_high',
    unit: '1',
    description: 'Upper bound of the 95% Wilson interval of the SLO attainment.',
  },
  { key: 'requests', unit: 'requests', description: 'Measured requests (outside warm-up and cool-down).' },
  {
    key: 'excluded_requests',
    unit: 'requests',
    description: 'Requests of the warm-up and cool-down windows, sent but left out of the statistics.',
  },
  { key: 'succeeded', unit: 'requests', description: 'Measured requests that ended normally.' },
  { key: 'errors', unit: 'requests', description: 'Measured requests that failed, of any kind.' },
  { key: 'error_rate', unit: '1', description: 'Failed / measured requests.', higherIsBetter: false },
  { key: 'errors_http_{X}', unit: 'requests', description: 'Failed requests answered with HTTP status X.' },
  {
    key: 'ttft_turn_{k}_p50_ms',
    unit: 'ms',
    description: "A multi-turn load: median TTFT of the conversations' turn k (1-based), history included.",
    higherIsBetter: false,
  },
  {
    key: 'turns_per_conversation',
    unit: 'requests',
    description: 'A multi-turn load: successful turns per conversation, mean.',
  },
  {
    key: 'lag_ms',
    unit: 'ms',
    description: 'Schedule lateness (send − planned send − client queue time), mean.',
    higherIsBetter: false,
  },
  { key: 'lag_p50_ms', unit: 'ms', description: 'Schedule lateness, median.', higherIsBetter: false },
  {
    key: 'lag_p99_ms',
    unit: 'ms',
    description: 'Schedule lateness, 99th percentile.',
    higherIsBetter: false,
  },
  {
    key: 'queue_ms',
    unit: 'ms',
    description:
      'Client queue time: a planned request waiting for a free slot (--concurrency reached), mean.',
    higherIsBetter: false,
  },
  {
    key: 'queue_p99_ms',
    unit: 'ms',
    description: 'Client queue time, 99th percentile.',
    higherIsBetter: false,
  },
  {
    key: 'output_tokens',
    unit: 'tokens',
    description:
      "Output tokens of successful requests: the server's counts (usage, or its /tokenize) where it gave them, else the client tokenizer's.",
  },
  {
    key: 'reasoning_tokens',
    unit: 'tokens',
    description:
      'Of the output tokens, tokens of thinking (reasoning_content), counted apart from the answer.',
  },
  {
    key: 'client_tokens',
    unit: 'tokens',
    description: "Output tokens of successful requests by the client's tokenizer alone.",
  },
  {
    key: 'tokens_per_chunk',
    unit: 'tokens',
    description: 'Output tokens / streamed chunks that carried tokens.',
  },
  {
    key: 'server_token_share',
    unit: '1',
    description: 'Share of successful requests whose output tokens the server counted (token_source server).',
  },
  {
    key: 'tokens_exact',
    unit: '1',
    description:
      "1 when every request's output tokens are the server's or a tokenizer known to be the server's; 0: per-token figures are approximate.",
  },
  {
    key: 'itl_exact',
    unit: '1',
    description:
      "1 when every chunk's token count is known (server's running usage, or a tokenizer that agrees with the server); 0: a chunk's gap was spread by the client's counts.",
  },
  {
    key: 'server_tokens',
    unit: 'tokens',
    description: 'Output tokens of the requests the server counted (usage, or its /tokenize).',
  },
  {
    key: 'token_count_diff',
    unit: 'tokens',
    description: "Client tokenizer's − server's output tokens, over the requests the server counted.",
  },
  {
    key: 'prompt_tokens',
    unit: 'tokens',
    description: 'Prompt tokens of successful requests as the server reported them (usage.prompt_tokens).',
  },
  {
    key: 'planned_prompt_tokens',
    unit: 'tokens',
    description:
      "Prompt tokens of successful requests as the workload planned them (the client's tokenizer).",
  },
  {
    key: 'cache_hit_rate',
    unit: '1',
    description:
      'Prompt tokens the server took from its prefix cache / prompt tokens (usage.prompt_tokens_details.cached_tokens), over requests that report it.',
    higherIsBetter: true,
  },
  {
    key: 'server_prompt_ms',
    unit: 'ms',
    description: "Prefill time the server reported per request (llama-server's timings.prompt_ms), mean.",
    higherIsBetter: false,
  },
  {
    key: 'server_tpot_ms',
    unit: 'ms',
    description: 'Time per generated token the server reported (timings.predicted_per_token_ms), mean.',
    higherIsBetter: false,
  },
  {
    key: 'ttft_outside_prompt_ms',
    unit: 'ms',
    description: 'TTFT − the prefill time the server reported, mean: queueing, HTTP and the client.',
    higherIsBetter: false,
  },
  {
    key: 'window_s',
    unit: 's',
    description: 'Measurement window: first measured send to last measured end.',
  },
  {
    key: 'concurrency',
    unit: 'requests',
    description: 'Most requests in flight at the sweep point (0: unbounded).',
  },
  {
    key: 'rate',
    unit: 'req/s',
    description: 'Planned arrival rate at the sweep point (0: as fast as possible).',
  },
];
