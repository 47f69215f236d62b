/**
 * The sweep points of a load as a matrix: one variant per point, in sweep order, and the load's settings as the
 * matrix definition — so `dantinox load --shard i/n` deals the points out exactly as `bench --shard` deals
 * variants, and `dantinox merge` checks and combines the shards with the bench matrix's machinery.
 *
 * @packageDocumentation
 */
import type { MatrixVariant } from '../benchmarking/matrix/expand-matrix.js';
import type { MatrixDefinition } from '../benchmarking/matrix/matrix-manifest.js';
import type { LoadPoint, Slo } from '../serving/index.js';
import type { LoadRunInput } from './run-load.js';

/** The load's matrix: its definition (what `merge` and `--resume` compare) and one variant per sweep point. */
export interface LoadMatrix {
  /** Command `load`, no axes, the settings keyed by flag, task `serving`. */
  readonly definition: MatrixDefinition;
  /** The sweep points as variants (id: the point's cell id), in sweep order. */
  readonly variants: readonly MatrixVariant[];
}

/** A sweep list as written to `matrix.json`: numbers, `inf` for unbounded; `null` when the flag was not given. */
const sweepList = (values: readonly number[] | undefined): (number | string)[] | null =>
  values === undefined ? null : values.map((v) => (Number.isFinite(v) ? v : 'inf'));

/** `ttft=500ms,tpot=50ms` (the objectives given), `''` for none. */
export function sloText(slo: Slo): string {
  return Object.entries({ ttft: slo.ttftMs, tpot: slo.tpotMs, e2e: slo.e2eMs })
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}ms`)
    .join(',');
}

/**
 * What makes two loads measure the same points the same way, keyed by the `dantinox load` flag that sets it
 * (`base-url` for the argument): the server (its URL as requests reach it), the sweep lists, the load shape, the
 * end of each point, the workload, the objectives and the seed. Not the output, charts or API key.
 */
export function loadSettings(input: LoadRunInput, requestUrl: URL): Record<string, unknown> {
  const w = input.workload ?? { kind: 'synthetic', inputTokens: 256, outputTokens: 128 };
  return {
    'base-url': `${requestUrl.origin}${requestUrl.pathname}${requestUrl.search}`,
    '--endpoint': input.endpoint ?? 'completions',
    '--model': input.model ?? null,
    '--no-stream': input.stream === false,
    '--timeout': input.timeoutMs ?? 600_000,
    '--concurrency': sweepList(input.concurrency),
    '--rate': sweepList(input.rate),
    '--burstiness': input.burstiness ?? 1,
    '--ramp': input.rampMs ?? 0,
    '--duration': input.durationMs ?? null,
    '--requests': input.requests ?? null,
    '--warmup': input.warmup ?? null,
    '--cooldown': input.cooldown ?? null,
    '--prompts':
      w.kind === 'trace' || w.kind === 'conversations' ? null : w.kind === 'prompts' ? w.path : w.kind,
    '--trace': w.kind === 'trace' ? w.path : null,
    '--conversations': w.kind === 'conversations' ? w.path : null,
    '--input-tokens': w.kind === 'synthetic' || w.kind === 'brown' ? w.inputTokens : null,
    '--shared-prefix': w.kind === 'synthetic' || w.kind === 'brown' ? (w.prefixTokens ?? 0) : null,
    '--prefix-groups': w.kind === 'synthetic' || w.kind === 'brown' ? (w.prefixGroups ?? 1) : null,
    '--turns': w.kind === 'synthetic' || w.kind === 'brown' ? (w.turns ?? 1) : null,
    '--turn-delay': input.turnDelayMs ?? 0,
    '--output-tokens': w.kind === 'trace' ? null : w.outputTokens,
    '--tokenizer': input.tokenizer ?? null,
    '--slo': sloText(input.slo ?? {}),
    '--no-ignore-eos': input.exactLengths === false,
    '--seed': input.seed ?? 0,
  };
}

/** The matrix of a load: its sweep points (each with the id `pointId` gives it) under its settings. */
export function loadMatrix(
  points: readonly LoadPoint[],
  settings: Readonly<Record<string, unknown>>,
  pointId: (point: LoadPoint) => string,
  task: string,
): LoadMatrix {
  return {
    definition: { command: 'load', axes: [], exclude: [], benchConfig: settings, tasks: [task] },
    variants: points.map((point, index) => ({ id: pointId(point), index, axes: {} })),
  };
}
