/**
 * `ProfileTask` (`dantinox bench --profile`): where the time of one prefill and one decode step goes, per operator
 * category, from ONNX Runtime's profiler. The task does not time the model it is given: it asks its
 * {@link OpProfiler} to open a profiled instance of the same variant and call it.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { Model } from '../../models/model.js';
import type { Paradigm } from '../../models/paradigm.js';
import {
  OP_CATEGORIES,
  type OpCategory,
  parseOrtProfile,
  type TimeBreakdown,
  timeBreakdown,
} from '../../profiling/index.js';
import type { Rng } from '../../rng.js';
import type { BenchmarkConfig } from '../config.js';
import type { BenchmarkResult, BenchmarkTask, MetaValue, MetricDescriptor } from '../task.js';

/** The two profiled calls. */
export const PROFILE_PHASES = ['prefill', 'decode'] as const;

/** One profiled call: `prefill` (the prompt) or `decode` (one KV-cache step after it). */
export type ProfilePhase = (typeof PROFILE_PHASES)[number];

/**
 * Opens a profiled instance of the variant being benchmarked, runs a warm-up round then the profiled round (a
 * prefill over `promptIds`, then a decode step of `decodeId`, or a second forward pass when `decodeId` is
 * undefined) and resolves to ONNX Runtime's trace (see `profileModelCalls`).
 */
export type OpProfiler = (calls: ProfiledCallsInput) => Promise<unknown>;

/** The calls an {@link OpProfiler} profiles: token ids. */
export interface ProfiledCallsInput {
  /** The prompt of the prefill. */
  readonly promptIds: Int32Array;
  /** The token of the decode step (`undefined`: a second forward pass instead). */
  readonly decodeId: Int32Array | undefined;
}

/** Why a model has no operator profiler (its engine is not ONNX Runtime). */
export interface ProfilerUnavailable {
  /** The reason, recorded in the profile row. */
  readonly unavailable: string;
}

/** Options of {@link ProfileTask}. */
export interface ProfileTaskOptions {
  /** The profiler of the variant, or why there is none (e.g. an engine without an operator profiler). */
  readonly profiler: OpProfiler | ProfilerUnavailable;
}

/** Column of the milliseconds of `category` (or `kernels`, `run`) in `phase`: `profile_prefill_matmul_ms`. */
export function profileColumn(phase: ProfilePhase, part: OpCategory | 'kernels' | 'run'): string {
  return `profile_${phase}_${part}_ms`;
}

const CATEGORY_TEXT: Readonly<Record<OpCategory, string>> = {
  matmul: 'matrix products (MatMul, FusedMatMul, Gemm, MatMulNBits, DynamicQuantizeMatMul…)',
  attention:
    'fused attention kernels (Attention, MultiHeadAttention, GroupQueryAttention…) and RotaryEmbedding',
  norm: 'normalisations (LayerNormalization, SimplifiedLayerNormalization, SkipLayerNormalization…)',
  softmax: 'Softmax and LogSoftmax',
  other: 'every other operator (element-wise, activations, Gather, Reshape, Transpose, Concat, Split…)',
};

/** Descriptors of the profile columns. */
export const PROFILE_METRICS: readonly MetricDescriptor[] = PROFILE_PHASES.flatMap((phase) => {
  const call =
    phase === 'prefill'
      ? 'the profiled prefill (batch 1, prompt length profile_prompt)'
      : 'the profiled decode step (batch 1, context profile_prompt)';
  return [
    ...OP_CATEGORIES.map(
      (c): MetricDescriptor => ({
        key: profileColumn(phase, c),
        unit: 'ms',
        description: `ONNX Runtime kernel time of ${CATEGORY_TEXT[c]} in ${call}, from its profiler.`,
        higherIsBetter: false,
      }),
    ),
    {
      key: profileColumn(phase, 'kernels'),
      unit: 'ms',
      description: `Sum of the kernel times of ${call} (the categories add up to it).`,
      higherIsBetter: false,
    },
    {
      key: profileColumn(phase, 'run'),
      unit: 'ms',
      description: `Wall time of ${call} as ONNX Runtime's profiler saw it (kernels plus the framework between them; profiling adds overhead).`,
      higherIsBetter: false,
    },
  ];
});

/** The breakdowns a profile row holds, by phase (a phase without values is absent). */
export function profileBreakdowns(
  metrics: Readonly<Record<string, unknown>>,
): { phase: ProfilePhase; breakdown: TimeBreakdown }[] {
  const out: { phase: ProfilePhase; breakdown: TimeBreakdown }[] = [];
  const num = (key: string): number | undefined => {
    const v = metrics[key];
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
  };
  for (const phase of PROFILE_PHASES) {
    const kernelMs = num(profileColumn(phase, 'kernels'));
    const runMs = num(profileColumn(phase, 'run'));
    if (kernelMs === undefined || runMs === undefined) continue;
    const categoryMs = Object.fromEntries(
      OP_CATEGORIES.map((c) => [c, num(profileColumn(phase, c)) ?? 0]),
    ) as Record<OpCategory, number>;
    out.push({ phase, breakdown: { runMs, kernelMs, categoryMs } });
  }
  return out;
}

/**
 * The `profile` task: one prefill at prompt length P — the last of `config.seqLens` that leaves room for one more
 * token in the model's context, as the latency task's prompt — and one decode step at context P, each after a
 * warm-up call, under ONNX Runtime's profiler; the kernel time per operator category of each call (columns
 * `profile_{prefill,decode}_{category}_ms`, `…_kernels_ms`, `…_run_ms`). Paradigms without KV-cache decode get
 * the prefill only. Without a profiler the row has no values and meta `profile_unavailable` says why.
 */
export class ProfileTask implements BenchmarkTask {
  /** Task name (the row's `task`). */
  readonly name = 'profile';
  /** The profile columns. */
  readonly metrics = PROFILE_METRICS;
  readonly #profiler: ProfileTaskOptions['profiler'];

  constructor(options: ProfileTaskOptions) {
    this.#profiler = options.profiler;
  }

  /**
   * Profiles the variant's calls.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when no sequence length fits; the profiler's errors.
   */
  async run(paradigm: Paradigm, model: Model, config: BenchmarkConfig, rng: Rng): Promise<BenchmarkResult> {
    const profiler = this.#profiler;
    if (typeof profiler !== 'function')
      return { task: this.name, metrics: {}, meta: { profile_unavailable: profiler.unavailable } };
    const { vocabSize, maxContext } = model.config;
    const fitting = config.seqLens.filter((l) => l < maxContext);
    const prompt = fitting[fitting.length - 1];
    if (prompt === undefined)
      throw new DantinoxError('INVALID_OPTION', messages.noUsableSeqLen(config.seqLens, maxContext - 1));
    const kv = paradigm.supportsKvDecode;
    const promptIds = rng.integers(vocabSize, prompt);
    const decodeId = kv ? rng.integers(vocabSize, 1) : undefined;
    const runs = parseOrtProfile(await profiler({ promptIds, decodeId }));
    // Warm-up round first: the profiled calls are the last one (forward) or two (prefill, decode).
    const phases: ProfilePhase[] = kv ? ['prefill', 'decode'] : ['prefill'];
    const profiled = runs.slice(-phases.length);
    if (profiled.length < phases.length)
      throw new DantinoxError('INVALID_INPUT', messages.badOrtTrace(`${runs.length} model_run event(s)`));
    const metrics: Record<string, number> = {};
    for (const [i, phase] of phases.entries()) {
      const b = timeBreakdown(profiled[i] as (typeof profiled)[number]);
      for (const c of OP_CATEGORIES) metrics[profileColumn(phase, c)] = b.categoryMs[c];
      metrics[profileColumn(phase, 'kernels')] = b.kernelMs;
      metrics[profileColumn(phase, 'run')] = b.runMs;
    }
    const meta: Record<string, MetaValue> = { profile_prompt: prompt };
    return { task: this.name, metrics, meta };
  }
}
