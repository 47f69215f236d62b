/**
 * Human-readable titles, with units, for the report's metric columns (`peak_tps` → "Peak throughput
 * (tokens/s)"), and which metrics are better when lower. Unknown columns get a title-cased name.
 *
 * @packageDocumentation
 */

interface MetricInfo {
  /** Axis title with unit. */
  readonly title: string;
  /** Short spoke / table label. */
  readonly short: string;
}

const KNOWN: Readonly<Record<string, MetricInfo>> = {
  peak_tps: { title: 'Peak throughput (tokens/s)', short: 'Peak tok/s' },
  throughput_tps: { title: 'Throughput (tokens/s)', short: 'Throughput tok/s' },
  decode_tps: { title: 'Decode throughput (tokens/s)', short: 'Decode tok/s' },
  latency_mean_ms: { title: 'Latency, mean (ms)', short: 'Latency ms' },
  latency_p99_ms: { title: 'Latency, p99 (ms)', short: 'Latency p99 ms' },
  prefill_mean_ms: { title: 'Prefill latency, mean (ms)', short: 'Prefill ms' },
  prefill_p50_ms: { title: 'Prefill latency, p50 (ms)', short: 'Prefill p50 ms' },
  prefill_p99_ms: { title: 'Prefill latency, p99 (ms)', short: 'Prefill p99 ms' },
  decode_mean_ms: { title: 'Decode step latency, mean (ms)', short: 'Decode ms' },
  decode_p50_ms: { title: 'Decode step latency, p50 (ms)', short: 'Decode p50 ms' },
  decode_p99_ms: { title: 'Decode step latency, p99 (ms)', short: 'Decode p99 ms' },
  ttft_ms: { title: 'Time to first token (ms)', short: 'TTFT ms' },
  tpot_ms: { title: 'Time per output token (ms)', short: 'TPOT ms' },
  flops_total_g: { title: 'Forward FLOPs, total (GFLOPs)', short: 'GFLOPs' },
  flops_attn_g: { title: 'Forward FLOPs, attention (GFLOPs)', short: 'Attn GFLOPs' },
  flops_ffn_g: { title: 'Forward FLOPs, FFN (GFLOPs)', short: 'FFN GFLOPs' },
  perplexity: { title: 'Perplexity', short: 'Perplexity' },
  eval_loss: { title: 'Eval loss (nats/token)', short: 'Eval loss' },
  bits_per_byte: { title: 'Bits per byte', short: 'Bits/byte' },
  tokens_scored: { title: 'Tokens scored', short: 'Tokens scored' },
  kld_mean: { title: 'KLD, mean (nats)', short: 'KLD mean' },
  kld_p99: { title: 'KLD, p99 (nats)', short: 'KLD p99' },
  top1_agreement: { title: 'Top-1 agreement with the reference', short: 'Top-1 agree' },
  ppl_ratio: { title: 'Perplexity ÷ reference perplexity', short: 'PPL ratio' },
  accuracy: { title: 'Multiple-choice accuracy', short: 'Choice accuracy' },
  accuracy_norm: { title: 'Multiple-choice accuracy, length-normalised', short: 'Choice acc. norm' },
  parity_prefill: { title: 'Prefill speed, browser ÷ Node', short: 'Browser÷Node prefill' },
  parity_decode: { title: 'Decode speed, browser ÷ Node', short: 'Browser÷Node decode' },
  params: { title: 'Parameters', short: 'Params' },
  loss: { title: 'Loss', short: 'Loss' },
  train_loss: { title: 'Training loss', short: 'Train loss' },
  val_loss: { title: 'Validation loss', short: 'Val loss' },
};

const titleCase = (column: string): string => {
  const words = column.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/**
 * The axis title of a metric column, with its unit when known (`prefill_p99_ms` → "Prefill latency, p99 (ms)";
 * `tps_seq128` → "Throughput at 128 tokens (tokens/s)"); otherwise the column name in sentence case.
 */
export function metricTitle(column: string): string {
  const known = KNOWN[column];
  if (known) return known.title;
  const seq = /^tps_(?:seq|sl)?(\d+)$/.exec(column);
  if (seq) return `Throughput at ${seq[1]} tokens (tokens/s)`;
  const bs = /^tps_bs(\d+)$/.exec(column);
  if (bs) return `Throughput at batch ${bs[1]} (tokens/s)`;
  return titleCase(column);
}

/** A short label of a metric column for radar spokes and table headers (`peak_tps` → "Peak tok/s"). */
export function metricShortLabel(column: string): string {
  const known = KNOWN[column];
  if (known) return known.short;
  const seq = /^tps_(?:seq|sl)?(\d+)$/.exec(column);
  if (seq) return `tok/s @${seq[1]}`;
  const bs = /^tps_bs(\d+)$/.exec(column);
  if (bs) return `tok/s @bs${bs[1]}`;
  return titleCase(column);
}

/**
 * Name fragments of metrics where a lower value is better: latencies and times (`latency`, `_ms`, `ttft`,
 * `tpot`, `time`, `_s`), perplexity (and its ratio to a reference), KL divergences, losses, bits per byte/token,
 * memory and bytes, error rates.
 */
export const LOWER_IS_BETTER_PATTERNS: readonly RegExp[] = [
  /latency/i,
  /(^|_)ms($|_)/i,
  /(^|_)(s|sec|seconds|ns|us)$/i,
  /ttft|tpot|(^|_)time($|_)/i,
  /perplexity|(^|_)ppl($|_)/i,
  /(^|_)kld($|_)/i,
  /loss/i,
  /bits|(^|_)bpb($|_)|(^|_)bpt($|_)/i,
  /memory|(^|_)mem($|_)|bytes|(^|_)(mb|gb|kb)($|_)/i,
  /error|(^|_)err($|_)/i,
];

/** Options that override the built-in direction of specific metrics. */
export interface MetricDirectionOptions {
  /** Columns to treat as lower-is-better in addition to {@link LOWER_IS_BETTER_PATTERNS}. @default [] */
  readonly lowerIsBetter?: readonly string[];
  /** Columns to treat as higher-is-better even if a pattern says otherwise. @default [] */
  readonly higherIsBetter?: readonly string[];
}

/** True when a smaller value of `column` is better (explicit options win over the built-in patterns). */
export function isLowerBetter(column: string, options: MetricDirectionOptions = {}): boolean {
  if (options.higherIsBetter?.includes(column)) return false;
  if (options.lowerIsBetter?.includes(column)) return true;
  return LOWER_IS_BETTER_PATTERNS.some((p) => p.test(column));
}
