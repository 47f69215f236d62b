/**
 * The end of a traced variant (`bench --trace`): the profiler's overhead measured while the profiled model is
 * still open, then — once its disposal wrote ONNX Runtime's profile — `trace.json`, the latency's named parts
 * measured beside it, `operators.csv` and the `operators` row added to the variant's report and saved.
 *
 * @packageDocumentation
 */
import type { Calibration } from '../benchmarking/calibration.js';
import type { BenchmarkConfig } from '../benchmarking/config.js';
import { ceilingDtype } from '../benchmarking/efficiency-columns.js';
import { SuiteReport } from '../benchmarking/report.js';
import { RunDirectory } from '../benchmarking/run-directory.js';
import { errorText } from '../errors.js';
import type { Model } from '../models/model.js';
import type { Paradigm } from '../models/paradigm.js';
import type { EngineCallShape, LatencyParts, NodeCost } from '../profiling/index.js';
import { Rng } from '../rng.js';
import { measureLatencyParts } from './latency-parts-step.js';
import { type CallCosts, OPERATOR_METRICS, operatorResult, writeOperatorCsv } from './operator-result.js';
import { measureProfilerOverhead, type ProfilerOverhead } from './profiler-overhead.js';
import type { VariantTrace } from './variant-trace.js';

/** A model that can cost its graph's nodes per call shape (the built-in ONNX Runtime model when profiled). */
interface CostedModel {
  graphCosts(shape: EngineCallShape): readonly ({ readonly name: string } & NodeCost)[] | undefined;
}

function isCosted(model: Model): model is Model & CostedModel {
  return typeof (model as Partial<CostedModel>).graphCosts === 'function';
}

/** The graph model's node costs of `model` per call shape, when it has them (memoised per shape). */
export function callCostsOf(model: Model): CallCosts | undefined {
  if (!isCosted(model)) return undefined;
  const memo = new Map<string, ReadonlyMap<string, NodeCost> | undefined>();
  return (shape) => {
    const key = `${shape.batch},${shape.seq},${shape.pastLength},${shape.logitPositions ?? shape.seq}`;
    if (!memo.has(key)) {
      const nodes = model.graphCosts(shape);
      memo.set(key, nodes === undefined ? undefined : new Map(nodes.map((n) => [n.name, n])));
    }
    return memo.get(key);
  };
}

/**
 * Measures the profiler's overhead (see `measureProfilerOverhead`) on `profiled` — the traced model, whose calls
 * are recorded outside any timed call, so the trace leaves their kernels out — against a second instance of the
 * variant opened by `openPlain` without the profiler, at the latency prompt (the last of `config.seqLens` below
 * the context), and disposes that instance. `undefined` when no prompt fits.
 */
export async function profilerOverheadOf(
  profiled: Model,
  paradigm: Paradigm,
  config: BenchmarkConfig,
  openPlain: () => Promise<Model>,
): Promise<ProfilerOverhead | undefined> {
  const { vocabSize, maxContext } = profiled.config;
  const prompt = config.seqLens.filter((l) => l < maxContext).at(-1);
  if (prompt === undefined) return undefined;
  const rng = new Rng(config.seed);
  const plain = await openPlain();
  try {
    return await measureProfilerOverhead(profiled, plain, {
      promptIds: rng.integers(vocabSize, prompt),
      decodeId: paradigm.supportsKvDecode ? rng.integers(vocabSize, 1) : undefined,
    });
  } finally {
    await plain.dispose();
  }
}

/** Inputs of {@link finishTrace}. */
export interface FinishTraceInput {
  /** The variant's trace (its model disposed). */
  readonly trace: VariantTrace;
  /** The variant's folder. */
  readonly folder: string;
  /** Name of the trace's process track (the variant id). */
  readonly name: string;
  /** The variant's report, when the suite ran. */
  readonly report?: SuiteReport;
  /** Node costs of the model's calls. */
  readonly costs?: CallCosts;
  /** The run's calibration and the model's dtype, for the roofline. */
  readonly calibration?: Calibration;
  /** The model's weight dtype. */
  readonly dtype?: string;
  /** The profiler's overhead, when measured. */
  readonly overhead?: ProfilerOverhead;
  /**
   * Intra-op threads of the traced model: when given, the latency's named parts are measured (an `Identity`
   * session of as many threads, the output copy) and replace the remainder row.
   */
  readonly threads?: number;
}

/**
 * Writes `trace.json` (with the overhead in its `otherData`), then, when it holds kernel events of timed calls,
 * measures the latency's named parts (with `threads`; see `measureLatencyParts`), and writes `operators.csv` and
 * the report with its `operators` row appended (results.csv and results.json saved again). Returns the files
 * written and the report.
 */
export async function finishTrace(input: FinishTraceInput): Promise<{
  readonly files: readonly string[];
  readonly report: SuiteReport | undefined;
}> {
  const { overhead } = input;
  const written = input.trace.write(
    input.folder,
    input.name,
    overhead === undefined
      ? undefined
      : {
          profiler_overhead: {
            ...overhead,
            method:
              'median over interleaved rounds of (call time with the profiler ÷ call time on a second instance without it)',
          },
        },
  );
  const ceilings = input.calibration?.ceilings;
  const peak = input.dtype === undefined ? undefined : ceilings?.gemmGflops[ceilingDtype(input.dtype)];
  const bandwidth = ceilings?.bandwidthGbs;
  // A probe that fails (e.g. no memory for the Identity session) costs the parts, not the table: the row says why.
  let parts: readonly LatencyParts[] | undefined;
  let partsUnavailable: string | undefined;
  if (input.threads !== undefined) {
    try {
      parts = await measureLatencyParts(written.trace.traceEvents, { threads: input.threads });
    } catch (error) {
      partsUnavailable = errorText(error);
    }
  }
  const built = operatorResult({
    trace: written.trace,
    ...(parts === undefined || parts.length === 0 ? {} : { parts }),
    ...(partsUnavailable === undefined ? {} : { partsUnavailable }),
    ...(input.costs === undefined ? {} : { costs: input.costs }),
    ...(peak === undefined || bandwidth === undefined
      ? {}
      : { roofline: { peakGflops: peak, bandwidthGbs: bandwidth } }),
    ...(overhead === undefined ? {} : { overhead }),
  });
  if (built === undefined) return { files: [written.path], report: input.report };
  const csv = writeOperatorCsv(input.folder, built.table);
  const before = input.report;
  if (before === undefined) return { files: [written.path, csv], report: before };
  const report = new SuiteReport({
    results: [...before.results.filter((r) => r.task !== built.result.task), built.result],
    modelMeta: before.modelMeta,
    totalTimeS: before.totalTimeS,
    ...(before.environment === undefined ? {} : { environment: before.environment }),
    ...(before.runId === undefined ? {} : { runId: before.runId }),
    descriptors: [...before.descriptors, ...OPERATOR_METRICS],
  });
  const dir = new RunDirectory(input.folder);
  report.save(dir.csvPath);
  report.save(dir.jsonPath);
  return { files: [written.path, csv], report };
}
