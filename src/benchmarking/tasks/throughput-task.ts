/**
 * `ThroughputTask`: forward-pass (prefill) throughput over a sequence-length sweep at batch 1 and a batch-size
 * sweep at `seqLens[0]`, with the achieved FLOP/s of every cell at its exact shape.
 *
 * @packageDocumentation
 */

import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { checkFitsInMemory, forwardActivationBytes } from '../../models/memory-check.js';
import type { Model } from '../../models/model.js';
import type { Paradigm } from '../../models/paradigm.js';
import { countFlops } from '../../profiling/index.js';
import type { Rng } from '../../rng.js';
import { runCell } from '../cell-runner.js';
import type { BenchmarkConfig } from '../config.js';
import type {
  BenchmarkContext,
  BenchmarkResult,
  BenchmarkTask,
  CellRecord,
  MetaValue,
  MetricDescriptor,
} from '../task.js';
import { budgetOf, failedCellsNote, keepCell, NO_LOGITS, standaloneContext } from './task-context.js';

/** Metrics of {@link ThroughputTask}. */
export const THROUGHPUT_METRICS: readonly MetricDescriptor[] = [
  {
    key: 'tps_seq{L}',
    unit: 'tok/s',
    description:
      'Forward (prefill) throughput at batch 1 and sequence length L: Σ tokens / Σ seconds over the timed calls (tokens = L per call).',
    higherIsBetter: true,
  },
  {
    key: 'tps_bs{B}',
    unit: 'tok/s',
    description:
      'Forward (prefill) throughput at batch B and sequence length seqLens[0]: Σ tokens / Σ seconds (tokens = B·seqLens[0] per call); tps_bs1 is the same cell as tps_seq{seqLens[0]}.',
    higherIsBetter: true,
  },
  {
    key: 'gflops_per_s_seq{L}',
    unit: 'GFLOP/s',
    description:
      'Achieved compute of the tps_seq{L} cell: analytical forward FLOPs at (batch 1, seq L) / mean call time.',
    higherIsBetter: true,
  },
  {
    key: 'gflops_per_s_bs{B}',
    unit: 'GFLOP/s',
    description:
      'Achieved compute of the tps_bs{B} cell: analytical forward FLOPs at (batch B, seq seqLens[0]) / mean call time.',
    higherIsBetter: true,
  },
  {
    key: 'peak_tps',
    unit: 'tok/s',
    description: 'Largest throughput over all completed cells (the cell is named in meta `profiling_cell`).',
    higherIsBetter: true,
  },
  {
    key: 'peak_gflops_per_s',
    unit: 'GFLOP/s',
    description: 'Largest achieved FLOP/s over all completed cells.',
    higherIsBetter: true,
  },
];

/** Options of {@link ThroughputTask}. */
export interface ThroughputTaskOptions {
  /** Row name. @default 'throughput' */
  readonly name?: string;
}

/**
 * Forward (prefill) throughput — the seed's `ThroughputTask`, with its defects fixed: every cell is guarded (a
 * cell longer than `maxContext`, an engine error or a time-out is recorded as a failed cell and the sweep goes
 * on), FLOPs are counted at each cell's exact shape, and `profiling`/`flops` of the row describe one stated cell
 * (the peak one, named in `meta.profiling_cell` and `meta.flops_shape`).
 *
 * @example
 * ```ts
 * const result = await new ThroughputTask().run(paradigm, model, BenchmarkConfig.parse({ seqLens: [128, 256] }), new Rng(0));
 * result.metrics.tps_seq256; // tok/s
 * ```
 */
export class ThroughputTask implements BenchmarkTask {
  /** Row name. */
  readonly name: string;
  /** Metric schema. */
  readonly metrics = THROUGHPUT_METRICS;

  constructor(options: ThroughputTaskOptions = {}) {
    this.name = options.name ?? 'throughput';
  }

  /** Runs both sweeps. @throws {@link dantinox!DantinoxError} `RUNTIME_ERROR` when no cell completed. */
  async run(
    _paradigm: Paradigm,
    model: Model,
    config: BenchmarkConfig,
    rng: Rng,
    context: BenchmarkContext = standaloneContext(),
  ): Promise<BenchmarkResult> {
    const { vocabSize, maxContext } = model.config;
    const cells: CellRecord[] = [];
    const seq0 = config.seqLens[0] as number;
    const batchCells = config.batchSizes.filter((b) => b !== 1);
    context.plan(config.seqLens.length + batchCells.length);
    const env = {
      clock: context.clock,
      barrier: () => model.barrier(),
      signal: context.signal,
      tracer: context.tracer,
    };

    const measure = async (
      batch: number,
      seq: number,
      failedBefore: CellRecord | undefined,
    ): Promise<CellRecord> => {
      const id = `seq=${seq},batch=${batch}`;
      const base = { task: this.name, cell: id, phase: 'prefill', batch, seqLen: seq, metrics: {} };
      if (seq > maxContext) {
        return keepCell(context, cells, {
          ...base,
          status: 'failed',
          error: messages.seqTooLong(seq, maxContext),
        });
      }
      if (failedBefore !== undefined) {
        return keepCell(context, cells, {
          ...base,
          status: 'skipped',
          error: messages.cellSkippedAfter(failedBefore.cell),
        });
      }
      // A shape that cannot fit is skipped with the estimate before its inputs are even allocated.
      try {
        checkFitsInMemory(messages.sweepCell(id), forwardActivationBytes(model.config, batch, seq), {
          canForce: false,
        });
      } catch (error) {
        return keepCell(context, cells, { ...base, status: 'skipped', error: (error as Error).message });
      }
      const tokens = rng.integers(vocabSize, batch * seq);
      const shape = { batch, seq };
      const cell = await runCell(
        {
          task: this.name,
          cell: id,
          phase: 'prefill',
          batch,
          seqLen: seq,
          tokensPerCall: batch * seq,
          flops: countFlops(model.config, { seqLen: seq, batchSize: batch }),
          // Nothing reads the logits: an engine that would ship them across a boundary skips that.
          call: () => model.forward(tokens, shape, NO_LOGITS),
        },
        budgetOf(config),
        env,
      );
      return keepCell(context, cells, cell);
    };

    // Sequence sweep (batch 1). A time-out or skip makes longer sequences pointless; a too-long one does not.
    let stopper: CellRecord | undefined;
    let seq0Cell: CellRecord | undefined;
    for (const seq of config.seqLens) {
      const skip = stopper !== undefined && seq > (stopper.seqLen ?? 0) && seq <= maxContext;
      const cell = await measure(1, seq, skip ? stopper : undefined);
      if (seq === seq0 && seq0Cell === undefined) seq0Cell = cell;
      if (cell.status !== 'completed' && seq <= maxContext && stopper === undefined) stopper = cell;
    }
    // Batch sweep at seqLens[0]; batch 1 is the seq sweep's first cell. A failure skips larger batches.
    stopper = undefined;
    for (const batch of config.batchSizes) {
      const cell: CellRecord =
        batch === 1 && seq0Cell !== undefined
          ? seq0Cell
          : await measure(
              batch,
              seq0,
              stopper !== undefined && batch > (stopper.batch ?? 0) ? stopper : undefined,
            );
      if (cell.status !== 'completed' && stopper === undefined) stopper = cell;
    }
    return this.summarize(cells, config);
  }

  /**
   * The row from the cells measured so far (all of them after a full run; the finished ones after Ctrl-C or a
   * crash): `tps_seq{L}` for the batch-1 cells, `tps_bs{B}` for the cells at `seqLens[0]`, the peak cell.
   *
   * @throws Error when no cell completed.
   */
  summarize(cells: readonly CellRecord[], config: BenchmarkConfig): BenchmarkResult {
    const seq0 = config.seqLens[0] as number;
    const metrics: Record<string, number> = {};
    const completed = cells.filter((c) => c.status === 'completed');
    const put = (suffix: string, cell: CellRecord): void => {
      metrics[`tps_${suffix}`] = cell.metrics['tps'] as number;
      if (cell.metrics['gflops_per_s'] !== undefined)
        metrics[`gflops_per_s_${suffix}`] = cell.metrics['gflops_per_s'];
    };
    for (const cell of completed) if (cell.batch === 1) put(`seq${cell.seqLen}`, cell);
    for (const batch of config.batchSizes) {
      const cell = completed.find((c) => c.batch === batch && c.seqLen === seq0);
      if (cell !== undefined) put(`bs${batch}`, cell);
    }
    if (completed.length === 0)
      throw new DantinoxError('RUNTIME_ERROR', messages.noCellCompleted(failedCellsNote(cells)));
    const peak = completed.reduce((a, b) => ((b.metrics['tps'] ?? 0) > (a.metrics['tps'] ?? 0) ? b : a));
    metrics['peak_tps'] = peak.metrics['tps'] as number;
    const gflops = completed
      .map((c) => c.metrics['gflops_per_s'])
      .filter((v): v is number => v !== undefined);
    if (gflops.length > 0) metrics['peak_gflops_per_s'] = Math.max(...gflops);
    const meta: Record<string, MetaValue> = { profiling_cell: peak.cell, flops_shape: peak.cell };
    const failed = failedCellsNote(cells);
    if (failed !== '') meta['failed_cells'] = failed;
    return {
      task: this.name,
      metrics,
      ...(peak.profiling === undefined ? {} : { profiling: peak.profiling }),
      ...(peak.flops === undefined ? {} : { flops: peak.flops }),
      meta,
    };
  }
}
