/**
 * Parts of a traced ONNX Runtime call measured on their own (see `latencyParts` in `dantinox/profiling`): the
 * session's work around and between kernels, as the time of `session.run` on a graph of `Identity` nodes of the
 * same node, input and output counts on tiny tensors; the profiler's work per node, as the same graph timed with
 * ONNX Runtime's profiler on; and the Node binding's copy of every output into a new JavaScript buffer, as the
 * allocation and copy of the same byte sizes alone.
 *
 * @packageDocumentation
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { type Clock, hrtimeClock } from '../../profiling/clock.js';
import { quantileSorted } from '../../profiling/statistics.js';
import { createOrtSession } from '../engines/ort/index.js';
import { GraphBuilder } from './graph-builder.js';

/** Options of {@link measureSessionOverhead}. */
export interface SessionOverheadOptions {
  /** `Identity` nodes in the graph: the kernels one call of the measured model runs (≥ `outputs`). */
  readonly nodes: number;
  /** Graph inputs (the measured call's feeds; ≥ 1), each a one-element float32 tensor. */
  readonly inputs: number;
  /** Graph outputs (the measured call's fetches; ≥ 1). */
  readonly outputs: number;
  /** Intra-op threads of the session (the measured model's). @default every available core */
  readonly threads?: number;
  /** Calls per round. @default 50 */
  readonly runs?: number;
  /**
   * Runs the session with ONNX Runtime's profiler on, as a traced model's session runs (its trace file is written
   * to a temporary folder, removed afterwards). @default false
   */
  readonly profile?: boolean;
  /** Timed rounds, after one untimed round. @default 7 */
  readonly rounds?: number;
  /** Clock. @default hrtimeClock */
  readonly clock?: Clock;
}

/** The median of `xs` (linear interpolation at 0.5, the project's one percentile method). */
const median = (xs: readonly number[]): number =>
  quantileSorted(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

const positiveInteger = (n: number): boolean => Number.isInteger(n) && n >= 1;

/**
 * An ONNX graph of `nodes` `Identity` nodes with `inputs` inputs `x{i}` and `outputs` outputs `y{j}` (float32,
 * shape `[1]`): outputs 1… are one `Identity` each of input `j mod inputs`, output 0 ends a chain of the remaining
 * nodes starting at `x0`; inputs no node reads stay graph inputs (fed, then unused).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` unless all three are positive integers and `nodes ≥ outputs`.
 */
export function identityChainGraph(nodes: number, inputs: number, outputs: number): Uint8Array {
  if (![nodes, inputs, outputs].every(positiveInteger) || nodes < outputs)
    throw new DantinoxError('INVALID_OPTION', messages.badIdentityGraph(nodes, inputs, outputs));
  const g = new GraphBuilder();
  const xs = Array.from({ length: inputs }, (_, i) => g.input(`x${i}`, 'float32', [1]));
  const chain = nodes - (outputs - 1);
  let y = xs[0] as string;
  for (let n = 0; n < chain; n++) y = g.op('Identity', [y], {}, n === chain - 1 ? { output: 'y0' } : {});
  g.output('y0', 'float32', [1]);
  for (let j = 1; j < outputs; j++) {
    g.op('Identity', [xs[j % inputs] as string], {}, { output: `y${j}` });
    g.output(`y${j}`, 'float32', [1]);
  }
  return g.encode();
}

/**
 * µs of one `session.run` on {@link identityChainGraph} (graph optimisation disabled, so every node runs; the
 * profiler off unless `profile`), fed and fetched from JavaScript like a model call: the median over `rounds`
 * rounds of the mean over `runs` back-to-back calls. Its `Identity` kernels copy 4 bytes each, so the time is the
 * session's and the binding's work per call and per node (and, with `profile`, the profiler's per node).
 */
export async function measureSessionOverhead(options: SessionOverheadOptions): Promise<number> {
  const { nodes, inputs, outputs } = options;
  const clock = options.clock ?? hrtimeClock;
  const runs = options.runs ?? 50;
  const rounds = options.rounds ?? 7;
  const profileDir = options.profile === true ? mkdtempSync(join(tmpdir(), 'dantinox-identity-')) : undefined;
  const { ort, session } = await createOrtSession(identityChainGraph(nodes, inputs, outputs), {
    threads: options.threads,
    graphOptimization: 'disabled',
    source: `an Identity graph of ${nodes} nodes`,
    profileFilePrefix: profileDir === undefined ? undefined : join(profileDir, 'identity'),
  });
  try {
    const feeds = Object.fromEntries(
      Array.from({ length: inputs }, (_, i) => [`x${i}`, new ort.Tensor('float32', Float32Array.of(1), [1])]),
    );
    const fetches = Array.from({ length: outputs }, (_, j) => `y${j}`);
    const round = async (): Promise<number> => {
      const t0 = clock.now();
      for (let r = 0; r < runs; r++) await session.run(feeds, fetches);
      return Number(clock.now() - t0) / 1000 / runs;
    };
    await round();
    const perRound: number[] = [];
    for (let r = 0; r < rounds; r++) perRound.push(await round());
    return median(perRound);
  } finally {
    await session.release();
    if (profileDir !== undefined) rmSync(profileDir, { recursive: true, force: true });
  }
}

/** Options of {@link measureOutputCopy}. */
export interface OutputCopyOptions {
  /** Timed rounds (each copies every output once), after one untimed round. @default 15 */
  readonly rounds?: number;
  /** Clock. @default hrtimeClock */
  readonly clock?: Clock;
}

/**
 * µs to hand outputs of `bytes` sizes to JavaScript as the binding does: per output a new (zero-filled)
 * `ArrayBuffer` of its size, filled by one copy from a source buffer; the median over `rounds` rounds of the time
 * of one round over every output.
 */
export function measureOutputCopy(bytes: readonly number[], options: OutputCopyOptions = {}): number {
  const clock = options.clock ?? hrtimeClock;
  const rounds = options.rounds ?? 15;
  const source = new Uint8Array(Math.max(0, ...bytes)).fill(1);
  const kept: ArrayBuffer[] = [];
  const round = (): number => {
    kept.length = 0;
    const t0 = clock.now();
    for (const n of bytes) {
      const out = new ArrayBuffer(n);
      new Uint8Array(out).set(source.subarray(0, n));
      kept.push(out);
    }
    return Number(clock.now() - t0) / 1000;
  };
  round();
  const perRound: number[] = [];
  for (let r = 0; r < rounds; r++) perRound.push(round());
  return median(perRound);
}
