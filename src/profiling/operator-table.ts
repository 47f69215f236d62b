/**
 * The per-operator table of `bench --trace`: ONNX Runtime's kernel events of the timed calls grouped by phase,
 * operator type and input shapes, each group beside the FLOPs and bytes the graph model assigns its nodes, its
 * achieved rates and its place on the roofline; and the reconciliation of the kernel time with the measured
 * latency of the same calls, whose remainder (framework, copies, JS) is a row of its own. Pure data.
 *
 * @packageDocumentation
 */
import { rooflineGflops } from './efficiency.js';
import { type OpCategory, opCategory } from './op-time-breakdown.js';
import type { EngineCallShape } from './trace-recorder.js';

/** The two phases of the table: prompt calls (`prefill`, `extend`, `forward`) and one-token `decode` steps. */
export type OperatorPhase = 'prefill' | 'decode';

/** One kernel execution of a timed call (an ORT `Node` event ending in `_kernel_time`). */
export interface KernelEvent {
  /** Ordinal of the engine call it ran in ({@link OperatorCall.index}). */
  readonly call: number;
  /** The graph node's name (the event name without `_kernel_time`). */
  readonly node: string;
  /** Operator type (`op_name`), e.g. `MatMul`. */
  readonly opType: string;
  /** Input shapes as ONNX Runtime reported them, e.g. `float[1,8,32]; float[32,96]`. */
  readonly inputShapes: string;
  /** Kernel time in µs. */
  readonly durUs: number;
}

/** FLOPs and bytes the graph model assigns one node in one call. */
export interface NodeCost {
  /** FLOPs (1 multiply-add = 2). */
  readonly flops: number;
  /** Bytes read and written (inputs and outputs). */
  readonly bytes: number;
}

/** One timed engine call: its phase, measured latency and, when known, the cost of each graph node in it. */
export interface OperatorCall {
  /** Ordinal of the engine call. */
  readonly index: number;
  /** Its phase. */
  readonly phase: OperatorPhase;
  /** Measured latency of the call in µs (dantinox's clock, around the engine call). */
  readonly latencyUs: number;
  /** Cost of each node by name, for this call's shape; absent when the graph model does not know the graph. */
  readonly costs?: ReadonlyMap<string, NodeCost>;
}

/** The roofline an operator group is placed on. */
export interface RooflineCeilings {
  /** GEMM ceiling of the model's dtype in GFLOP/s. */
  readonly peakGflops: number;
  /** Memory bandwidth in GB/s (10⁹ bytes per second). */
  readonly bandwidthGbs: number;
}

/** Inputs of {@link operatorTable}. */
export interface OperatorTableInput {
  /** Kernel executions of the timed calls. */
  readonly kernels: readonly KernelEvent[];
  /** The timed calls (every call a kernel refers to; a call without kernels still counts its latency). */
  readonly calls: readonly OperatorCall[];
  /** Roofline ceilings: GEMM GFLOP/s of the model's dtype and bandwidth in GB/s; absent without calibration. */
  readonly roofline?: RooflineCeilings;
}

/** Label of the remainder row: latency not spent in kernels. */
export const REMAINDER_OP = 'framework, copies, JS';

/** One row of the per-operator table: an operator group, or the remainder of a phase. */
export interface OperatorRow {
  /** Phase of the calls. */
  readonly phase: OperatorPhase;
  /** Operator type, or {@link REMAINDER_OP}. */
  readonly op: string;
  /** The operator's category (`OP_CATEGORY_TABLE`), `remainder` for the remainder row. */
  readonly category: OpCategory | 'remainder';
  /** Input shapes of the group (empty for the remainder). */
  readonly inputShapes: string;
  /** Kernel executions in the group (nodes × calls); the remainder row: the phase's calls. */
  readonly calls: number;
  /** Distinct graph nodes in the group. */
  readonly nodes: number;
  /** Time in µs summed over the executions (the remainder: latency minus kernel time). */
  readonly totalUs: number;
  /** Mean µs per execution. */
  readonly meanUs: number;
  /** Fraction of the phase's time (the larger of its latency and its kernel time); a phase's rows sum to 1. */
  readonly share: number;
  /** FLOPs the graph model assigns the executions (absent when some node has no cost). */
  readonly flops?: number;
  /** Bytes the graph model assigns the executions (absent when some node has no cost). */
  readonly bytes?: number;
  /** Achieved GFLOP/s: flops ÷ kernel time. */
  readonly gflopsPerS?: number;
  /** Achieved GB/s: bytes ÷ kernel time. */
  readonly gbPerS?: number;
  /** Operational intensity in FLOP/byte. */
  readonly intensity?: number;
  /** Roofline bound in GFLOP/s at this intensity: min(peak, intensity × bandwidth). */
  readonly attainableGflops?: number;
  /** Achieved GFLOP/s ÷ the roofline bound. */
  readonly fractionOfAttainable?: number;
}

/** The kernel time of one phase against its measured latency. */
export interface OperatorReconciliation {
  /** Phase. */
  readonly phase: OperatorPhase;
  /** Timed calls of the phase. */
  readonly calls: number;
  /** Σ measured latency of those calls in µs. */
  readonly latencyUs: number;
  /** Σ kernel time in those calls in µs. */
  readonly kernelUs: number;
  /** latency − kernel time in µs, 0 when the kernels exceed the latency. */
  readonly remainderUs: number;
  /** Kernel time ÷ latency (above 1 when the kernels exceed the latency). */
  readonly kernelFraction: number;
  /** The kernel time exceeded the latency: the remainder was clamped to 0 and shares are of the kernel time. */
  readonly clamped: boolean;
}

/** The per-operator table and its reconciliation. */
export interface OperatorTable {
  /** Per phase: operator groups by decreasing time, then the remainder row. */
  readonly rows: readonly OperatorRow[];
  /** Per phase that has calls. */
  readonly reconciliation: readonly OperatorReconciliation[];
  /** Kernel executions whose node the graph model does not know (those groups have no FLOPs or bytes). */
  readonly uncostedKernels: number;
}

interface Group {
  phase: OperatorPhase;
  op: string;
  inputShapes: string;
  calls: number;
  nodes: Set<string>;
  totalUs: number;
  flops: number;
  bytes: number;
  costed: boolean;
}

const PHASES: readonly OperatorPhase[] = ['prefill', 'decode'];

/**
 * Builds the per-operator table: kernel executions grouped by (phase, operator type, input shapes), each with its
 * time, share, the graph model's FLOPs and bytes and the rates and roofline place they give; then per phase one
 * remainder row of latency not spent in kernels. Shares are of the phase's latency, so the rows of a phase sum to
 * 1; when the kernels exceed the latency (they cannot in a sequential run: a sign of misaligned events) the
 * remainder is clamped to 0, the shares are of the kernel time and the reconciliation says `clamped`.
 * Kernels of a call not in `calls` are ignored.
 */
export function operatorTable(input: OperatorTableInput): OperatorTable {
  const calls = new Map(input.calls.map((c) => [c.index, c]));
  const groups = new Map<string, Group>();
  let uncostedKernels = 0;
  for (const k of input.kernels) {
    const call = calls.get(k.call);
    if (call === undefined) continue;
    const key = `${call.phase}\u0000${k.opType}\u0000${k.inputShapes}`;
    let g = groups.get(key);
    if (g === undefined) {
      g = {
        phase: call.phase,
        op: k.opType,
        inputShapes: k.inputShapes,
        calls: 0,
        nodes: new Set(),
        totalUs: 0,
        flops: 0,
        bytes: 0,
        costed: true,
      };
      groups.set(key, g);
    }
    g.calls++;
    g.nodes.add(k.node);
    g.totalUs += k.durUs;
    const cost = call.costs?.get(k.node);
    if (cost === undefined) {
      g.costed = false;
      uncostedKernels++;
    } else {
      g.flops += cost.flops;
      g.bytes += cost.bytes;
    }
  }
  const rows: OperatorRow[] = [];
  const reconciliation: OperatorReconciliation[] = [];
  for (const phase of PHASES) {
    const phaseCalls = input.calls.filter((c) => c.phase === phase);
    if (phaseCalls.length === 0) continue;
    const mine = [...groups.values()].filter((g) => g.phase === phase).sort((a, b) => b.totalUs - a.totalUs);
    const latencyUs = phaseCalls.reduce((s, c) => s + c.latencyUs, 0);
    const kernelUs = mine.reduce((s, g) => s + g.totalUs, 0);
    const clamped = kernelUs > latencyUs;
    const remainderUs = clamped ? 0 : latencyUs - kernelUs;
    const whole = Math.max(latencyUs, kernelUs);
    const share = (us: number): number => (whole > 0 ? us / whole : 0);
    for (const g of mine) rows.push(groupRow(g, share(g.totalUs), input.roofline));
    rows.push({
      phase,
      op: REMAINDER_OP,
      category: 'remainder',
      inputShapes: '',
      calls: phaseCalls.length,
      nodes: 0,
      totalUs: remainderUs,
      meanUs: remainderUs / phaseCalls.length,
      share: share(remainderUs),
    });
    reconciliation.push({
      phase,
      calls: phaseCalls.length,
      latencyUs,
      kernelUs,
      remainderUs,
      kernelFraction: latencyUs > 0 ? kernelUs / latencyUs : 0,
      clamped,
    });
  }
  return { rows, reconciliation, uncostedKernels };
}

function groupRow(g: Group, share: number, roofline: RooflineCeilings | undefined): OperatorRow {
  const base = {
    phase: g.phase,
    op: g.op,
    category: opCategory(g.op),
    inputShapes: g.inputShapes,
    calls: g.calls,
    nodes: g.nodes.size,
    totalUs: g.totalUs,
    meanUs: g.totalUs / g.calls,
    share,
  };
  if (!g.costed) return base;
  const seconds = g.totalUs / 1e6;
  const rates =
    seconds > 0 ? { gflopsPerS: g.flops / seconds / 1e9, gbPerS: g.bytes / seconds / 1e9 } : undefined;
  const intensity = g.bytes > 0 ? g.flops / g.bytes : undefined;
  const attainable =
    roofline === undefined || intensity === undefined
      ? undefined
      : rooflineGflops(intensity, roofline.peakGflops, roofline.bandwidthGbs);
  return {
    ...base,
    flops: g.flops,
    bytes: g.bytes,
    ...(rates ?? {}),
    ...(intensity === undefined ? {} : { intensity }),
    ...(attainable === undefined ? {} : { attainableGflops: attainable }),
    ...(attainable === undefined || rates === undefined || !(attainable > 0)
      ? {}
      : { fractionOfAttainable: rates.gflopsPerS / attainable }),
  };
}

/**
 * The kernel executions of the timed calls in a trace built by `buildChromeTrace`: its ONNX Runtime node events
 * whose original name ends in `_kernel_time` (fences are left out), with the call they ran in and their input
 * shapes written `float[1,8,32]; int64[2]`.
 */
export function kernelEventsOf(
  events: readonly {
    readonly cat?: string;
    readonly dur?: number;
    readonly args?: Readonly<Record<string, unknown>>;
  }[],
): KernelEvent[] {
  const out: KernelEvent[] = [];
  for (const e of events) {
    if (e.cat !== 'ort,Node' || e.args === undefined) continue;
    const { ort_name: name, op_name: op, call, input_type_shape: shapes } = e.args;
    if (typeof name !== 'string' || !name.endsWith('_kernel_time')) continue;
    if (typeof op !== 'string' || typeof call !== 'number') continue;
    out.push({
      call,
      node: name.slice(0, -'_kernel_time'.length),
      opType: op,
      inputShapes: formatShapes(shapes),
      durUs: e.dur ?? 0,
    });
  }
  return out;
}

/** ORT's `input_type_shape` (`[{ float: [1, 8] }, …]`) as `float[1,8]; …`. */
function formatShapes(shapes: unknown): string {
  if (!Array.isArray(shapes)) return '';
  return shapes
    .map((s: unknown) =>
      s !== null && typeof s === 'object'
        ? Object.entries(s as Record<string, unknown>)
            .map(([type, dims]) => `${type}[${Array.isArray(dims) ? dims.join(',') : ''}]`)
            .join('')
        : '',
    )
    .join('; ');
}

/** Kernel milliseconds per operator category of one phase of a table (the `--profile` categories). */
export function operatorCategoryMs(
  rows: readonly OperatorRow[],
  phase: OperatorPhase,
): Readonly<Record<OpCategory, number>> {
  const out: Record<OpCategory, number> = { matmul: 0, attention: 0, norm: 0, softmax: 0, other: 0 };
  for (const r of rows)
    if (r.phase === phase && r.category !== 'remainder') out[r.category] += r.totalUs / 1000;
  return out;
}

/** A trace event as {@link operatorTableOfTrace} reads it (a `TraceEvent`, or one parsed from trace.json). */
export interface TraceEventLike {
  /** Phase of the event (`X` for complete events). */
  readonly ph?: string;
  /** Event name. */
  readonly name?: string;
  /** Category. */
  readonly cat?: string;
  /** Duration in µs. */
  readonly dur?: number;
  /** Details. */
  readonly args?: Readonly<Record<string, unknown>>;
}

/** Options of {@link operatorTableOfTrace}. */
export interface OperatorTableOfTraceOptions {
  /** FLOPs and bytes of each graph node for a call shape (e.g. `OnnxModel.graphCosts`); absent: no FLOPs. */
  readonly costs?: (shape: EngineCallShape) => ReadonlyMap<string, NodeCost> | undefined;
  /** Roofline ceilings (GEMM GFLOP/s of the model's dtype, bandwidth GB/s). */
  readonly roofline?: RooflineCeilings;
}

/** The phase of an engine call by name: one-token `decodeStep`s are `decode`, every prompt call `prefill`. */
export function engineCallPhase(name: string): OperatorPhase {
  return name === 'decodeStep' ? 'decode' : 'prefill';
}

/**
 * The timed engine calls of a trace written by `bench --trace` (dantinox's `engine,timed` spans: their call
 * ordinal, latency and, when recorded, shape `batch`, `seq`, `past_length`), each with the node costs `costs`
 * gives its shape.
 */
export function timedCallsOf(
  events: readonly TraceEventLike[],
  costs?: OperatorTableOfTraceOptions['costs'],
): OperatorCall[] {
  const out: OperatorCall[] = [];
  for (const e of events) {
    if (e.ph !== 'X' || e.cat !== 'engine,timed' || typeof e.args?.['call'] !== 'number') continue;
    const { call, batch, seq, past_length: past } = e.args;
    const shape =
      typeof batch === 'number' && typeof seq === 'number' && typeof past === 'number'
        ? { batch, seq, pastLength: past }
        : undefined;
    const known = shape === undefined ? undefined : costs?.(shape);
    out.push({
      index: call as number,
      phase: engineCallPhase(e.name ?? ''),
      latencyUs: e.dur ?? 0,
      ...(known === undefined ? {} : { costs: known }),
    });
  }
  return out;
}

/**
 * The per-operator table of a trace written by `bench --trace` (its `traceEvents`, as built or parsed from
 * trace.json): the ONNX Runtime kernel events of its timed calls ({@link kernelEventsOf}) against the measured
 * latency of those calls ({@link timedCallsOf}); see {@link operatorTable}.
 *
 * @example
 * ```ts
 * const trace = JSON.parse(readFileSync('results/run/trace.json', 'utf8'));
 * const { rows, reconciliation } = operatorTableOfTrace(trace.traceEvents);
 * ```
 */
export function operatorTableOfTrace(
  events: readonly TraceEventLike[],
  options: OperatorTableOfTraceOptions = {},
): OperatorTable {
  return operatorTable({
    kernels: kernelEventsOf(events),
    calls: timedCallsOf(events, options.costs),
    ...(options.roofline === undefined ? {} : { roofline: options.roofline }),
  });
}
