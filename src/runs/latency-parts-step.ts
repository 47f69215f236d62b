/**
 * The named parts of a traced variant's latency (`bench --trace` on ONNX Runtime): read what each phase needs from
 * its trace, measure the session overhead on an `Identity` graph (with the profiler off, then on, for the
 * profiler's part) and the output copy alone, and break each phase's latency into kernels, those parts, dantinox's
 * JavaScript and the unexplained rest.
 *
 * @packageDocumentation
 */
import { measureOutputCopy, measureSessionOverhead } from '../models/onnx/session-overhead.js';
import {
  type LatencyParts,
  latencyPartNeeds,
  latencyParts,
  type TraceEventLike,
} from '../profiling/index.js';

/** Options of {@link measureLatencyParts}. */
export interface MeasureLatencyPartsOptions {
  /** Intra-op threads of the traced model (the `Identity` sessions use as many). */
  readonly threads: number;
}

/**
 * Per phase of `events` (a trace written by `bench --trace`) whose timed calls carry their `session.run` span, the
 * latency's parts (`latencyParts`): kernels and dantinox's JavaScript from the trace; per kind of call (what it
 * fed, fetched and returned), the session overhead of an `Identity` graph of its kernel, feed and fetch counts, the
 * profiler's cost as that graph's time with the profiler on less off (0 when on is not slower), and the copy of its
 * output bytes, measured now and averaged over the phase's calls. Empty when no phase has `session.run` spans
 * (another engine).
 */
export async function measureLatencyParts(
  events: readonly TraceEventLike[],
  options: MeasureLatencyPartsOptions,
): Promise<LatencyParts[]> {
  const out: LatencyParts[] = [];
  for (const needs of latencyPartNeeds(events)) {
    // Each kind of call measured once, weighted by its calls: the phase's mean per call.
    let sessionUs = 0;
    let profilerUs = 0;
    let outputCopyUs = 0;
    for (const kind of needs.kinds) {
      const graph = {
        nodes: Math.max(kind.kernelsPerCall, kind.fetches, 1),
        inputs: Math.max(kind.feeds, 1),
        outputs: Math.max(kind.fetches, 1),
        threads: options.threads,
      };
      const weight = kind.calls / needs.calls;
      const off = await measureSessionOverhead(graph);
      const on = await measureSessionOverhead({ ...graph, profile: true });
      sessionUs += off * weight;
      profilerUs += Math.max(0, on - off) * weight;
      outputCopyUs += measureOutputCopy(kind.outputBytes) * weight;
    }
    out.push(
      latencyParts({
        phase: needs.phase,
        calls: needs.calls,
        latencyUs: needs.latencyUs,
        kernelUs: needs.kernelUs,
        sessionUs,
        outputCopyUs,
        jsUs: needs.jsUs,
        profilerUs,
      }),
    );
  }
  return out;
}
