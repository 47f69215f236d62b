/**
 * A recorder of dantinox's own spans (task, cell, warm-up and timed calls, cache fills, engine calls) as Chrome
 * trace events — the JSON format Perfetto UI and chrome://tracing open — on an injected clock.
 *
 * @packageDocumentation
 */
import type { Clock } from './clock.js';

/** One event of the Chrome trace event format (times in microseconds). */
export interface TraceEvent {
  /** Phase: `X` a complete event (with `dur`), `M` metadata, `i` an instant. */
  readonly ph: 'X' | 'M' | 'i';
  /** Event name. */
  readonly name: string;
  /** Category (comma-separated tags). */
  readonly cat?: string;
  /** Start in µs on the trace's clock. */
  readonly ts: number;
  /** Duration in µs (`X` events). */
  readonly dur?: number;
  /** Process id: one per track group. */
  readonly pid: number;
  /** Thread id: one per track. */
  readonly tid: number;
  /** Free-form details. */
  readonly args?: Readonly<Record<string, unknown>>;
  /** Scope of an instant event (`g` global, `p` process, `t` thread). */
  readonly s?: 'g' | 'p' | 't';
}

/** Which kind of call is running, for the engine calls made meanwhile. */
export type TracePhase = 'warmup' | 'timed' | 'prepare' | 'other';

/** The shape of one engine call: what the graph model needs to cost it. */
export interface EngineCallShape {
  /** Sequences in the call. */
  readonly batch: number;
  /** New tokens per sequence. */
  readonly seq: number;
  /** Tokens already in the KV cache before them. */
  readonly pastLength: number;
  /** Positions per sequence whose logits the call computes, the last ones. @default seq */
  readonly logitPositions?: number;
}

/** One engine call (one `session.run` for ONNX Runtime), in call order. */
export interface EngineCallSpan {
  /** Ordinal of the call among the model's engine calls (0-based). */
  readonly index: number;
  /** The call (`prefill`, `decodeStep`, `extend`, `forward`). */
  readonly name: string;
  /** Start in µs on the trace's clock. */
  readonly startUs: number;
  /** End in µs on the trace's clock. */
  readonly endUs: number;
  /** What the call belonged to: a warm-up call, a timed call, an untimed preparation (cache fill) or other. */
  readonly phase: TracePhase;
  /** Its shape, when the caller gave it. */
  readonly shape?: EngineCallShape;
}

/** Category of the span of the engine's own run inside an engine call ({@link TraceRecorder.engineRun}). */
export const ENGINE_RUN_CAT = 'runtime';

/** Process and thread ids of dantinox's own track. */
export const DANTINOX_TRACK: {
  /** Process id of dantinox's spans. */
  readonly pid: 1;
  /** Thread id of dantinox's spans. */
  readonly tid: 1;
} = { pid: 1, tid: 1 };

/**
 * Records nested spans of dantinox's work as Chrome trace complete events (`ph: 'X'`) on one track, timed with
 * `clock` relative to the recorder's creation (µs), and the engine calls made in them with the phase of the
 * call that made them (so that engine profiles can keep only the timed calls).
 *
 * @example
 * ```ts
 * const trace = new TraceRecorder(hrtimeClock);
 * await trace.span('latency', 'task', () => task.run(paradigm, model, config, rng));
 * writeFileSync('trace.json', JSON.stringify({ traceEvents: trace.events() }));
 * ```
 */
export class TraceRecorder {
  readonly #clock: Clock;
  readonly #origin: bigint;
  readonly #events: TraceEvent[] = [];
  readonly #calls: EngineCallSpan[] = [];
  #phase: TracePhase = 'other';
  /** Ordinal of the engine call in progress, if any. */
  #current: number | undefined;

  constructor(clock: Clock) {
    this.#clock = clock;
    this.#origin = clock.now();
  }

  /** Now, in µs since the recorder was created. */
  nowUs(): number {
    return Number(this.#clock.now() - this.#origin) / 1000;
  }

  /** The phase the engine calls made now belong to. */
  get phase(): TracePhase {
    return this.#phase;
  }

  /**
   * Runs `work` inside a span `name` of category `cat`; with `phase`, the engine calls made meanwhile belong to
   * it (the previous phase is restored after). The span is recorded even when `work` throws.
   */
  async span<T>(
    name: string,
    cat: string,
    work: () => Promise<T>,
    options: { readonly phase?: TracePhase; readonly args?: Readonly<Record<string, unknown>> } = {},
  ): Promise<T> {
    const before = this.#phase;
    if (options.phase !== undefined) this.#phase = options.phase;
    const start = this.nowUs();
    try {
      return await work();
    } finally {
      const end = this.nowUs();
      this.#phase = before;
      this.#events.push({
        ph: 'X',
        name,
        cat,
        ts: start,
        dur: end - start,
        ...DANTINOX_TRACK,
        ...(options.args === undefined ? {} : { args: options.args }),
      });
    }
  }

  /**
   * Runs one engine call `name` in a span of category `engine`, recording it with the current phase (and its
   * `shape`, when given).
   */
  async engineCall<T>(name: string, work: () => Promise<T>, shape?: EngineCallShape): Promise<T> {
    const index = this.#calls.length;
    const phase = this.#phase;
    const outer = this.#current;
    this.#current = index;
    const start = this.nowUs();
    try {
      return await work();
    } finally {
      const end = this.nowUs();
      this.#current = outer;
      this.#calls.push({
        index,
        name,
        startUs: start,
        endUs: end,
        phase,
        ...(shape === undefined ? {} : { shape }),
      });
      this.#events.push({
        ph: 'X',
        name,
        cat: `engine,${phase}`,
        ts: start,
        dur: end - start,
        ...DANTINOX_TRACK,
        args: {
          call: index,
          phase,
          ...(shape === undefined
            ? {}
            : {
                batch: shape.batch,
                seq: shape.seq,
                past_length: shape.pastLength,
                ...(shape.logitPositions === undefined ? {} : { logit_positions: shape.logitPositions }),
              }),
        },
      });
    }
  }

  /**
   * Runs the engine's own run `name` (ONNX Runtime: `session.run`) inside the engine call in progress, as a span of
   * category {@link ENGINE_RUN_CAT} whose `args.call` is that call's ordinal, plus the `args` that `describe` gives
   * of the result. Outside an engine call, `work` runs unrecorded.
   */
  async engineRun<T>(
    name: string,
    work: () => Promise<T>,
    describe?: (result: T) => Readonly<Record<string, unknown>>,
  ): Promise<T> {
    const call = this.#current;
    if (call === undefined) return work();
    const start = this.nowUs();
    const result = await work();
    const end = this.nowUs();
    this.#events.push({
      ph: 'X',
      name,
      cat: ENGINE_RUN_CAT,
      ts: start,
      dur: end - start,
      ...DANTINOX_TRACK,
      args: { call, ...(describe === undefined ? {} : describe(result)) },
    });
    return result;
  }

  /** The spans recorded so far (complete events, in the order they ended). */
  events(): readonly TraceEvent[] {
    return [...this.#events];
  }

  /** The engine calls recorded so far, in call order. */
  engineCalls(): readonly EngineCallSpan[] {
    return [...this.#calls].sort((a, b) => a.index - b.index);
  }
}
