/**
 * Where a traced call's latency goes beyond its kernels: the remainder of the per-operator table (latency − kernel
 * time) broken into named parts, each measured on its own — ONNX Runtime's session between the kernels, the Node
 * binding's copy of every output, dantinox's own JavaScript and the profiler's own cost — and the rest left as
 * `unexplained`. Pure arithmetic: the measurements are made by the caller.
 *
 * @packageDocumentation
 */
import {
  kernelEventsOf,
  type OperatorPhase,
  type OperatorRow,
  type OperatorTable,
  REMAINDER_OP,
  type TraceEventLike,
  timedCallsOf,
} from './operator-table.js';
import { ENGINE_RUN_CAT } from './trace-recorder.js';

/** The named parts of a call's latency besides its kernels, in display order. */
export const LATENCY_PARTS = ['session', 'outputCopy', 'js', 'profiler'] as const;

/** One named part: see {@link LATENCY_PART_LABELS}. */
export type LatencyPart = (typeof LATENCY_PARTS)[number];

/**
 * The label of each part, as the per-operator table's rows name them, and how it is measured:
 *
 * - `session`: ONNX Runtime's session work around and between the kernels — the time of `session.run` on a graph
 *   of `Identity` nodes as many as the call's kernels, with as many inputs and outputs, on tiny tensors, with the
 *   same threads and no profiler (so it also holds the binding's per-tensor conversion and its `setImmediate` hop).
 * - `outputCopy`: the binding's copy of every output into a new JavaScript buffer — a fresh `ArrayBuffer` of each
 *   output's byte size filled from another buffer, timed alone.
 * - `js`: dantinox's JavaScript around `session.run` — the engine call's span less the `session.run` span inside it
 *   (feeds, masks, position ids, the decode state and logits handed back).
 * - `profiler`: ONNX Runtime's profiler recording every kernel — the same `Identity` graph timed with the profiler
 *   on, less its time with the profiler off.
 */
export const LATENCY_PART_LABELS: Readonly<Record<LatencyPart, string>> = Object.freeze({
  session: 'ORT session (Identity graph)',
  outputCopy: 'binding output copy',
  js: 'dantinox JS',
  profiler: 'profiler',
});

/** Label of the row of latency no named part explains (negative when the parts add up to more). */
export const UNEXPLAINED_OP = 'unexplained';

/** Fraction of the measured latency the named parts (kernels included) must explain: 0.95. */
export const EXPLAINED_GOAL = 0.95;

/** The measurements of one phase, each a mean per timed call; a part left out is not measured. */
export interface LatencyPartsInput {
  /** The phase. */
  readonly phase: OperatorPhase;
  /** Timed calls of the phase. */
  readonly calls: number;
  /** Mean measured latency per call in µs (dantinox's clock, with the profiler on). */
  readonly latencyUs: number;
  /** Mean kernel time per call in µs (ONNX Runtime's kernel events). */
  readonly kernelUs: number;
  /** Mean µs of `session.run` on the `Identity` graph of the same node, input and output counts. */
  readonly sessionUs?: number;
  /** Mean µs of the binding's output copies, timed alone. */
  readonly outputCopyUs?: number;
  /** Mean µs of dantinox's JavaScript per call (engine span − `session.run` span). */
  readonly jsUs?: number;
  /** Mean µs the profiler adds per call: the `Identity` graph with the profiler on, less off. */
  readonly profilerUs?: number;
}

/** One named part of a phase. */
export interface LatencyPartShare {
  /** The part. */
  readonly part: LatencyPart;
  /** Mean µs per call. */
  readonly us: number;
  /** Fraction of the measured latency (dimensionless). */
  readonly share: number;
}

/** A phase's latency as kernels, named parts and the unexplained rest. */
export interface LatencyParts {
  /** The phase. */
  readonly phase: OperatorPhase;
  /** Timed calls of the phase. */
  readonly calls: number;
  /** Mean measured latency per call in µs. */
  readonly latencyUs: number;
  /** Mean kernel time per call in µs. */
  readonly kernelUs: number;
  /** Kernel time ÷ latency. */
  readonly kernelShare: number;
  /** The measured parts, in {@link LATENCY_PARTS} order. */
  readonly parts: readonly LatencyPartShare[];
  /** The parts that were not measured (their time is in `unexplainedUs`). */
  readonly missing: readonly LatencyPart[];
  /** latency − kernels − Σ parts, mean µs per call; negative when the parts add up to more than the latency. */
  readonly unexplainedUs: number;
  /** `unexplainedUs` ÷ latency. */
  readonly unexplainedShare: number;
  /** (kernels + Σ parts) ÷ latency: 1 when everything is explained, above 1 when parts overlap. */
  readonly explainedFraction: number;
  /**
   * |unexplained| ≤ (1 − {@link EXPLAINED_GOAL}) × latency: the named parts explain at least 95% of the latency
   * without adding up to more than 105% of it (parts that overlap explain nothing). False for a zero latency.
   */
  readonly goalMet: boolean;
}

/** Breaks one phase's latency into kernels, the measured parts and the unexplained rest; see {@link LatencyParts}. */
export function latencyParts(input: LatencyPartsInput): LatencyParts {
  const measured: Record<LatencyPart, number | undefined> = {
    session: input.sessionUs,
    outputCopy: input.outputCopyUs,
    js: input.jsUs,
    profiler: input.profilerUs,
  };
  const { latencyUs } = input;
  const share = (us: number): number => (latencyUs > 0 ? us / latencyUs : 0);
  const parts: LatencyPartShare[] = [];
  const missing: LatencyPart[] = [];
  for (const part of LATENCY_PARTS) {
    const us = measured[part];
    if (us === undefined || !Number.isFinite(us)) missing.push(part);
    else parts.push({ part, us, share: share(us) });
  }
  const explainedUs = input.kernelUs + parts.reduce((s, p) => s + p.us, 0);
  const unexplainedUs = latencyUs - explainedUs;
  return {
    phase: input.phase,
    calls: input.calls,
    latencyUs,
    kernelUs: input.kernelUs,
    kernelShare: share(input.kernelUs),
    parts,
    missing,
    unexplainedUs,
    unexplainedShare: share(unexplainedUs),
    explainedFraction: share(explainedUs),
    goalMet: latencyUs > 0 && Math.abs(unexplainedUs) <= (1 - EXPLAINED_GOAL) * latencyUs,
  };
}

/** True for the label of a row that is not an operator group: the remainder, a named part or the unexplained rest. */
export function isRemainderOp(op: string): boolean {
  return op === REMAINDER_OP || op === UNEXPLAINED_OP || Object.values(LATENCY_PART_LABELS).includes(op);
}

/** The calls of a phase that fed, fetched and returned the same: one `Identity` graph and one copy to measure. */
export interface LatencyCallKind {
  /** Timed calls of this kind. */
  readonly calls: number;
  /** Kernel executions per call (rounded mean): the node count of the `Identity` graph. */
  readonly kernelsPerCall: number;
  /** Inputs fed per call. */
  readonly feeds: number;
  /** Outputs fetched per call. */
  readonly fetches: number;
  /** Byte size of every output, in fetch order. */
  readonly outputBytes: readonly number[];
}

/**
 * What the named parts of one phase need, read from a trace written by `bench --trace` whose timed engine calls
 * carry the engine's own run ({@link ENGINE_RUN_CAT} spans, `session.run`): means per timed call, and the kinds of
 * call to measure the session and the copy of.
 */
export interface LatencyPartNeeds {
  /** The phase. */
  readonly phase: OperatorPhase;
  /** Timed calls of the phase. */
  readonly calls: number;
  /** Mean measured latency per call in µs. */
  readonly latencyUs: number;
  /** Mean kernel time per call in µs. */
  readonly kernelUs: number;
  /** Mean µs per call of dantinox's JavaScript: engine call span − its engine run span. */
  readonly jsUs: number;
  /** The phase's calls by what they fed, fetched and returned (e.g. `forward` beside `prefill`), largest first. */
  readonly kinds: readonly LatencyCallKind[];
}

/**
 * Per phase, what {@link latencyParts} needs measured ({@link LatencyPartNeeds}), from a trace's events; a phase
 * is left out unless every timed call of it has an engine run span and at least one kernel ran.
 */
export function latencyPartNeeds(events: readonly TraceEventLike[]): LatencyPartNeeds[] {
  const runs = new Map<number, { us: number; feeds: number; fetches: number; bytes: readonly number[] }>();
  for (const e of events) {
    const a = e.args;
    if (e.ph !== 'X' || e.cat !== ENGINE_RUN_CAT || typeof a?.['call'] !== 'number') continue;
    const bytes = Array.isArray(a['output_bytes']) ? (a['output_bytes'] as unknown[]).map(Number) : [];
    runs.set(a['call'] as number, {
      us: e.dur ?? 0,
      feeds: typeof a['feeds'] === 'number' ? a['feeds'] : 0,
      fetches: typeof a['fetches'] === 'number' ? a['fetches'] : bytes.length,
      bytes,
    });
  }
  const calls = timedCallsOf(events);
  const kernelsPerCall = new Map<number, number>();
  for (const k of kernelEventsOf(events)) kernelsPerCall.set(k.call, (kernelsPerCall.get(k.call) ?? 0) + 1);
  const kernelUs = new Map<number, number>();
  for (const k of kernelEventsOf(events)) kernelUs.set(k.call, (kernelUs.get(k.call) ?? 0) + k.durUs);
  const out: LatencyPartNeeds[] = [];
  for (const phase of ['prefill', 'decode'] as const) {
    const mine = calls.filter((c) => c.phase === phase);
    if (mine.length === 0 || mine.some((c) => !runs.has(c.index))) continue;
    if (!mine.some((c) => kernelsPerCall.has(c.index))) continue;
    const kinds = new Map<
      string,
      { calls: number; kernels: number; feeds: number; fetches: number; bytes: readonly number[] }
    >();
    let jsUs = 0;
    for (const c of mine) {
      const run = runs.get(c.index) as NonNullable<ReturnType<typeof runs.get>>;
      jsUs += c.latencyUs - run.us;
      const key = `${run.feeds}|${run.fetches}|${run.bytes.join(',')}`;
      const kind = kinds.get(key) ?? {
        calls: 0,
        kernels: 0,
        feeds: run.feeds,
        fetches: run.fetches,
        bytes: run.bytes,
      };
      kind.calls++;
      kind.kernels += kernelsPerCall.get(c.index) ?? 0;
      kinds.set(key, kind);
    }
    const n = mine.length;
    out.push({
      phase,
      calls: n,
      latencyUs: mine.reduce((s, c) => s + c.latencyUs, 0) / n,
      kernelUs: mine.reduce((s, c) => s + (kernelUs.get(c.index) ?? 0), 0) / n,
      jsUs: jsUs / n,
      kinds: [...kinds.values()]
        .sort((x, y) => y.calls - x.calls)
        .map((k) => ({
          calls: k.calls,
          kernelsPerCall: Math.round(k.kernels / k.calls),
          feeds: k.feeds,
          fetches: k.fetches,
          outputBytes: k.bytes,
        })),
    });
  }
  return out;
}

/**
 * `table` with each phase's remainder row (latency − kernels) replaced by one row per measured part of `parts` and
 * an `unexplained` row (category `remainder`, total = mean × calls, share of the latency), so that a phase's rows
 * still sum to its latency. A phase without parts, or whose kernels exceeded its latency (clamped), keeps its
 * remainder row.
 */
export function splitRemainder(table: OperatorTable, parts: readonly LatencyParts[]): OperatorTable {
  const byPhase = new Map(parts.map((p) => [p.phase, p]));
  const clamped = new Set(table.reconciliation.filter((r) => r.clamped).map((r) => r.phase));
  const rows: OperatorRow[] = [];
  for (const row of table.rows) {
    const mine = byPhase.get(row.phase);
    if (row.category !== 'remainder' || mine === undefined || clamped.has(row.phase)) {
      rows.push(row);
      continue;
    }
    const partRow = (op: string, us: number, share: number): OperatorRow => ({
      phase: row.phase,
      op,
      category: 'remainder',
      inputShapes: '',
      calls: row.calls,
      nodes: 0,
      totalUs: us * row.calls,
      meanUs: us,
      share,
    });
    for (const p of mine.parts) rows.push(partRow(LATENCY_PART_LABELS[p.part], p.us, p.share));
    rows.push(partRow(UNEXPLAINED_OP, mine.unexplainedUs, mine.unexplainedShare));
  }
  return { ...table, rows };
}

/**
 * A plain-text block per phase: a heading with the calls, the mean latency, the share explained and whether the
 * ≥ 95% goal is met, then one line per part — kernels, each named part (`not measured` when missing), the
 * unexplained rest — with its mean ms per call and share of the latency.
 */
export function formatLatencyParts(phases: readonly LatencyParts[]): string {
  const labels = ['kernels', ...LATENCY_PARTS.map((p) => LATENCY_PART_LABELS[p]), UNEXPLAINED_OP];
  const width = Math.max(...labels.map((l) => l.length));
  const line = (label: string, us: number, share: number): string =>
    `  ${label.padEnd(width)}  ${(us / 1000).toFixed(3).padStart(9)} ms  ${(100 * share).toFixed(1).padStart(6)}%`;
  return phases
    .map((p) =>
      [
        `${p.phase}: ${p.calls} calls, ${(p.latencyUs / 1000).toFixed(3)} ms per call, ${(100 * p.explainedFraction).toFixed(1)}% explained — ${p.goalMet ? 'goal met' : 'goal missed'} (|unexplained| ≤ ${(100 * (1 - EXPLAINED_GOAL)).toFixed(0)}%)`,
        line('kernels', p.kernelUs, p.kernelShare),
        ...LATENCY_PARTS.map((part) => {
          const found = p.parts.find((x) => x.part === part);
          const label = LATENCY_PART_LABELS[part];
          return found === undefined
            ? `  ${label.padEnd(width)}  not measured`
            : line(label, found.us, found.share);
        }),
        line(UNEXPLAINED_OP, p.unexplainedUs, p.unexplainedShare),
      ].join('\n'),
    )
    .join('\n');
}
