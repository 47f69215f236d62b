/**
 * The overhead of ONNX Runtime's profiler, measured: the same calls timed on the profiled model and on a second
 * instance of the variant without the profiler, interleaved.
 *
 * @packageDocumentation
 */
import type { Model } from '../models/model.js';
import { type Clock, hrtimeClock } from '../profiling/index.js';

/** The profiler's overhead: per phase, time with the profiler ÷ time without it. */
export interface ProfilerOverhead {
  /** Ratio (dimensionless) for a prefill of the prompt; 1 means no overhead. */
  readonly prefill: number;
  /** Ratio (dimensionless) for one decode step at context `promptTokens`; absent without KV-cache decode. */
  readonly decode?: number;
  /** Timed rounds (each times both models once). */
  readonly rounds: number;
  /** Prompt length of the prefill (batch 1). */
  readonly promptTokens: number;
}

/** Options of {@link measureProfilerOverhead}. */
export interface ProfilerOverheadOptions {
  /** The prompt of each prefill (batch 1). */
  readonly promptIds: Int32Array;
  /** The token of each decode step after it; `undefined`: prefill only (no KV-cache decode). */
  readonly decodeId: Int32Array | undefined;
  /** Timed rounds. @default 5 */
  readonly rounds?: number;
  /** Clock. @default hrtimeClock */
  readonly clock?: Clock;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** Milliseconds of one prefill and one decode step of `model` (decode `NaN` without `decodeId`). */
async function timeCalls(
  model: Model,
  options: ProfilerOverheadOptions,
  clock: Clock,
): Promise<{ prefill: number; decode: number }> {
  const shape = { batch: 1, seq: options.promptIds.length };
  const ms = (from: bigint, to: bigint): number => Number(to - from) / 1e6;
  const t0 = clock.now();
  const { state } = await model.prefill(options.promptIds, shape);
  const t1 = clock.now();
  if (options.decodeId === undefined) {
    state.dispose();
    return { prefill: ms(t0, t1), decode: Number.NaN };
  }
  // The step consumes the prefill's state; the state it returns is disposed.
  const step = await model.decodeStep(options.decodeId, state);
  const t2 = clock.now();
  step.state.dispose();
  return { prefill: ms(t0, t1), decode: ms(t1, t2) };
}

/**
 * Times a prefill of `promptIds` and a decode step after it on `profiled` (profiler on) and on `plain` (the same
 * variant without it) in interleaved rounds — the order alternates each round so that drift falls on both — after
 * one untimed round each; the overhead of each phase is the median over rounds of the per-round ratio
 * profiled ÷ plain.
 */
export async function measureProfilerOverhead(
  profiled: Model,
  plain: Model,
  options: ProfilerOverheadOptions,
): Promise<ProfilerOverhead> {
  const clock = options.clock ?? hrtimeClock;
  const rounds = options.rounds ?? 5;
  await timeCalls(profiled, options, clock);
  await timeCalls(plain, options, clock);
  const prefill: number[] = [];
  const decode: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const first = round % 2 === 0 ? profiled : plain;
    const second = first === profiled ? plain : profiled;
    const a = await timeCalls(first, options, clock);
    const b = await timeCalls(second, options, clock);
    const [on, off] = first === profiled ? [a, b] : [b, a];
    prefill.push(on.prefill / off.prefill);
    if (options.decodeId !== undefined) decode.push(on.decode / off.decode);
  }
  return {
    prefill: median(prefill),
    ...(decode.length === 0 ? {} : { decode: median(decode) }),
    rounds,
    promptTokens: options.promptIds.length,
  };
}
