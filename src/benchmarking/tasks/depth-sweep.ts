/**
 * The latency task's context-depth sweep (`--depths`): at each depth d, a prefill of the prompt and decode steps
 * on a KV cache that already holds d tokens, with the analytical attention FLOPs and KV bytes of each call beside
 * the measured time, and a least-squares line per phase (ms vs depth).
 *
 * @packageDocumentation
 */
import type { Dtype } from '../../dtype.js';
import { messages } from '../../messages.js';
import type { DecodeState, Model } from '../../models/model.js';
import { modelFootprint } from '../../models/model-footprint.js';
import { countFlops, depthCost, fitLine } from '../../profiling/index.js';
import type { Rng } from '../../rng.js';
import { type CallPhase, runCell } from '../cell-runner.js';
import type { BenchmarkConfig } from '../config.js';
import type { CellRecord, MetaValue, MetricDescriptor } from '../task.js';
import { budgetOf, NO_LOGITS } from './task-context.js';

/** Phase label of the prefill-at-depth cells. */
export const PREFILL_DEPTH_PHASE = 'prefill_depth';
/** Phase label of the decode-at-depth cells. */
export const DECODE_DEPTH_PHASE = 'decode_depth';

const MIB = 2 ** 20;

const perDepth = (phase: 'prefill' | 'decode'): MetricDescriptor[] => {
  const what =
    phase === 'prefill'
      ? 'a prefill of the P-token prompt on a KV cache already holding D tokens'
      : 'one decode step on a KV cache holding D tokens (steps run from D up to D + nMeasure; depth 0 decodes on 1 token)';
  return [
    {
      key: `${phase}_ms_d{D}`,
      unit: 'ms',
      description: `Mean wall time of ${what}; filling the cache is never timed nor counted as warm-up.`,
      higherIsBetter: false,
    },
    {
      key: `${phase}_tps_d{D}`,
      unit: 'tok/s',
      description: `Σ tokens / Σ seconds of ${what}.`,
      higherIsBetter: true,
    },
    {
      key: `${phase}_gflop_d{D}`,
      unit: 'GFLOP',
      description: `Analytical FLOPs of ${what} (countFlops with pastLength D; the LM head over the last position only).`,
    },
    {
      key: `${phase}_attn_gflop_d{D}`,
      unit: 'GFLOP',
      description: `The attention-score part (QKᵀ and AV) of \`${phase}_gflop_d{D}\`: the compute that grows with depth.`,
    },
    {
      key: `${phase}_kv_mib_d{D}`,
      unit: 'MiB',
      description: `Analytical KV-cache bytes ${what} reads (the positions some query attends to), in MiB.`,
    },
    {
      key: `${phase}_mib_d{D}`,
      unit: 'MiB',
      description: `Analytical bytes ${what} moves: active weights once plus \`${phase}_kv_mib_d{D}\`, in MiB.`,
    },
    {
      key: `${phase}_depth_slope_us`,
      unit: 'µs/token',
      description: `Slope of the least-squares line through \`${phase}_ms_d{D}\` against D: added time per token of depth.`,
      higherIsBetter: false,
    },
    {
      key: `${phase}_depth_intercept_ms`,
      unit: 'ms',
      description: `Intercept of that line: the fitted time of ${phase === 'prefill' ? 'the prefill' : 'a step'} at depth 0.`,
      higherIsBetter: false,
    },
    {
      key: `${phase}_depth_fit_r2`,
      unit: '1',
      description: 'Coefficient of determination of that line (1: the times lie on it).',
    },
  ];
};

/** Metrics of the depth sweep, added to the latency row when `--depths` is given. */
export const DEPTH_METRICS: readonly MetricDescriptor[] = [
  ...perDepth('prefill'),
  ...perDepth('decode'),
  {
    key: 'decode_kv_crossover_depth',
    unit: 'tokens',
    description:
      "Analytical depth from which a decode step reads more KV-cache bytes than weight bytes (memory-bound steps: attention's share of the time passes one half).",
  },
  {
    key: 'prefill_attn_crossover_depth',
    unit: 'tokens',
    description:
      'Analytical depth from which the attention-score FLOPs of the prompt prefill exceed all its other FLOPs.',
  },
];

/** What the sweep needs from the latency task. */
export interface DepthSweepContext {
  /** Task name (the cells' `task`). */
  readonly task: string;
  /** Prompt length P of the prefill cells. */
  readonly prompt: number;
  /** Cell environment (clock, barrier, signal). */
  readonly env: Parameters<typeof runCell>[2];
  /** Records a finished cell. */
  readonly keep: (cell: CellRecord) => Promise<CellRecord>;
  /** Receives the one-line note on skipped depths. */
  readonly warn: (message: string) => void;
}

/** Which of `depths` a model of `maxContext` can time: prefill at d needs d + P positions, decode d + 1. */
export function depthsThatFit(
  depths: readonly number[],
  maxContext: number,
  prompt: number,
): { prefill: number[]; decode: number[]; skipped: number[] } {
  const decode = depths.filter((d) => Math.max(d, 1) + 1 <= maxContext);
  const prefill = depths.filter((d) => d + prompt <= maxContext);
  return { prefill, decode, skipped: depths.filter((d) => !decode.includes(d)) };
}

/**
 * The analytical crossover depths of `model` (tokens): where a decode step's KV bytes pass its weight bytes, and
 * where the prompt prefill's attention-score FLOPs pass all its other FLOPs. Beyond `maxContext` they are still
 * given (the model's arithmetic does not stop there).
 */
export function crossoverDepths(model: Model, prompt: number): Record<string, number> {
  const footprint = modelFootprint(model);
  const decodeKv = Math.max(0, Math.ceil(footprint.activeWeightBytes / footprint.kvBytesPerToken) - 1);
  // Prefill scores grow linearly in d: scores(d) = a · P · (d + P); the rest does not depend on d.
  const at0 = countFlops(model.config, {
    seqLen: Math.min(prompt, model.config.maxContext),
    logitPositions: 1,
  });
  const perKey = at0.attentionScores / (prompt * prompt);
  const rest = at0.total - at0.attentionScores;
  const prefillAttn = model.config.slidingWindow
    ? Number.NaN
    : Math.max(0, Math.ceil(rest / (perKey * prompt) - prompt));
  const out: Record<string, number> = { decode_kv_crossover_depth: decodeKv };
  if (Number.isFinite(prefillAttn)) out['prefill_attn_crossover_depth'] = prefillAttn;
  return out;
}

/** The analytical columns of a cell at `depth` processing `seqLen` tokens. */
function analytical(model: Model, depth: number, seqLen: number): Record<string, number> {
  const c = depthCost(model.config, {
    depth,
    seqLen,
    dtype: (model.info.runtimeDtype ?? model.info.dtype) as Dtype,
  });
  return {
    depth,
    gflop: c.flops / 1e9,
    attn_gflop: c.attentionScoreFlops / 1e9,
    kv_mib: c.kvReadBytes / MIB,
    mib: c.bytes / MIB,
  };
}

/** `cell` with the analytical columns added to its metrics when it completed. */
const withAnalytical = (cell: CellRecord, columns: Record<string, number>): CellRecord =>
  cell.status === 'completed' ? { ...cell, metrics: { ...cell.metrics, ...columns } } : cell;

/**
 * Times the depth sweep of `config.depths` on `model` (batch 1) and records its cells: per depth that fits, a
 * `decode@d{D}` cell (phase {@link DECODE_DEPTH_PHASE}) and, when the model has {@link Model.extend} (or at depth
 * 0), a `prefill@{P}+d{D}` cell (phase {@link PREFILL_DEPTH_PHASE}). Before each timed or warm-up call the cache is
 * filled to depth d by an untimed prefill (decode: only when the steps have drifted `nMeasure` past d or hit
 * `maxContext`; the timed steps start from a fresh fill), so filling is never timed and never a warm-up call.
 *
 * @returns meta notes: skipped depths, a missing `extend`, and the analytical crossover depths.
 */
export async function runDepthSweep(
  model: Model,
  config: BenchmarkConfig,
  rng: Rng,
  ctx: DepthSweepContext,
): Promise<Record<string, MetaValue>> {
  const { vocabSize, maxContext } = model.config;
  const { prompt } = ctx;
  const meta: Record<string, MetaValue> = { ...crossoverDepths(model, prompt) };
  const fit = depthsThatFit(config.depths, maxContext, prompt);
  if (fit.skipped.length > 0 || fit.prefill.length < fit.decode.length) {
    const note = messages.depthsSkipped(
      model.info.name,
      config.depths.filter((d) => !fit.prefill.includes(d)),
      maxContext,
      prompt,
      fit.decode.filter((d) => !fit.prefill.includes(d)),
    );
    meta['depths_skipped'] = note;
    ctx.warn(note);
  }
  const maxDepth = Math.max(0, ...fit.decode, ...fit.prefill);
  const fillIds = rng.integers(vocabSize, Math.max(1, maxDepth));
  const promptIds = rng.integers(vocabSize, prompt);
  const stepIds = rng.integers(vocabSize, 1);
  const fill = async (depth: number): Promise<DecodeState> =>
    (await model.prefill(fillIds.subarray(0, depth), { batch: 1, seq: depth }, NO_LOGITS)).state;
  const extend = model.extend?.bind(model);
  if (extend === undefined && fit.prefill.some((d) => d > 0))
    meta['depth_prefill'] = messages.depthPrefillUnavailable(model.info.engine);

  for (const depth of fit.prefill) {
    if (depth > 0 && extend === undefined) continue;
    let state: DecodeState | undefined;
    let last: DecodeState | undefined;
    const cell = await runCell(
      {
        task: ctx.task,
        cell: `prefill@${prompt}+d${depth}`,
        phase: PREFILL_DEPTH_PHASE,
        batch: 1,
        seqLen: prompt,
        tokensPerCall: prompt,
        flops: countFlops(model.config, { seqLen: prompt, pastLength: depth, logitPositions: 1 }),
        before: async () => {
          last?.dispose();
          last = undefined;
          if (depth > 0) state = await fill(depth);
        },
        call: async () => {
          const out =
            depth === 0 || extend === undefined
              ? await model.prefill(promptIds, { batch: 1, seq: prompt }, NO_LOGITS)
              : await extend(promptIds, prompt, state as DecodeState, NO_LOGITS);
          last = out.state;
        },
      },
      budgetOf(config),
      ctx.env,
    );
    last?.dispose();
    state?.dispose();
    await ctx.keep(withAnalytical(cell, analytical(model, depth, prompt)));
  }

  const kvBytesPerToken = modelFootprint(model).kvBytesPerToken;
  for (const depth of fit.decode) {
    const context0 = Math.max(1, depth);
    const limit = Math.min(maxContext, context0 + config.nMeasure);
    let state: DecodeState | undefined;
    let timedStarted = false;
    // The cache the engine holds at depth d (measured right after a fill), beside memoryFootprint's prediction.
    let held: number | undefined;
    const refill = async (): Promise<void> => {
      state?.dispose();
      state = await fill(context0);
      held ??= model.kvCacheHeldBytes?.(state);
    };
    const cell = await runCell(
      {
        task: ctx.task,
        cell: `decode@d${depth}`,
        phase: DECODE_DEPTH_PHASE,
        batch: 1,
        seqLen: context0,
        tokensPerCall: 1,
        flops: countFlops(model.config, { seqLen: 1, pastLength: context0 }),
        before: async (phase: CallPhase) => {
          if (phase === 'measure' && !timedStarted) {
            timedStarted = true;
            await refill();
          } else if (state === undefined || state.length + 1 > limit) await refill();
        },
        call: async () => {
          state = (await model.decodeStep(stepIds, state as DecodeState, NO_LOGITS)).state;
        },
      },
      budgetOf(config),
      ctx.env,
    );
    state?.dispose();
    const memory =
      held === undefined
        ? {}
        : { kv_held_mib: held / MIB, kv_predicted_mib: (kvBytesPerToken * context0) / MIB };
    await ctx.keep(withAnalytical(cell, { ...analytical(model, context0, 1), ...memory }));
  }
  return meta;
}

/**
 * The depth sweep's row metrics from its completed cells: per depth D and phase the mean time, tokens/s and the
 * analytical columns, and per phase the least-squares line of ms against D (when two depths or more completed).
 */
export function depthMetrics(cells: readonly CellRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [phase, label] of [
    [PREFILL_DEPTH_PHASE, 'prefill'],
    [DECODE_DEPTH_PHASE, 'decode'],
  ] as const) {
    const done = cells.filter((c) => c.phase === phase && c.status === 'completed');
    const depths: number[] = [];
    const times: number[] = [];
    for (const c of done) {
      const m = c.metrics;
      // The cell id carries the requested depth (decode at depth 0 runs on a 1-token cache).
      const depth = Number(/d(\d+)$/.exec(c.cell)?.[1]);
      if (!Number.isFinite(depth)) continue;
      const copy = (to: string, from: string): void => {
        const v = m[from];
        if (v !== undefined) out[`${label}_${to}_d${depth}`] = v;
      };
      copy('ms', 'mean_ms');
      copy('tps', 'tps');
      copy('gflop', 'gflop');
      copy('attn_gflop', 'attn_gflop');
      copy('kv_mib', 'kv_mib');
      copy('kv_held_mib', 'kv_held_mib');
      copy('kv_predicted_mib', 'kv_predicted_mib');
      copy('mib', 'mib');
      depths.push(m['depth'] ?? depth);
      times.push(m['mean_ms'] ?? Number.NaN);
    }
    const line = fitLine(depths, times);
    if (line !== undefined) {
      out[`${label}_depth_slope_us`] = line.slope * 1000;
      out[`${label}_depth_intercept_ms`] = line.intercept;
      out[`${label}_depth_fit_r2`] = line.r2;
    }
  }
  return out;
}
