/**
 * Helpers the built-in tasks share: a default context for tasks run outside a suite, the cell budget from the
 * config, and the failed-cell record for shapes the model cannot take.
 *
 * @packageDocumentation
 */
import type { CallOptions } from '../../models/model.js';
import { hrtimeClock } from '../../profiling/index.js';
import type { CellBudget } from '../cell-runner.js';
import type { BenchmarkConfig } from '../config.js';
import { silentLogger } from '../logger.js';
import type { BenchmarkContext, CellRecord } from '../task.js';

/** The context a task uses when called directly (no suite): real clock, no logging, cells kept in memory only. */
export function standaloneContext(): BenchmarkContext {
  return { logger: silentLogger, clock: hrtimeClock, plan: () => {}, recordCell: async () => {} };
}

/** The measurement budget of a cell from the config. */
export function budgetOf(config: BenchmarkConfig, overrides: Partial<CellBudget> = {}): CellBudget {
  return {
    nWarmup: config.nWarmup,
    minWarmupMs: config.minWarmupMs,
    nMeasure: config.nMeasure,
    minMeasureMs: config.minMeasureMs,
    maxMeasureMs: config.maxMeasureMs,
    maxCellMs: config.maxCellMs,
    ...overrides,
  };
}

/** Records `cell` through the context and collects it in `into`. */
export async function keepCell(
  context: BenchmarkContext,
  into: CellRecord[],
  cell: CellRecord,
): Promise<CellRecord> {
  into.push(cell);
  await context.recordCell(cell);
  return cell;
}

/** `id: reason` of every failed or skipped cell, joined by `; ` (empty string when all completed). */
export function failedCellsNote(cells: readonly CellRecord[]): string {
  return cells
    .filter((c) => c.status !== 'completed')
    .map((c) => `${c.cell} ${c.status}: ${c.error ?? ''}`)
    .join('; ');
}

/** The call options of a timed call whose logits nothing reads (the browser target then does not send them). */
export const NO_LOGITS: CallOptions = Object.freeze({ logits: false });
