/**
 * One Chrome trace of a run: dantinox's spans on one track and, when the engine has a profiler, its kernel events
 * of the **timed** calls only, moved onto dantinox's clock. Pure data: the caller reads the engine's profile.
 *
 * @packageDocumentation
 */
import { DANTINOX_TRACK, type EngineCallSpan, type TraceEvent } from './trace-recorder.js';

/** Inputs of {@link buildChromeTrace}. */
export interface ChromeTraceInput {
  /** Name of dantinox's process track, e.g. the variant id. */
  readonly name: string;
  /** dantinox's spans ({@link TraceRecorder.events}). */
  readonly spans: readonly TraceEvent[];
  /** The engine calls in call order ({@link TraceRecorder.engineCalls}). */
  readonly engineCalls: readonly EngineCallSpan[];
  /** ONNX Runtime's profile (its Chrome-trace JSON, array or `{ traceEvents }`), when the engine wrote one. */
  readonly ortProfile?: unknown;
  /** Why there are no kernel events (another engine, profiling off), recorded as a metadata event. */
  readonly kernelsAbsent?: string;
  /** Extra `otherData` fields (e.g. the profiler's overhead). */
  readonly otherData?: Readonly<Record<string, unknown>>;
}

/** A Chrome trace file's contents (the JSON object format). */
export interface ChromeTrace {
  /** Every event: metadata first, then dantinox's spans, then the engine's. */
  readonly traceEvents: readonly TraceEvent[];
  /** Units of `ts` and `dur` as displayed. */
  readonly displayTimeUnit: 'ms';
  /** Alignment and provenance: clock offset, calls matched, events kept. */
  readonly otherData: Readonly<Record<string, unknown>>;
}

/** Process id of the engine's kernel tracks. */
export const ENGINE_PID = 2;

/** One ORT event as read from its profile. */
interface OrtEvent {
  readonly cat: string;
  readonly name: string;
  readonly ts: number;
  readonly dur: number;
  readonly tid: number;
  readonly args: Readonly<Record<string, unknown>>;
}

function ortEvents(profile: unknown): OrtEvent[] {
  const list = Array.isArray(profile) ? profile : (profile as { traceEvents?: unknown } | null)?.traceEvents;
  if (!Array.isArray(list)) return [];
  const out: OrtEvent[] = [];
  for (const e of list as unknown[]) {
    if (e === null || typeof e !== 'object') continue;
    const { cat, name, ts, dur, tid, args } = e as Record<string, unknown>;
    if (typeof cat !== 'string' || typeof name !== 'string') continue;
    if (typeof ts !== 'number' || typeof dur !== 'number' || !(dur >= 0)) continue;
    out.push({
      cat,
      name,
      ts,
      dur,
      tid: typeof tid === 'number' ? tid : 0,
      args: args !== null && typeof args === 'object' ? (args as Record<string, unknown>) : {},
    });
  }
  return out;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

const meta = (name: string, pid: number, tid: number, args: Record<string, unknown>): TraceEvent => ({
  ph: 'M',
  name,
  ts: 0,
  pid,
  tid,
  args,
});

/**
 * Builds the trace of a run. dantinox's spans go on one track (pid 1, tid 1). With an ONNX Runtime profile, its
 * `model_run` events are matched to the engine calls in call order (one `session.run` per call) and moved onto
 * dantinox's clock by the median of (call start − `model_run` start), clamped per call so that each run lies
 * inside the call that made it (the JS work before `session.run` varies by tens of µs; the largest clamp is
 * recorded as `ort_max_call_adjust_us`); then the `model_run` and node/kernel events of the calls
 * made as timed calls are kept (warm-up calls, cache fills and other calls are dropped, the trace says how many),
 * one track per ORT thread (pid {@link ENGINE_PID}). Without a profile, `kernelsAbsent` is recorded as a metadata
 * event (`kernel_events_absent`) on dantinox's track.
 */
export function buildChromeTrace(input: ChromeTraceInput): ChromeTrace {
  const events: TraceEvent[] = [
    meta('process_name', DANTINOX_TRACK.pid, DANTINOX_TRACK.tid, { name: `dantinox: ${input.name}` }),
    meta('thread_name', DANTINOX_TRACK.pid, DANTINOX_TRACK.tid, { name: 'dantinox spans' }),
  ];
  const otherData: Record<string, unknown> = { ...(input.otherData ?? {}) };
  const kernels: TraceEvent[] = [];
  const ort = input.ortProfile === undefined ? [] : ortEvents(input.ortProfile);
  const runs = ort.filter((e) => e.cat === 'Session' && e.name === 'model_run').sort((a, b) => a.ts - b.ts);
  if (runs.length === 0) {
    const why = input.kernelsAbsent ?? 'the engine wrote no profile with model_run events';
    events.push(meta('kernel_events_absent', DANTINOX_TRACK.pid, DANTINOX_TRACK.tid, { reason: why }));
    otherData['kernel_events_absent'] = why;
  } else {
    const calls = input.engineCalls;
    const matched = Math.min(runs.length, calls.length);
    const offset = median(
      Array.from(
        { length: matched },
        (_, i) => (calls[i] as EngineCallSpan).startUs - (runs[i] as OrtEvent).ts,
      ),
    );
    const threads = new Map<number, number>();
    const trackOf = (ortTid: number): number => {
      let tid = threads.get(ortTid);
      if (tid === undefined) {
        tid = threads.size + 1;
        threads.set(ortTid, tid);
      }
      return tid;
    };
    let kept = 0;
    let maxAdjust = 0;
    for (let i = 0; i < matched; i++) {
      const call = calls[i] as EngineCallSpan;
      if (call.phase !== 'timed') continue;
      kept++;
      const run = runs[i] as OrtEvent;
      // The run happened inside its call: clamp the offset into [call start − run start, call end − run end].
      const lo = call.startUs - run.ts;
      const hi = call.endUs - (run.ts + run.dur);
      const shift = hi < lo ? lo : Math.min(Math.max(offset, lo), hi);
      maxAdjust = Math.max(maxAdjust, Math.abs(shift - offset));
      const inRun = ort.filter(
        (e) => e === run || (e.cat === 'Node' && e.ts >= run.ts && e.ts + e.dur <= run.ts + run.dur),
      );
      for (const e of inRun) {
        kernels.push({
          ph: 'X',
          name: e.cat === 'Node' && typeof e.args['op_name'] === 'string' ? `${e.args['op_name']}` : e.name,
          cat: `ort,${e.cat}`,
          ts: e.ts + shift,
          dur: e.dur,
          pid: ENGINE_PID,
          tid: trackOf(e.tid),
          args: { ...e.args, ort_name: e.name, call: call.index },
        });
      }
    }
    events.push(meta('process_name', ENGINE_PID, 0, { name: 'ONNX Runtime (timed calls only)' }));
    for (const [ortTid, tid] of threads)
      events.push(meta('thread_name', ENGINE_PID, tid, { name: `ORT thread ${ortTid}` }));
    Object.assign(otherData, {
      ort_clock_offset_us: offset,
      ort_max_call_adjust_us: maxAdjust,
      ort_runs: runs.length,
      engine_calls: calls.length,
      timed_calls_with_kernels: kept,
      ...(runs.length === calls.length
        ? {}
        : { alignment_warning: `${runs.length} model_run events for ${calls.length} engine calls` }),
    });
  }
  return {
    traceEvents: [...events, ...[...input.spans].sort((a, b) => a.ts - b.ts), ...kernels],
    displayTimeUnit: 'ms',
    otherData,
  };
}
