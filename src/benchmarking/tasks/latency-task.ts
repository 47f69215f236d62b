/**
 * `LatencyTask`: prefill latency at the prompt length; for paradigms with a KV cache, real decode-step latency at
 * that context and a timed generation (TTFT, TPOT, end to end); for diffusion, per-pass and end-to-end
 * generation latency; with `depths`, the context-depth sweep (see `depth-sweep.ts`).
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { DecodeState, Model } from '../../models/model.js';
import type { Paradigm } from '../../models/paradigm.js';
import { countDecodeFlops, countFlops } from '../../profiling/index.js';
import type { Rng } from '../../rng.js';
import { type CallPhase, runCell } from '../cell-runner.js';
import type { BenchmarkConfig } from '../config.js';
import type {
  BenchmarkContext,
  BenchmarkResult,
  BenchmarkTask,
  CellRecord,
  MetaValue,
  MetricDescriptor,
} from '../task.js';
import { DEPTH_METRICS, depthMetrics, runDepthSweep } from './depth-sweep.js';
import { budgetOf, failedCellsNote, keepCell, NO_LOGITS, standaloneContext } from './task-context.js';

const ms = (key: string, description: string): MetricDescriptor => ({
  key,
  unit: 'ms',
  description,
  higherIsBetter: false,
});

/** Metrics of {@link LatencyTask}. */
export const LATENCY_METRICS: readonly MetricDescriptor[] = [
  ms('prefill_mean_ms', 'Mean wall time of one forward pass over the prompt (batch 1, prompt length P).'),
  ms('prefill_p50_ms', 'Median (linear interpolation) of the prefill wall time.'),
  ms(
    'prefill_p99_ms',
    '99th percentile (linear interpolation) of the prefill wall time; with n < 100 it lies between the two largest samples.',
  ),
  ms('decode_mean_ms', 'Mean wall time of one real KV-cache decode step (batch 1) at context ≈ P (ar only).'),
  ms('decode_p50_ms', 'Median of the decode-step wall time (ar only).'),
  ms('decode_p99_ms', '99th percentile of the decode-step wall time (ar only).'),
  {
    key: 'decode_tps',
    unit: 'tok/s',
    description: 'Decode-only throughput: Σ tokens / Σ seconds over the timed decode steps (ar only).',
    higherIsBetter: true,
  },
  ms(
    'ttft_ms',
    'Time to first token: mean over timed generations of the time from calling generate to the end of the prefill call (ar).',
  ),
  ms(
    'tpot_ms',
    'Time per output token after the first: mean over generations of (e2e − ttft)/(n − 1), n = genTokens (ar).',
  ),
  ms(
    'e2e_ms',
    'End-to-end generation latency of genTokens tokens from a P-token prompt, mean over timed generations (ar).',
  ),
  ms(
    'diffusion_step_mean_ms',
    'Mean wall time of one denoising pass over the prompt + genTokens canvas (diffusion).',
  ),
  ms('diffusion_step_p99_ms', '99th percentile of the denoising-pass wall time (diffusion).'),
  ms(
    'gen_e2e_ms',
    'End-to-end generation latency of diffusionSteps denoising passes, mean over timed generations (diffusion).',
  ),
  ...DEPTH_METRICS,
];

/** Options of {@link LatencyTask}. */
export interface LatencyTaskOptions {
  /** Row name. @default 'latency' */
  readonly name?: string;
}

/** A duration in ms rounded to 1 µs, as cells keep their samples. */
const roundToMicrosecond = (ms: number): number => Math.round(ms * 1000) / 1000;

/** The per-generation lists worth keeping: non-empty and finite (no TPOT from one-token generations). */
function generationSamples(lists: Record<string, readonly number[]>): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [metric, xs] of Object.entries(lists))
    if (xs.length > 0 && xs.every(Number.isFinite)) out[metric] = xs.map(roundToMicrosecond);
  return out;
}

/** Mean of `xs` (NaN for none). */
const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The budget of a timed generation: one warm-up call (a generation is long), no time-based warm-up, and a soft stop
 * at half the cell budget so a slow model still reports the generations it finished.
 */
function generationBudget(config: BenchmarkConfig): ReturnType<typeof budgetOf> {
  return budgetOf(config, {
    nWarmup: Math.min(1, config.nWarmup),
    minWarmupMs: 0,
    softStopMs: config.maxCellMs / 2,
  });
}

/**
 * Latency of single requests (batch 1). The prompt length P is the last of `config.seqLens` that fits the
 * model's `maxContext`. Prefill is timed at P. With `paradigm.supportsKvDecode` (ar): decode steps are real
 * KV-cache steps on a cache of ≈ P tokens (capped at `maxContext − nMeasure` so the timed steps fit), and
 * `nMeasure` generations of `genTokens` tokens give TTFT, TPOT and end-to-end latency. Otherwise (diffusion):
 * the denoising pass over the generation canvas and a full `diffusionSteps`-pass generation are timed, and
 * `meta.decode` says why there are no decode metrics.
 */
export class LatencyTask implements BenchmarkTask {
  /** Row name. */
  readonly name: string;
  /** Metric schema. */
  readonly metrics = LATENCY_METRICS;

  constructor(options: LatencyTaskOptions = {}) {
    this.name = options.name ?? 'latency';
  }

  /**
   * Runs the cells.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when no sequence length fits the model, `RUNTIME_ERROR` when
   * no cell completed.
   */
  async run(
    paradigm: Paradigm,
    model: Model,
    config: BenchmarkConfig,
    rng: Rng,
    context: BenchmarkContext = standaloneContext(),
  ): Promise<BenchmarkResult> {
    const { vocabSize, maxContext } = model.config;
    const fitting = config.seqLens.filter((l) => l <= maxContext);
    const prompt = fitting[fitting.length - 1];
    if (prompt === undefined)
      throw new DantinoxError('INVALID_OPTION', messages.noUsableSeqLen(config.seqLens, maxContext));
    const kv = paradigm.supportsKvDecode;
    const depths = kv ? config.depths.length : 0;
    context.plan(3 + 2 * depths);
    const cells: CellRecord[] = [];
    const meta: Record<string, MetaValue> = {};
    const env = {
      clock: context.clock,
      barrier: () => model.barrier(),
      signal: context.signal,
      tracer: context.tracer,
    };
    const budget = budgetOf(config);
    const keep = (c: CellRecord): Promise<CellRecord> => keepCell(context, cells, c);

    // Prefill at P.
    const promptIds = rng.integers(vocabSize, prompt);
    const prefillFlops = countFlops(model.config, { seqLen: prompt, batchSize: 1 });
    await keep(
      await runCell(
        {
          task: this.name,
          cell: `prefill@${prompt}`,
          phase: 'prefill',
          batch: 1,
          seqLen: prompt,
          tokensPerCall: prompt,
          flops: prefillFlops,
          call: () => model.forward(promptIds, { batch: 1, seq: prompt }, NO_LOGITS),
        },
        budget,
        env,
      ),
    );

    if (kv) await this.#autoregressive(paradigm, model, config, rng, prompt, { env, keep, meta });
    else await this.#diffusion(paradigm, model, config, rng, prompt, { env, keep, meta });
    if (depths > 0) {
      const [depthRng] = rng.split(1) as [Rng];
      const notes = await runDepthSweep(model, config, depthRng, {
        task: this.name,
        prompt,
        env,
        keep,
        warn: (message) => context.logger.log('warn', message),
      });
      Object.assign(meta, notes);
    }

    const result = this.summarize(cells, config);
    return { ...result, meta: { ...meta, ...result.meta } };
  }

  /**
   * The row from the cells measured so far (all of them after a full run; the finished ones after Ctrl-C or a
   * crash): prefill, decode and generation metrics from the completed `prefill`, `decode`, `generate` and
   * `denoise` cells.
   *
   * @throws Error when no cell completed.
   */
  summarize(cells: readonly CellRecord[], config: BenchmarkConfig): BenchmarkResult {
    const metrics: Record<string, number> = {};
    const meta: Record<string, MetaValue> = {};
    const done = (phase: string): CellRecord | undefined =>
      cells.find((c) => c.phase === phase && c.status === 'completed');
    const copy = (cell: CellRecord | undefined, pairs: readonly [string, string][]): void => {
      if (cell === undefined) return;
      for (const [to, from] of pairs) metrics[to] = cell.metrics[from] as number;
    };
    const prefill = done('prefill');
    copy(prefill, [
      ['prefill_mean_ms', 'mean_ms'],
      ['prefill_p50_ms', 'p50_ms'],
      ['prefill_p99_ms', 'p99_ms'],
    ]);
    const decodeCell = cells.find((c) => c.phase === 'decode');
    copy(done('decode'), [
      ['decode_mean_ms', 'mean_ms'],
      ['decode_p50_ms', 'p50_ms'],
      ['decode_p99_ms', 'p99_ms'],
      ['decode_tps', 'tps'],
    ]);
    if (decodeCell?.seqLen !== undefined) meta['decode_context'] = decodeCell.seqLen;
    copy(done('denoise'), [
      ['diffusion_step_mean_ms', 'mean_ms'],
      ['diffusion_step_p99_ms', 'p99_ms'],
    ]);
    const gen = done('generate');
    if (gen !== undefined && gen.metrics['ttft_ms'] !== undefined) {
      copy(gen, [
        ['ttft_ms', 'ttft_ms'],
        ['tpot_ms', 'tpot_ms'],
        ['e2e_ms', 'e2e_ms'],
      ]);
      meta['gen_prompt'] = gen.seqLen ?? null;
      meta['gen_samples'] = gen.metrics['n'] ?? null;
    } else if (gen !== undefined) {
      copy(gen, [['gen_e2e_ms', 'mean_ms']]);
      meta['gen_prompt'] = gen.seqLen ?? null;
      meta['diffusion_steps'] = config.diffusionSteps;
    }
    Object.assign(metrics, depthMetrics(cells));
    const failed = failedCellsNote(cells);
    if (failed !== '') meta['failed_cells'] = failed;
    if (Object.keys(metrics).length === 0)
      throw new DantinoxError('RUNTIME_ERROR', messages.noCellCompleted(failed));
    if (prefill !== undefined) {
      meta['profiling_cell'] = prefill.cell;
      meta['flops_shape'] = `seq=${prefill.seqLen},batch=1`;
    }
    return {
      task: this.name,
      metrics,
      ...(prefill?.profiling === undefined
        ? {}
        : { profiling: prefill.profiling, ...(prefill.flops === undefined ? {} : { flops: prefill.flops }) }),
      meta,
    };
  }

  async #autoregressive(
    paradigm: Paradigm,
    model: Model,
    config: BenchmarkConfig,
    rng: Rng,
    prompt: number,
    out: Shared,
  ): Promise<void> {
    const { vocabSize, maxContext } = model.config;
    // Real KV-cache decode at context ≈ P: prefill (untimed), then one step per call; refill when the cache is full.
    const context0 = Math.max(1, Math.min(prompt, maxContext - config.nMeasure));
    const ctxIds = rng.integers(vocabSize, context0);
    const stepIds = rng.integers(vocabSize, 1);
    let state: DecodeState | undefined;
    const refill = async (): Promise<DecodeState> => {
      state?.dispose();
      state = (await model.prefill(ctxIds, { batch: 1, seq: context0 }, NO_LOGITS)).state;
      return state;
    };
    let timedStarted = false;
    await out.keep(
      await runCell(
        {
          task: this.name,
          cell: `decode@${context0}`,
          phase: 'decode',
          batch: 1,
          seqLen: context0,
          tokensPerCall: 1,
          flops: countDecodeFlops(model.config, { context: context0 }),
          before: async (phase: CallPhase) => {
            // The timed steps start from a fresh cache of context0 tokens; refills are never timed.
            if (phase === 'measure' && !timedStarted) {
              timedStarted = true;
              await refill();
            } else if (state === undefined || state.length + 1 > maxContext) await refill();
          },
          call: async () => {
            state = (await model.decodeStep(stepIds, state as DecodeState, NO_LOGITS)).state;
          },
        },
        budgetOf(config),
        out.env,
      ),
    );
    state?.dispose();

    // Timed generation: TTFT / TPOT / E2E.
    const n = config.genTokens;
    const genPrompt = Math.max(1, Math.min(prompt, maxContext - n));
    const genIds = rng.integers(vocabSize, genPrompt);
    const [genRng] = rng.split(1) as [Rng];
    const ttft: number[] = [];
    const e2e: number[] = [];
    const clock = out.env.clock;
    const gen = await runCell(
      {
        task: this.name,
        cell: `generate@${genPrompt}+${n}`,
        phase: 'generate',
        batch: 1,
        seqLen: genPrompt,
        tokensPerCall: n,
        call: async (phase: CallPhase) => {
          const t0 = clock.now();
          let first: bigint | undefined;
          await paradigm.generate(model, genIds, { batch: 1, seq: genPrompt }, genRng, {
            maxNewTokens: n,
            greedy: true,
            onStep: (step) => {
              if (step === 0) first = clock.now();
            },
          });
          const t1 = clock.now();
          if (phase === 'measure') {
            ttft.push(Number((first ?? t1) - t0) / 1e6);
            e2e.push(Number(t1 - t0) / 1e6);
          }
        },
      },
      generationBudget(config),
      out.env,
    );
    // TTFT/TPOT/E2E go into the cell itself, so a run's row can be rebuilt from its cells alone; their
    // per-generation values go with them, so a comparison judges them from samples.
    const tpot = e2e.map((e, i) => (n > 1 ? (e - (ttft[i] as number)) / (n - 1) : Number.NaN));
    await out.keep(
      gen.status === 'completed'
        ? {
            ...gen,
            metrics: { ...gen.metrics, ttft_ms: mean(ttft), tpot_ms: mean(tpot), e2e_ms: mean(e2e) },
            metricSamples: generationSamples({ ttft_ms: ttft, tpot_ms: tpot, e2e_ms: e2e }),
          }
        : gen,
    );
  }

  async #diffusion(
    paradigm: Paradigm,
    model: Model,
    config: BenchmarkConfig,
    rng: Rng,
    prompt: number,
    out: Shared,
  ): Promise<void> {
    const { vocabSize, maxContext } = model.config;
    out.meta['decode'] = messages.decodeNotApplicable(paradigm.type);
    const n = Math.min(config.genTokens, maxContext - 1);
    const genPrompt = Math.max(1, Math.min(prompt, maxContext - n));
    const canvas = genPrompt + n;
    const canvasIds = rng.integers(vocabSize, canvas);
    await out.keep(
      await runCell(
        {
          task: this.name,
          cell: `diffusion_step@${canvas}`,
          phase: 'denoise',
          batch: 1,
          seqLen: canvas,
          tokensPerCall: n,
          flops: countFlops(model.config, { seqLen: canvas, batchSize: 1 }),
          call: () => model.forward(canvasIds, { batch: 1, seq: canvas }, NO_LOGITS),
        },
        budgetOf(config),
        out.env,
      ),
    );
    const promptIds = canvasIds.subarray(0, genPrompt);
    const [genRng] = rng.split(1) as [Rng];
    await out.keep(
      await runCell(
        {
          task: this.name,
          cell: `generate@${genPrompt}+${n}x${config.diffusionSteps}`,
          phase: 'generate',
          batch: 1,
          seqLen: genPrompt,
          tokensPerCall: n,
          call: () =>
            paradigm.generate(model, promptIds, { batch: 1, seq: genPrompt }, genRng, {
              maxNewTokens: n,
              steps: config.diffusionSteps,
              greedy: true,
            }),
        },
        generationBudget(config),
        out.env,
      ),
    );
  }
}

/** State the phases of a run share. */
interface Shared {
  readonly env: Parameters<typeof runCell>[2];
  readonly keep: (c: CellRecord) => Promise<CellRecord>;
  readonly meta: Record<string, MetaValue>;
}
