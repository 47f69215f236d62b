/**
 * The `operators` row of `bench --trace`: the per-operator table of a variant's timed calls (from its trace, the
 * graph model's cost of each node and the calibrated roofline), its reconciliation with the measured latency and
 * the profiler's overhead, as one result whose cells are the table's rows; and `operators.csv` beside the trace.
 *
 * @packageDocumentation
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatCsv } from '../benchmarking/csv.js';
import type { SuiteReport } from '../benchmarking/report.js';
import type { CellRecord, CompletedResult, MetaValue, MetricDescriptor } from '../benchmarking/task.js';
import {
  type ChromeTrace,
  type EngineCallShape,
  isRemainderOp,
  LATENCY_PARTS,
  type LatencyPart,
  type LatencyParts,
  type NodeCost,
  OP_CATEGORIES,
  type OperatorRow,
  type OperatorTable,
  opCategory,
  operatorCategoryMs,
  operatorTableOfTrace,
  type RooflineCeilings,
  splitRemainder,
} from '../profiling/index.js';
import { type ChartRow, OPERATOR_ROW_TASK } from '../visualization/index.js';
import { OPERATORS_FILE } from './output-dir.js';
import type { ProfilerOverhead } from './profiler-overhead.js';

/** Task name of the row. */
export const OPERATORS_TASK = 'operators';

/** The graph model's costs of one call shape: node name → FLOPs and bytes (absent: not known for this model). */
export type CallCosts = (shape: EngineCallShape) => ReadonlyMap<string, NodeCost> | undefined;

/** Inputs of {@link operatorResult}. */
export interface OperatorResultInput {
  /** The variant's trace: dantinox's engine spans and ONNX Runtime's node events of the timed calls. */
  readonly trace: ChromeTrace;
  /** The graph model's node costs per call shape. */
  readonly costs?: CallCosts;
  /** Roofline ceilings of the model's dtype, when calibrated. */
  readonly roofline?: RooflineCeilings;
  /** The profiler's measured overhead, when it was measured. */
  readonly overhead?: ProfilerOverhead;
  /** The latency's named parts per phase (`measureLatencyParts`), when measured: they replace the remainder row. */
  readonly parts?: readonly LatencyParts[];
  /** Why the named parts could not be measured (recorded as meta `operators_parts_unavailable`). */
  readonly partsUnavailable?: string;
}

/** The metric-key stem of each named part: `operators_{phase}_{stem}_ms`. */
export const LATENCY_PART_KEYS: Readonly<Record<LatencyPart, string>> = Object.freeze({
  session: 'session',
  outputCopy: 'output_copy',
  js: 'js',
  profiler: 'profiler',
});

/** What each named part's metric says (see `LATENCY_PART_LABELS` for how each is measured). */
const PART_DESCRIPTIONS: Readonly<Record<LatencyPart, string>> = {
  session:
    "ONNX Runtime's session around and between kernels: session.run on an Identity graph of the same node, input and output counts",
  outputCopy: "the Node binding's copy of every output into a new JavaScript buffer, timed alone",
  js: "dantinox's JavaScript around session.run: the engine call's span less its session.run span",
  profiler:
    "ONNX Runtime's profiler recording every kernel: the same Identity graph with the profiler on, less off",
};

/** What {@link operatorResult} builds. */
export interface OperatorResult {
  /** The per-operator table. */
  readonly table: OperatorTable;
  /** The `operators` row that carries it. */
  readonly result: CompletedResult;
}

/** Metric descriptors of the row (per phase). */
export const OPERATOR_METRICS: readonly MetricDescriptor[] = (['prefill', 'decode'] as const).flatMap(
  (phase): MetricDescriptor[] => [
    {
      key: `operators_${phase}_latency_ms`,
      unit: 'ms',
      description: `Mean measured latency of the timed ${phase} calls of the traced run (dantinox's clock).`,
      higherIsBetter: false,
    },
    {
      key: `operators_${phase}_kernel_ms`,
      unit: 'ms',
      description: `Mean ONNX Runtime kernel time per timed ${phase} call (the operator rows add up to it).`,
      higherIsBetter: false,
    },
    {
      key: `operators_${phase}_remainder_ms`,
      unit: 'ms',
      description: `Mean latency per timed ${phase} call not spent in kernels: framework, copies, JS.`,
      higherIsBetter: false,
    },
    {
      key: `operators_${phase}_kernel_fraction`,
      unit: '1',
      description: `Kernel time ÷ measured latency of the timed ${phase} calls.`,
    },
    ...OP_CATEGORIES.map(
      (c): MetricDescriptor => ({
        key: `operators_${phase}_${c}_ms`,
        unit: 'ms',
        description: `Mean kernel time of the ${c} operator category per timed ${phase} call.`,
        higherIsBetter: false,
      }),
    ),
    ...LATENCY_PARTS.map(
      (p): MetricDescriptor => ({
        key: `operators_${phase}_${LATENCY_PART_KEYS[p]}_ms`,
        unit: 'ms',
        description: `Mean ms per timed ${phase} call of ${PART_DESCRIPTIONS[p]}.`,
        higherIsBetter: false,
      }),
    ),
    {
      key: `operators_${phase}_unexplained_ms`,
      unit: 'ms',
      description: `Mean ms per timed ${phase} call that neither the kernels nor a named part explains (negative: the parts add up to more).`,
    },
    {
      key: `operators_${phase}_explained_fraction`,
      unit: '1',
      description: `(Kernels + named parts) ÷ measured latency of the timed ${phase} calls; the goal is within 0.95–1.05.`,
    },
    {
      key: `profiler_overhead_${phase}`,
      unit: '1',
      description: `Time of a ${phase} call with ONNX Runtime's profiler on ÷ without it (median of interleaved rounds).`,
      higherIsBetter: false,
    },
  ],
);

const CELL_METRICS: readonly [keyof OperatorRow, string][] = [
  ['share', 'share'],
  ['calls', 'calls'],
  ['nodes', 'nodes'],
  ['totalUs', 'total_us'],
  ['meanUs', 'mean_us'],
  ['flops', 'flops'],
  ['bytes', 'bytes'],
  ['gflopsPerS', 'gflops_per_s'],
  ['gbPerS', 'gb_per_s'],
  ['intensity', 'intensity'],
  ['attainableGflops', 'attainable_gflops'],
  ['fractionOfAttainable', 'fraction_of_attainable'],
];

/** Separator of operator type and input shapes in a cell id (`MatMul|float[1,8,32]`). */
export const OPERATOR_CELL_SEPARATOR = '|';

/** One table row as a cell of the row: id `op|shapes`, phase, its numbers as metrics. */
function operatorCell(row: OperatorRow): CellRecord {
  const metrics: Record<string, number> = {};
  for (const [field, key] of CELL_METRICS) {
    const v = row[field];
    if (typeof v === 'number') metrics[key] = v;
  }
  return {
    task: OPERATORS_TASK,
    cell: `${row.op}${OPERATOR_CELL_SEPARATOR}${row.inputShapes}`,
    phase: row.phase,
    status: 'completed',
    metrics,
  };
}

/** The table as CSV: one line per row, with its phase, operator, category and input shapes. */
export function operatorCsv(table: OperatorTable): string {
  const columns = ['phase', 'op', 'category', 'input_shapes', ...CELL_METRICS.map(([, key]) => key)];
  return formatCsv(
    columns,
    table.rows.map((r) => ({
      phase: r.phase,
      op: r.op,
      category: r.category,
      input_shapes: r.inputShapes,
      ...Object.fromEntries(CELL_METRICS.map(([field, key]) => [key, r[field]])),
    })),
  );
}

/**
 * The per-operator table of a traced variant and the `operators` row that carries it (per phase: mean latency,
 * kernel and remainder time per call, the category totals derived from the table, the profiler's overhead, and
 * with `parts` each named part, the unexplained rest and the fraction explained; one cell per table row, the
 * remainder row replaced by the parts' rows), or `undefined` when the trace holds no kernel events of timed calls.
 */
export function operatorResult(input: OperatorResultInput): OperatorResult | undefined {
  const whole = operatorTableOfTrace(input.trace.traceEvents, {
    ...(input.costs === undefined ? {} : { costs: input.costs }),
    ...(input.roofline === undefined ? {} : { roofline: input.roofline }),
  });
  const table = input.parts === undefined ? whole : splitRemainder(whole, input.parts);
  // No timed call, or no kernel event of one (another engine, a profile that could not be matched): no table.
  if (table.reconciliation.length === 0 || whole.rows.length === whole.reconciliation.length)
    return undefined;
  const metrics: Record<string, number> = {};
  const meta: Record<string, MetaValue> = {};
  for (const r of table.reconciliation) {
    metrics[`operators_${r.phase}_latency_ms`] = r.latencyUs / r.calls / 1000;
    metrics[`operators_${r.phase}_kernel_ms`] = r.kernelUs / r.calls / 1000;
    metrics[`operators_${r.phase}_remainder_ms`] = r.remainderUs / r.calls / 1000;
    metrics[`operators_${r.phase}_kernel_fraction`] = r.kernelFraction;
    const categories = operatorCategoryMs(table.rows, r.phase);
    for (const c of OP_CATEGORIES) metrics[`operators_${r.phase}_${c}_ms`] = categories[c] / r.calls;
    meta[`operators_${r.phase}_calls`] = r.calls;
    if (r.clamped) meta[`operators_${r.phase}_clamped`] = true;
    const ratio = input.overhead?.[r.phase];
    if (ratio !== undefined) metrics[`profiler_overhead_${r.phase}`] = ratio;
  }
  for (const p of input.parts ?? []) {
    for (const part of p.parts)
      metrics[`operators_${p.phase}_${LATENCY_PART_KEYS[part.part]}_ms`] = part.us / 1000;
    metrics[`operators_${p.phase}_unexplained_ms`] = p.unexplainedUs / 1000;
    metrics[`operators_${p.phase}_explained_fraction`] = p.explainedFraction;
    meta[`operators_${p.phase}_explained_goal_met`] = p.goalMet;
  }
  if (input.partsUnavailable !== undefined) meta['operators_parts_unavailable'] = input.partsUnavailable;
  if (input.overhead !== undefined) meta['profiler_overhead_rounds'] = input.overhead.rounds;
  if (table.uncostedKernels > 0) meta['operators_uncosted_kernels'] = table.uncostedKernels;
  meta['operators_file'] = OPERATORS_FILE;
  if (input.roofline !== undefined) {
    meta['roofline_peak_gflops'] = input.roofline.peakGflops;
    meta['roofline_bandwidth_gbs'] = input.roofline.bandwidthGbs;
  }
  return {
    table,
    result: { task: OPERATORS_TASK, metrics, meta, cells: table.rows.map(operatorCell) },
  };
}

/** Writes {@link OPERATORS_FILE} into `folder`; returns its path. */
export function writeOperatorCsv(folder: string, table: OperatorTable): string {
  const path = join(folder, OPERATORS_FILE);
  writeFileSync(path, operatorCsv(table));
  return path;
}

/**
 * The chart rows of `report`'s per-operator table (task {@link OPERATOR_ROW_TASK}): per cell of its `operators`
 * row, `phase`, `op`, `input_shapes`, `category`, the cell's numbers, the roofline it was placed on
 * (`peak_gflops`, `bandwidth_gbs`) and the model identity columns. Empty without an `operators` row.
 */
export function operatorChartRows(report: SuiteReport): ChartRow[] {
  const out: ChartRow[] = [];
  for (const result of report.results) {
    if (result.task !== OPERATORS_TASK) continue;
    const peak = result.meta?.['roofline_peak_gflops'];
    const bandwidth = result.meta?.['roofline_bandwidth_gbs'];
    for (const cell of result.cells ?? []) {
      const at = cell.cell.indexOf(OPERATOR_CELL_SEPARATOR);
      const op = at === -1 ? cell.cell : cell.cell.slice(0, at);
      out.push({
        ...report.modelMeta,
        task: OPERATOR_ROW_TASK,
        phase: cell.phase,
        op,
        category: isRemainderOp(op) ? 'remainder' : opCategory(op),
        input_shapes: at === -1 ? '' : cell.cell.slice(at + 1),
        ...cell.metrics,
        ...(typeof peak === 'number' ? { peak_gflops: peak } : {}),
        ...(typeof bandwidth === 'number' ? { bandwidth_gbs: bandwidth } : {}),
      });
    }
  }
  return out;
}
