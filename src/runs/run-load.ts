/**
 * `runLoad`: everything `dantinox load` does — a sweep of load points (concurrency × rate) against an
 * OpenAI-compatible server, measured and written as a normal dantinox run folder: task `serving`, one cell per
 * sweep point (its metrics and their per-request samples), results.csv/json/jsonl, charts and report.html, so
 * that `compare`, `history`, `merge`, `report` and the CI gate read it like any other run.
 *
 * @packageDocumentation
 */
import { existsSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { BenchmarkConfig } from '../benchmarking/config.js';
import { collectEnvironment } from '../benchmarking/environment.js';
import { type Logger, silentLogger } from '../benchmarking/logger.js';
import {
  createMatrixManifest,
  isMatrixDirectory,
  MATRIX_MANIFEST,
  matrixKey,
  readMatrixManifest,
  writeMatrixManifest,
} from '../benchmarking/matrix/matrix-manifest.js';
import { MatrixReport, readVariantRun, runState, variantDir } from '../benchmarking/matrix/matrix-report.js';
import { type ShardSpec, shardVariants } from '../benchmarking/matrix/shard.js';
import { SuiteReport } from '../benchmarking/report.js';
import { type Awaitable, fanOutHooks } from '../benchmarking/result-sink.js';
import { RunDirectory } from '../benchmarking/run-directory.js';
import {
  type BenchmarkResult,
  type CellRecord,
  type MetaValue,
  SERVING_PHASE,
} from '../benchmarking/task.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { loadHfTokenizer } from '../models/hf/hf-tokenizer.js';
import type { Tokenizer } from '../models/tokenizer.js';
import { Gpt2Tokenizer } from '../models/tokenizers/gpt2-tokenizer.js';
import { Rng } from '../rng.js';
import {
  checkServerTokenizer,
  conversationWorkload,
  defaultWarmup,
  defaultWorkers,
  type Endpoint,
  findMaxGoodput,
  type GoodputSearchResult,
  jsonlWorkload,
  type LoadClock,
  type LoadPoint,
  type LoadPointResult,
  type LoadWindow,
  OpenAiClient,
  probeContinuousUsage,
  type RequestLine,
  readCaFile,
  requestBody,
  runLoadPoint,
  SERVING_METRICS,
  type Slo,
  type StopRule,
  servingMetrics,
  type TokenizerCheck,
  tokenWorkload,
  traceWorkload,
  validateLoadPoint,
  type Workload,
} from '../serving/index.js';
import { createChartRegistry } from '../visualization/index.js';
import { gitInfo } from './git-info.js';
import { checkLoadStart, loadClientManifest, writeLoadClientManifest } from './load-client-manifest.js';
import { type LoadMatrix, loadMatrix, loadSettings, sloText } from './load-matrix.js';
import { type LoadRunHeader, openLoadResults } from './load-results.js';
import { claimRunDir, prepareOutputDir } from './output-dir.js';
import { acquireRunLock } from './run-lock.js';
import { writeRunOutputs } from './run-outputs.js';

/** The task name of a load's row. */
export const SERVING_TASK = 'serving';

/** Prompts of an exact token count: random common words (`synthetic`) or Brown-corpus text (`brown`). */
export interface TokenWorkloadSpec {
  /** Where the prompt text comes from. */
  readonly kind: 'synthetic' | 'brown';
  /** Prompt tokens (by the served tokenizer). */
  readonly inputTokens: number;
  /** Tokens to generate. */
  readonly outputTokens: number;
  /** Tokens at the start of every prompt shared within its group (`--shared-prefix`). @default 0 */
  readonly prefixTokens?: number;
  /** Groups of prompts sharing one prefix (`--prefix-groups`). @default 1 */
  readonly prefixGroups?: number;
  /** Turns of each conversation (`--turns`), every message `inputTokens` long. @default 1 */
  readonly turns?: number;
}

/** Conversations from a ShareGPT-style JSONL file, replayed turn by turn. */
export interface ConversationsWorkloadSpec {
  /** Always `conversations`. */
  readonly kind: 'conversations';
  /** The JSONL file. */
  readonly path: string;
  /** Tokens to generate for turns whose answer the file does not give. */
  readonly outputTokens: number;
}

/** Prompts from a JSONL file. */
export interface PromptsWorkloadSpec {
  /** Always `prompts`. */
  readonly kind: 'prompts';
  /** The JSONL file. */
  readonly path: string;
  /** Tokens to generate for lines that do not say. */
  readonly outputTokens: number;
}

/** A trace replayed at its own times: an Azure CSV, or a Mooncake JSONL with prefix blocks. */
export interface TraceWorkloadSpec {
  /** Always `trace`. */
  readonly kind: 'trace';
  /** The CSV file. */
  readonly path: string;
}

/** What the requests of a load ask: a union on `kind`. */
export type WorkloadSpec =
  | TokenWorkloadSpec
  | PromptsWorkloadSpec
  | ConversationsWorkloadSpec
  | TraceWorkloadSpec;

/** Inputs of {@link runLoad}. */
export interface LoadRunInput {
  /** Base URL of the server's API, e.g. `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string;
  /** The run folder to write. */
  readonly dir: string;
  /** Base of a relative `dir` and of workload paths. @default process.cwd() */
  readonly cwd?: string;
  /** Replace the results of a run already in `dir`. @default false */
  readonly force?: boolean;
  /** Endpoint to call. @default 'completions' */
  readonly endpoint?: Endpoint;
  /** The served model's name (`model` field, and the run's model column). */
  readonly model?: string;
  /** API key sent as a bearer token; never written anywhere. */
  readonly apiKey?: string;
  /**
   * A PEM file (relative to `cwd`) of the private CA, or the self-signed certificate, that an `https` server's
   * certificate is signed by: trusted besides Node's bundled root CAs. Not a setting of the load (shards may differ).
   */
  readonly caFile?: string;
  /** Stream responses. @default true */
  readonly stream?: boolean;
  /** Per-request time limit in ms. @default 600000 */
  readonly timeoutMs?: number;
  /**
   * Worker threads that send each point's requests (1: this thread). @default one per 64 requests in flight at the
   * point, at most one per CPU (see `defaultWorkers`)
   */
  readonly workers?: number;
  /** Concurrency values of the sweep (each a point); `Infinity` for unbounded. */
  readonly concurrency?: readonly number[];
  /** Rates of the sweep in requests/s (each a point); `Infinity` for as fast as possible. */
  readonly rate?: readonly number[];
  /** Requests per sweep point. */
  readonly requests?: number;
  /** Duration of each sweep point, in ms. */
  readonly durationMs?: number;
  /**
   * Warm-up window of each point, sent before its measured requests and left out of the statistics. @default the
   * point's concurrency in requests (see `defaultWarmup`); none for a trace
   */
  readonly warmup?: LoadWindow;
  /** Cool-down window of each point, left out of the statistics. */
  readonly cooldown?: LoadWindow;
  /** Linear ramp of the rate or concurrency at the start of each point, in ms. @default 0 */
  readonly rampMs?: number;
  /** Gamma shape of the arrival gaps (1: Poisson). @default 1 */
  readonly burstiness?: number;
  /** What the requests ask. @default synthetic 256 → 128 tokens */
  readonly workload?: WorkloadSpec;
  /** Time between a conversation's answer and its next turn, in ms (`--turn-delay`). @default 0 */
  readonly turnDelayMs?: number;
  /** A `tokenizer.json` (file or folder) of the served model; the built-in GPT-2 BPE otherwise. */
  readonly tokenizer?: string;
  /** Objectives of goodput. */
  readonly slo?: Slo;
  /** Ask for exact output lengths (`ignore_eos`, `min_tokens`). @default true */
  readonly exactLengths?: boolean;
  /** Seed of prompts and arrivals. @default 0 */
  readonly seed?: number;
  /** Draw charts and report.html. @default true */
  readonly charts?: boolean;
  /** Where warnings go. @default silent */
  readonly logger?: Logger;
  /** Stops the load (requests in flight are cancelled; what was measured is written). */
  readonly signal?: AbortSignal;
  /** Progress: notes for a person and each sweep point as it is measured. */
  readonly hooks?: LoadHooks | readonly LoadHooks[];
  /** The clock of the load (a manual one in tests). */
  readonly clock?: LoadClock;
  /** Command line recorded in the environment. */
  readonly commandLine?: string;
  /**
   * Search the concurrency (or rate) where goodput peaks instead of sweeping the given points (`--slo` needed):
   * each probe is a cell; the row gets `max_goodput_rps` and `max_goodput_at`. The other axis stays at its
   * first given value (unbounded when none).
   */
  readonly findMaxGoodput?: GoodputSearchInput;
  /**
   * Measure only this shard's sweep points — point k (0-based, in sweep order) when k ≡ index (mod count), as
   * `bench --shard` deals variants — each into its own folder of `dir` (the shard's folder, e.g.
   * `<out>/shard-1-of-4`), with a `matrix.json` recording the settings, for `dantinox merge`. Not with
   * `findMaxGoodput`.
   */
  readonly shard?: ShardSpec;
  /**
   * With `shard`: continue the shard in `dir` — points completed there are kept, the others (unfinished or never
   * started) measured again; a folder of a load with other settings is refused. @default false
   */
  readonly resume?: boolean;
  /**
   * Send only this client's share of the load's one sweep point, which `count` client processes (pods, array tasks)
   * split between them: open-loop requests every count-th of the same seeded schedule, closed-loop ones those of its
   * share of the concurrency (slot s to client s mod count). Writes `dir` (the client's folder,
   * `<out>/client-<i>-of-<n>`) as a one-point load with a `load-client.json`, without charts, for `dantinox merge`,
   * which makes one point of the clients' requests. Needs `startAtEpochMs`; not with `shard` or `findMaxGoodput`.
   */
  readonly client?: ShardSpec;
  /**
   * Start the load at this wall-clock time, in ms since the Unix epoch: the first point's time 0, which the load waits
   * for (the clients of a point all get the same). Refused when it has passed.
   */
  readonly startAtEpochMs?: number;
}

/**
 * Progress of {@link runLoad}. Every hook is optional and awaited; one that throws is logged and the load goes on
 * (as a `ResultSink`).
 */
export interface LoadHooks {
  /** Name used when a failing hook is reported. */
  readonly name?: string;
  /** A line of progress for a person (the shard's points), ending in a newline. */
  onNote?(text: string): Awaitable<void>;
  /** A sweep point was measured: its cell. */
  onPoint?(cell: CellRecord): Awaitable<void>;
}

/** What {@link LoadRunInput.findMaxGoodput} searches. */
export interface GoodputSearchInput {
  /** The axis searched. @default 'concurrency' */
  readonly axis?: 'concurrency' | 'rate';
  /** Share of requests that must meet the SLOs. @default 0.9 */
  readonly target?: number;
  /** Largest value probed. @default 1024 */
  readonly max?: number;
  /** Lag (ms) past which an open-loop probe stops as over-saturated. @default max(1000, the TTFT objective) */
  readonly maxLagMs?: number;
}

/** What {@link runLoad} did. */
export interface LoadRunResult {
  /**
   * `completed` when a point had a successful request (or a shard had no point), `failed` when none had, `aborted`
   * when stopped.
   */
  readonly status: 'completed' | 'failed' | 'aborted';
  /**
   * The run's report (what results.json holds); for a shard, the report of its points (completed ones of an
   * earlier run kept by `resume` included), each point's also in its own folder.
   */
  readonly report: SuiteReport;
  /** The run folder (absolute): the shard's folder for a shard. */
  readonly dir: string;
  /** Files written, relative to the folder. */
  readonly files: readonly string[];
}

/** The sweep points of the concurrency and rate lists: their cross product (a missing list is unbounded). */
export function sweepPoints(concurrency?: readonly number[], rate?: readonly number[]): LoadPoint[] {
  const cs =
    concurrency !== undefined && concurrency.length > 0
      ? concurrency
      : rate === undefined
        ? [1]
        : [Number.POSITIVE_INFINITY];
  const rs = rate !== undefined && rate.length > 0 ? rate : [Number.POSITIVE_INFINITY];
  return cs.flatMap((c) => rs.map((r) => ({ concurrency: c, rate: r })));
}

const label = (v: number): string => (Number.isFinite(v) ? String(v) : 'inf');

/** The cell id of a sweep point: `concurrency=4,rate=inf`. */
export const pointId = (p: LoadPoint): string => `concurrency=${label(p.concurrency)},rate=${label(p.rate)}`;

/** The served model's tokenizer: a `tokenizer.json`, else GPT-2's. */
export function servingTokenizer(path: string | undefined): Tokenizer {
  return path === undefined ? new Gpt2Tokenizer() : loadHfTokenizer(path);
}

/** The workload of a spec. */
export function buildWorkload(
  spec: WorkloadSpec,
  tokenizer: Tokenizer,
  rng: Rng,
  cwd = process.cwd(),
): Workload {
  switch (spec.kind) {
    case 'synthetic':
    case 'brown':
      return tokenWorkload({
        source: spec.kind,
        inputTokens: spec.inputTokens,
        outputTokens: spec.outputTokens,
        tokenizer,
        rng,
        ...(spec.prefixTokens === undefined ? {} : { prefixTokens: spec.prefixTokens }),
        ...(spec.prefixGroups === undefined ? {} : { prefixGroups: spec.prefixGroups }),
        ...(spec.turns === undefined ? {} : { turns: spec.turns }),
      });
    case 'prompts':
      return jsonlWorkload(resolve(cwd, spec.path), spec.outputTokens, tokenizer);
    case 'conversations':
      return conversationWorkload(resolve(cwd, spec.path), spec.outputTokens, tokenizer);
    case 'trace':
      return traceWorkload(resolve(cwd, spec.path), tokenizer, rng);
  }
}

/** How a load counts tokens: the client's tokenizer and what is known of it against the server's. */
export interface TokenAccounting {
  /** The client's tokenizer, by name. */
  readonly tokenizer: string;
  /**
   * How the client's tokenizer is known to be the server's (`given with --tokenizer`, `checked against the
   * server's /tokenize`), or `undefined` when it is not.
   */
  readonly verifiedBy?: string | undefined;
}

/**
 * How a load counts tokens, from its tokenizer's name and the check of it recorded in the row's meta
 * (`tokenizer_check`): `given` (with `--tokenizer`) and `matches` (the server's `/tokenize`) confirm it.
 */
export function tokenAccounting(tokenizer: string, check: string): TokenAccounting {
  const verifiedBy =
    check === 'given'
      ? 'given with --tokenizer'
      : check === 'matches'
        ? "checked against the server's /tokenize"
        : undefined;
  return { tokenizer, verifiedBy };
}

/** The cell of one measured sweep point, with its metrics, samples and self-checks. */
export function pointCell(result: LoadPointResult, slo: Slo, accounting: TokenAccounting): CellRecord {
  const { metrics, samples } = servingMetrics(result.records, {
    slo,
    tokenizerVerified: accounting.verifiedBy !== undefined,
  });
  const p = result.point;
  const validation = validateLoadPoint(result.records, {
    point: pointId(p),
    scheduled: result.scheduled,
    rate: Number.isFinite(p.rate) ? p.rate : undefined,
    outputTps: metrics['output_tps'] ?? Number.NaN,
    tokenizer: accounting.tokenizer,
    tokenizerVerifiedBy: accounting.verifiedBy,
  });
  const allMetrics = {
    concurrency: Number.isFinite(p.concurrency) ? p.concurrency : 0,
    rate: Number.isFinite(p.rate) ? p.rate : 0,
    ...metrics,
  };
  const none = (metrics['succeeded'] ?? 0) === 0;
  return {
    task: SERVING_TASK,
    cell: pointId(p),
    phase: SERVING_PHASE,
    status: none ? 'failed' : 'completed',
    ...(none ? { error: messages.loadNoSuccess(metrics['requests'] ?? 0, result.stoppedEarly) } : {}),
    metrics: allMetrics,
    metricSamples: {
      ttft_ms: samples.ttft_ms,
      ttst_ms: samples.ttst_ms,
      ...(samples.ttfa_ms.length === 0 ? {} : { ttfa_ms: samples.ttfa_ms }),
      itl_ms: samples.itl_ms,
      tpot_ms: samples.tpot_ms,
      e2e_ms: samples.e2e_ms,
      e2e_queue_ms: samples.e2e_queue_ms,
    },
    validation,
  };
}

/** The task row of a load from its cells: the best output tokens/s and goodput over the points. */
export function servingResult(
  cells: readonly CellRecord[],
  meta: Readonly<Record<string, MetaValue>>,
): BenchmarkResult {
  const done = cells.filter((c) => c.status === 'completed');
  const best = (key: string): number =>
    Math.max(...done.map((c) => c.metrics[key] ?? Number.NaN).filter(Number.isFinite));
  if (done.length === 0)
    return {
      task: SERVING_TASK,
      status: 'failed',
      error: cells[0]?.error ?? messages.loadNoSuccess(0, undefined),
      metrics: {},
      meta,
      cells,
    };
  return {
    task: SERVING_TASK,
    status: 'completed',
    metrics: { peak_output_tps: best('output_tps'), peak_goodput_rps: best('goodput_rps') },
    meta,
    cells,
  };
}

/** Task-level descriptors of a load's row. */
const TASK_METRICS = [
  {
    key: 'peak_output_tps',
    unit: 'tok/s',
    description: 'Highest output tokens/s over the sweep points.',
    higherIsBetter: true,
  },
  {
    key: 'peak_goodput_rps',
    unit: 'req/s',
    description: 'Highest goodput over the sweep points.',
    higherIsBetter: true,
  },
  {
    key: 'max_goodput_rps',
    unit: 'req/s',
    description: 'Goodput at the value --find-max-goodput found.',
    higherIsBetter: true,
  },
  {
    key: 'max_goodput_at',
    unit: '1',
    description: 'The concurrency or rate --find-max-goodput found.',
    higherIsBetter: true,
  },
  { key: 'search_requests', unit: 'requests', description: 'Requests the --find-max-goodput search sent.' },
] as const;

/**
 * Refuses to write a shard into `dir` when it holds a run (unless `force`); with `resume`, accepts a folder of
 * the same load's shard (same settings and sweep) and refuses any other run.
 */
function claimShardFolder(input: LoadRunInput, dir: string, cwd: string, key: string): void {
  if (input.resume !== true) claimRunDir(input.dir, cwd, input.force === true);
  else if (!isMatrixDirectory(dir)) claimRunDir(input.dir, cwd, false);
  else if (readMatrixManifest(dir).key !== key)
    throw new DantinoxError('INVALID_OPTION', messages.resumeMismatch(input.dir));
}

/** A measured sweep point: its cell and its requests' lines. */
interface MeasuredPoint {
  /** The point's cell. */
  readonly cell: CellRecord;
  /** Its requests, as requests.jsonl lines. */
  readonly lines: readonly RequestLine[];
}

/** The requests.jsonl lines of a measured sweep point. */
function requestLines(point: string, result: LoadPointResult): RequestLine[] {
  return result.records.map((r) => ({ ...r, point, originEpochMs: result.originEpochMs }));
}

/** What {@link measureShard} writes, and where. */
interface ShardRun {
  readonly input: LoadRunInput;
  readonly shard: ShardSpec;
  readonly matrix: LoadMatrix;
  /** The shard's folder (absolute, claimed). */
  readonly dir: string;
  readonly header: LoadRunHeader;
  /** The meta of every point's row. */
  readonly meta: Readonly<Record<string, MetaValue>>;
  readonly logger: Logger;
}

/**
 * Measures the shard's sweep points (`measurePoint(k)` measures point k of the sweep), each into its own folder of
 * the shard's, after `matrix.json`; with `resume`, keeps the points completed there. A point the signal cut short
 * gets `interrupted` in its row (unfinished: `merge` refuses it without `--allow-partial`) and ends the shard.
 */
async function measureShard(
  run: ShardRun,
  measurePoint: (k: number) => Promise<MeasuredPoint>,
): Promise<LoadRunResult> {
  const { input, matrix, dir, header, meta } = run;
  const stopped = (): boolean => input.signal?.aborted === true;
  const assigned = shardVariants(matrix.variants, run.shard);
  writeMatrixManifest(dir, createMatrixManifest(matrix.definition, matrix.variants, run.shard, assigned));
  const cells: CellRecord[] = [];
  let aborted = false;
  let durationMs = 0;
  for (const variant of assigned) {
    const folder = variantDir(dir, variant.id);
    if (input.resume === true && runState(folder) === 'completed') {
      const earlier = readVariantRun(dir, variant.id)?.report;
      cells.push(...(earlier?.results[0]?.cells ?? []));
      durationMs += (earlier?.totalTimeS ?? 0) * 1000;
      continue;
    }
    if (stopped()) {
      aborted = true;
      break;
    }
    rmSync(folder, { recursive: true, force: true }); // an unfinished earlier attempt (--resume)
    const t0 = performance.now();
    const results = await openLoadResults(new RunDirectory(folder), header, SERVING_TASK, run.logger);
    const { cell, lines } = await measurePoint(variant.index);
    results.requests(lines);
    await results.cell(cell);
    // Read again after the await: the signal may have fired while the point ran.
    const cut = stopped();
    const row = servingResult([cell], cut ? { ...meta, interrupted: messages.loadPointInterrupted() } : meta);
    const elapsedMs = performance.now() - t0;
    await results.end(row, elapsedMs, cut);
    cells.push(cell);
    durationMs += elapsedMs;
    if (cut) {
      aborted = true;
      break;
    }
  }
  const saved = MatrixReport.fromDirectory(dir, assigned).save(dir);
  const row = servingResult(cells, meta);
  return {
    status: aborted ? 'aborted' : cells.length > 0 && row.status === 'failed' ? 'failed' : 'completed',
    report: new SuiteReport({ results: [{ ...row, durationMs }], ...header, totalTimeS: durationMs / 1000 }),
    dir,
    files: [
      ...saved,
      MATRIX_MANIFEST,
      ...assigned.filter((v) => existsSync(variantDir(dir, v.id))).map((v) => `${v.id}/`),
    ],
  };
}

/** What {@link probeServer} learnt of the server before the load. */
interface ServerProbe {
  /** How tokens are counted (the client's tokenizer, and how it is known to be the server's). */
  readonly accounting: TokenAccounting;
  /** The tokenizer check, as recorded in the row's meta. */
  readonly tokenizerCheck: 'given' | 'matches' | 'differs' | 'unavailable';
  /** The server's count of a text's tokens, when its tokenizer differs from the client's. */
  readonly serverCount?: ((text: string) => Promise<number | undefined>) | undefined;
  /** Whether the server streams its running usage on every chunk when asked. */
  readonly continuousUsage: boolean;
}

/**
 * Asks the server, before the load, what token accounting can rest on: whether its `/tokenize` agrees with the
 * client's tokenizer (when none was given with `--tokenizer`), and whether it streams a running `usage` on every
 * chunk (one short request, not measured).
 */
async function probeServer(
  input: LoadRunInput,
  client: OpenAiClient,
  tokenizer: Tokenizer,
  workload: Workload,
  logger: Logger,
): Promise<ServerProbe> {
  let check: TokenizerCheck | undefined;
  if (input.tokenizer === undefined) {
    check = await checkServerTokenizer(client, tokenizer, input.model);
    if (check.status === 'differs')
      logger.log('warn', messages.loadTokenizerDiffers(tokenizer.name, check.client, check.server));
  }
  const continuousUsage =
    (input.stream ?? true) &&
    (await probeContinuousUsage(
      client,
      requestBody(workload.item(0), client.endpoint, {
        model: input.model,
        stream: true,
        exactLengths: input.exactLengths ?? true,
      }),
      input.signal,
    ));
  const tokenizerCheck = check?.status ?? 'given';
  return {
    accounting: tokenAccounting(tokenizer.name, tokenizerCheck),
    tokenizerCheck,
    serverCount: check?.status === 'differs' ? check.count : undefined,
    continuousUsage,
  };
}

/** A point's warm-up: the one asked, else {@link defaultWarmup}'s; none added to a trace, replayed as recorded. */
function pointWarmup(
  input: Pick<LoadRunInput, 'warmup'>,
  workload: Pick<Workload, 'timed'>,
  point: LoadPoint,
): LoadWindow | undefined {
  return input.warmup ?? (workload.timed ? undefined : defaultWarmup(point));
}

/**
 * Runs a load sweep against a server and writes its run folder. With `shard`, measures only that shard's sweep
 * points, each into its own folder of `dir` (the shard's folder), with a `matrix.json` recording the load's
 * settings and the combined results of its points at the top, for `dantinox merge`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for a bad URL, no end (`requests` / `durationMs`), a folder
 *   holding a run (without `force`) or locked, `shard` with `findMaxGoodput`, `resume` without `shard` or into a
 *   folder of another load, an unreadable `caFile`, an `https` server whose certificate is not trusted; `IO` when
 *   the folder cannot be written; `INVALID_INPUT` for a bad prompts or trace file.
 */
export async function runLoad(input: LoadRunInput): Promise<LoadRunResult> {
  const cwd = input.cwd ?? process.cwd();
  const logger = input.logger ?? silentLogger;
  const hooks = fanOutHooks(input.hooks, logger, { onNote: true, onPoint: true });
  if (input.requests === undefined && input.durationMs === undefined && input.workload?.kind !== 'trace')
    throw new DantinoxError('INVALID_OPTION', messages.loadNeedsBound());
  if (input.findMaxGoodput !== undefined && (input.slo === undefined || Object.keys(input.slo).length === 0))
    throw new DantinoxError('INVALID_OPTION', messages.loadSearchNeedsSlo());
  if (input.shard !== undefined && input.findMaxGoodput !== undefined)
    throw new DantinoxError('INVALID_OPTION', messages.loadShardedSearch(input.shard.source));
  if (input.resume === true && input.shard === undefined)
    throw new DantinoxError('INVALID_OPTION', messages.loadResumeWithoutShard());
  if (input.workers !== undefined && !(Number.isInteger(input.workers) && input.workers >= 1))
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.invalidNumberOption('--workers', input.workers, 'a whole number ≥ 1'),
    );
  const endpoint = input.endpoint ?? 'completions';
  const points = sweepPoints(input.concurrency, input.rate);
  checkLoadStart(input, points.map(pointId));
  const { shard } = input;
  if (shard !== undefined)
    await hooks.onNote(
      `Shard ${shard.index}/${shard.count} (from ${shard.source}): ${
        shardVariants(
          points.map((_, index) => ({ index })),
          shard,
        ).length
      } of ${points.length} sweep point(s).\n`,
    );
  const tokenizer = servingTokenizer(
    input.tokenizer === undefined ? undefined : resolve(cwd, input.tokenizer),
  );
  const seed = input.seed ?? 0;
  const [workloadRng, arrivalRng] = new Rng(seed).split(2) as [Rng, Rng];
  const workload = buildWorkload(
    input.workload ?? { kind: 'synthetic', inputTokens: 256, outputTokens: 128 },
    tokenizer,
    workloadRng,
    cwd,
  );
  // One kept-alive socket per request in flight (sockets open on demand): the largest concurrency of the sweep,
  // the search's ceiling, or 256 for an unbounded open loop.
  const maxSockets =
    input.findMaxGoodput !== undefined
      ? (input.findMaxGoodput.max ?? 1024)
      : Math.max(1, ...points.map((p) => (Number.isFinite(p.concurrency) ? p.concurrency : 256)));
  const ca = input.caFile === undefined ? undefined : readCaFile(resolve(cwd, input.caFile));
  const client = new OpenAiClient({
    baseUrl: input.baseUrl,
    endpoint,
    apiKey: input.apiKey,
    maxSockets,
    ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
    ...(input.clock === undefined ? {} : { now: input.clock.now }),
    ...(ca === undefined ? {} : { ca }),
  });
  try {
    // An untrusted certificate stops the load here, in one line, before any folder is written.
    await client.checkCertificate();
  } catch (error) {
    client.close();
    throw error;
  }
  const matrix =
    input.shard === undefined
      ? undefined
      : loadMatrix(points, loadSettings(input, client.url), pointId, SERVING_TASK);
  const dir = prepareOutputDir(input.dir, cwd);
  const lock = acquireRunLock(dir, input.dir);
  try {
    if (matrix === undefined) claimRunDir(input.dir, cwd, input.force === true);
    else claimShardFolder(input, dir, cwd, matrixKey(matrix.definition));
    if (input.client !== undefined && input.startAtEpochMs !== undefined) {
      const point = points[0] as LoadPoint;
      writeLoadClientManifest(
        dir,
        loadClientManifest({
          settings: loadSettings(input, client.url),
          client: input.client,
          point: { ...point, id: pointId(point) },
          scheduled: workload.timed || Number.isFinite(point.rate),
          startAtEpochMs: input.startAtEpochMs,
          slo: input.slo ?? {},
          warmup: pointWarmup(input, workload, point),
          cooldown: input.cooldown,
        }),
      );
    }
    const startedAt = new Date();
    const header: LoadRunHeader = {
      runId: `load-${startedAt.toISOString().replace(/[:.]/g, '-')}`,
      modelMeta: { model: input.model ?? 'served-model', engine: `openai-http (${endpoint})` },
      environment: {
        ...collectEnvironment({
          config: BenchmarkConfig.parse({ seed }),
          startedAt,
          ...(input.commandLine === undefined ? {} : { commandLine: input.commandLine }),
          git: gitInfo(cwd),
        }),
        engine: `OpenAI-compatible server at ${client.url.origin}`,
        threads: null,
      },
      descriptors: [...SERVING_METRICS, ...TASK_METRICS],
    };
    const slo = input.slo ?? {};
    const stream = input.stream ?? true;
    const laneClient = {
      baseUrl: input.baseUrl,
      endpoint,
      apiKey: input.apiKey,
      ca,
      timeoutMs: input.timeoutMs ?? 600_000,
    };
    const probed = await probeServer(input, client, tokenizer, workload, logger);
    const meta: Record<string, MetaValue> = {
      base_url: client.url.origin + client.url.pathname,
      endpoint,
      workload: workload.name,
      stream,
      slo: sloText(slo),
      tokenizer: tokenizer.name,
      tokenizer_check: probed.tokenizerCheck,
      continuous_usage: probed.continuousUsage,
      ...(input.client === undefined ? {} : { client: `${input.client.index}/${input.client.count}` }),
    };
    let firstItem = 0;
    // Point k of the sweep plans its arrivals from the k-th generator split off the seed's, in a shard as in the
    // whole sweep; the probes of a search each take the next one.
    const pointRngs = input.findMaxGoodput === undefined ? arrivalRng.split(points.length) : [];
    // The first point measured starts at --start-at; the others follow it.
    let startAtEpochMs = input.startAtEpochMs;
    const measure = async (
      point: LoadPoint,
      rng: Rng,
      search?: { maxLagMs?: number; stopWhen: StopRule },
    ): Promise<MeasuredPoint & { result: LoadPointResult }> => {
      const result = await runLoadPoint({
        client,
        point,
        workload,
        tokenizer,
        rng,
        model: input.model,
        stream,
        exactLengths: input.exactLengths ?? true,
        continuousUsage: probed.continuousUsage,
        serverCount: probed.serverCount,
        turnDelayMs: input.turnDelayMs,
        workers: input.workers ?? defaultWorkers(point.concurrency, availableParallelism()),
        laneClient,
        requests: input.requests,
        durationMs: input.durationMs,
        warmup: pointWarmup(input, workload, point),
        cooldown: input.cooldown,
        rampMs: input.rampMs,
        burstiness: input.burstiness,
        signal: input.signal,
        firstItem,
        share: input.client,
        startAtEpochMs,
        maxLagMs: search?.maxLagMs,
        stopWhen: search?.stopWhen,
        ...(input.clock === undefined ? {} : { clock: input.clock }),
      });
      firstItem += result.records.length;
      startAtEpochMs = undefined;
      const cell = pointCell(result, slo, probed.accounting);
      await hooks.onPoint(cell);
      return { result, cell, lines: requestLines(cell.cell, result) };
    };
    if (matrix !== undefined && input.shard !== undefined)
      return await measureShard({ input, shard: input.shard, matrix, dir, header, meta, logger }, (k) =>
        measure(points[k] as LoadPoint, pointRngs[k] as Rng),
      );
    const t0 = performance.now();
    const runDir = new RunDirectory(dir);
    const results = await openLoadResults(runDir, header, SERVING_TASK, logger);
    const cells: CellRecord[] = [];
    const measured = async ({ cell, lines }: MeasuredPoint): Promise<void> => {
      cells.push(cell);
      results.requests(lines);
      await results.cell(cell);
    };
    let search: GoodputSearchResult | undefined;
    if (input.findMaxGoodput !== undefined) {
      const { axis = 'concurrency', target = 0.9, max = 1024 } = input.findMaxGoodput;
      // Open-loop probes stop when requests go out later than planned by more than the TTFT objective (or 1 s).
      const maxLagMs = input.findMaxGoodput.maxLagMs ?? Math.max(1000, slo.ttftMs ?? 0);
      const fixedRate = input.rate?.[0] ?? Number.POSITIVE_INFINITY;
      const fixedConcurrency = input.concurrency?.[0] ?? Number.POSITIVE_INFINITY;
      const probe = async (
        point: LoadPoint,
        options: { maxLagMs?: number; stopWhen: StopRule },
      ): Promise<LoadPointResult> => {
        const measuredPoint = await measure(point, arrivalRng.split(1)[0] as Rng, options);
        await measured(measuredPoint);
        return measuredPoint.result;
      };
      search = await findMaxGoodput({
        axis,
        slo,
        target,
        max,
        probe: (v, stopWhen) =>
          axis === 'concurrency'
            ? probe({ concurrency: v, rate: fixedRate }, { stopWhen })
            : probe({ concurrency: fixedConcurrency, rate: v }, { maxLagMs, stopWhen }),
      });
    } else {
      for (const [k, point] of points.entries()) {
        if (input.signal?.aborted === true) break;
        await measured(await measure(point, pointRngs[k] as Rng));
      }
    }
    const aborted = input.signal?.aborted === true;
    if (search !== undefined) {
      meta['search'] = input.findMaxGoodput?.axis ?? 'concurrency';
      meta['search_target'] = input.findMaxGoodput?.target ?? 0.9;
      meta['search_best'] = search.best === undefined ? null : search.best.value;
    }
    const found = servingResult(cells, meta);
    const result: BenchmarkResult =
      search?.best === undefined || found.status !== 'completed'
        ? found
        : {
            ...found,
            metrics: {
              ...found.metrics,
              max_goodput_rps: search.best.goodputRps,
              max_goodput_at: search.best.value,
              search_requests: search.requests,
            },
          };
    const report = await results.end(result, performance.now() - t0, aborted);
    const written = await writeRunOutputs(report, runDir, {
      // A client's requests are part of its point's: the merge of the clients draws the charts.
      charts: input.client === undefined && (input.charts ?? true),
      command: 'load',
      logger,
      registry: createChartRegistry(),
    });
    return {
      status: aborted ? 'aborted' : result.status === 'failed' ? 'failed' : 'completed',
      report,
      dir,
      files: written.files,
    };
  } finally {
    client.close();
    lock.release();
  }
}
