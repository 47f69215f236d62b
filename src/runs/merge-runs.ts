/**
 * `planMergeRun` and `mergeRuns`: what `dantinox merge` does, as two calls — the shard folders of a matrix run
 * (`bench --shard`, a Kubernetes Indexed Job, a Slurm array) checked and the output folder claimed, then every
 * variant copied once and the combined results, charts and report.html written; shards of `dantinox load` give one
 * load run with every sweep point in sweep order, and the client folders of one split point
 * (`load --client i/n`) one point measured from the union of their requests.
 *
 * @packageDocumentation
 */
import { cpSync, existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { type Logger, silentLogger } from '../benchmarking/logger.js';
import {
  createMatrixManifest,
  isMatrixDirectory,
  writeMatrixManifest,
} from '../benchmarking/matrix/matrix-manifest.js';
import { MatrixReport, readVariantRun, variantDir } from '../benchmarking/matrix/matrix-report.js';
import { findMatrixFolders, type MergePlan, planMerge } from '../benchmarking/matrix/plan-merge.js';

export type { MergePlan, MergeSource } from '../benchmarking/matrix/plan-merge.js';

import { type Awaitable, fanOutHooks, type HookCalls } from '../benchmarking/result-sink.js';
import { RunDirectory } from '../benchmarking/run-directory.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { readRequestLines } from '../serving/index.js';
import { type ChartRegistry, createChartRegistry } from '../visualization/index.js';
import { clientFolderName, isLoadClientFolder } from './load-client-manifest.js';
import { type ClientMergePlan, mergeClientPoint, planClientMerge } from './merge-clients.js';
import { mergedLoadReport, writeMergedLoad } from './merge-load.js';
import { claimRunDir, prepareOutputDir } from './output-dir.js';
import { acquireRunLock, type RunLock } from './run-lock.js';
import { writeMatrixCharts } from './run-outputs.js';

/** Inputs of {@link planMergeRun}. */
export interface MergeRunInput {
  /** Shard folders, or the shared output folders holding `shard-<i>-of-<n>` folders (relative to `cwd`). */
  readonly inputs: readonly string[];
  /** The folder to write the merged run into (relative to `cwd`). */
  readonly out: string;
  /** Base of relative paths. @default process.cwd() */
  readonly cwd?: string;
  /** Merge what exists when shards or variants are missing or unfinished (listed in the result). @default false */
  readonly allowPartial?: boolean;
  /** Replace a run or merge already in `out`. @default false */
  readonly force?: boolean;
  /** Write charts and report.html. @default true */
  readonly charts?: boolean;
  /** The charts to draw. @default the built-ins */
  readonly registry?: ChartRegistry;
  /** Where warnings about charts go. @default silent */
  readonly logger?: Logger;
}

/**
 * What a merge combines: the shard folders of a matrix run or of a load sweep (which variant comes from which), or
 * the client folders of one split sweep point.
 */
export type MergeParts =
  | {
      /** Shards: variants (sweep points) dealt over processes. */
      readonly kind: 'shards';
      /** Which variant comes from which shard folder, and what is missing. */
      readonly plan: MergePlan;
    }
  | {
      /** Load clients: one sweep point's requests split over processes. */
      readonly kind: 'clients';
      /** The clients of the point, and what is missing. */
      readonly plan: ClientMergePlan;
    };

/** A checked merge: the folders and what comes from each, and the claimed, locked output folder. */
export interface MergeRunPlan {
  /** What is merged from which folder. */
  readonly parts: MergeParts;
  /** The output folder (absolute). */
  readonly dir: string;
  /** The output folder as the user gave it, for messages. */
  readonly shownDir: string;
  /** Write charts and report.html. */
  readonly charts: boolean;
  /** The charts to draw. */
  readonly registry: ChartRegistry;
  /** Where warnings go. */
  readonly logger: Logger;
  /**
   * The output folder's lock, taken by {@link planMergeRun} and released when {@link mergeRuns} ends: call
   * `release()` on a plan that is not merged.
   */
  readonly lock: RunLock;
}

/**
 * Checks a merge before anything is written: finds the shard (or client) folders behind `inputs`, plans which
 * folder each variant (sweep point) comes from — or checks that the clients are those of one point — refuses an
 * output folder among the sources, then locks and claims the output folder (refused when it holds a run, unless
 * `force`).
 *
 * @throws {@link dantinox!DantinoxError} `IO` for a path that holds no shard or client folder; `INVALID_INPUT` for
 * folders of different matrices (or loads with other settings, naming the first flag that differs), shards and
 * clients together, a variant (client) in two folders, or — without `allowPartial` — a missing or unfinished variant
 * (client); `INVALID_OPTION` for an `out` among the sources, or holding a run (without `force`), or locked by
 * another process.
 */
export function planMergeRun(input: MergeRunInput): MergeRunPlan {
  const cwd = input.cwd ?? process.cwd();
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(cwd, p));
  const out = abs(input.out);
  const { kind, folders } = findMergeFolders(input.inputs.map(abs));
  if (folders.some((f) => f === out || relative(f, out) === ''))
    throw new DantinoxError('INVALID_OPTION', messages.mergeIntoSource(input.out));
  const allowPartial = input.allowPartial === true;
  const parts: MergeParts =
    kind === 'clients'
      ? { kind, plan: planClientMerge(folders, { allowPartial }) }
      : { kind, plan: planMerge(folders, { allowPartial }) };
  const dir = prepareOutputDir(input.out, cwd);
  // The folder's lock first, as bench takes it: no other process writes it while it is cleared and merged into.
  const lock = acquireRunLock(dir, input.out);
  try {
    claimRunDir(input.out, cwd, input.force === true);
  } catch (error) {
    lock.release();
    throw error;
  }
  return {
    parts,
    dir,
    shownDir: input.out,
    charts: input.charts ?? true,
    registry: input.registry ?? createChartRegistry(),
    logger: input.logger ?? silentLogger,
    lock,
  };
}

/**
 * The folders behind `paths`: each path that is a shard folder (a `matrix.json`) or a load client's folder (a
 * `load-client.json`), else every immediate sub-folder that is a shard's or a client's (see `findMatrixFolders`).
 *
 * @throws {@link dantinox!DantinoxError} `IO` for a path that holds neither; `INVALID_INPUT` for shards and clients in
 * one merge.
 */
export function findMergeFolders(paths: readonly string[]): {
  readonly kind: MergeParts['kind'];
  readonly folders: string[];
} {
  const found = paths.map((path) => {
    const children =
      existsSync(path) && statSync(path).isDirectory() && !isMatrixDirectory(path)
        ? readdirSync(path, { withFileTypes: true })
            .filter((e) => e.isDirectory())
            .map((e) => join(path, e.name))
            .filter(isLoadClientFolder)
            .sort()
        : [];
    const clients = isLoadClientFolder(path) ? [path] : children;
    if (clients.length > 0) return { kind: 'clients' as const, path, folders: clients };
    try {
      return { kind: 'shards' as const, path, folders: findMatrixFolders([path]) };
    } catch (error) {
      if (error instanceof DantinoxError && error.code === 'IO')
        throw new DantinoxError('IO', messages.notAMergeFolder(path), { cause: error });
      throw error;
    }
  });
  const shard = found.find((f) => f.kind === 'shards');
  const client = found.find((f) => f.kind === 'clients');
  if (shard !== undefined && client !== undefined)
    throw new DantinoxError('INVALID_INPUT', messages.mergeShardsAndClients(shard.path, client.path));
  return { kind: client === undefined ? 'shards' : 'clients', folders: found.flatMap((f) => f.folders) };
}

/** A variant (a sweep point of load shards, a client of a split point) taken into the merged folder. */
export interface MergedVariant {
  /** Its id. */
  readonly id: string;
  /** The shard folder it came from (absolute). */
  readonly from: string;
  /** 0-based position among the variants merged. */
  readonly index: number;
  /** Number of variants being merged. */
  readonly total: number;
}

/**
 * Progress of {@link mergeRuns}. Every hook is optional and awaited; one that throws is logged and the merge goes on
 * (as a `ResultSink`).
 */
export interface MergeHooks {
  /** Name used when a failing hook is reported. */
  readonly name?: string;
  /** A line for a person, ending in a newline: a variant read from its stream because its results.json could not be read. */
  onNote?(text: string): Awaitable<void>;
  /** A variant was taken into the merged folder. */
  onVariantMerged?(variant: MergedVariant): Awaitable<void>;
}

/** Options of {@link mergeRuns}. */
export interface MergeRunsOptions {
  /** Progress hooks. */
  readonly hooks?: MergeHooks | readonly MergeHooks[];
  /**
   * Stops the merge before the next variant: the variants merged so far are written as a partial merge (their
   * `matrix.json` lists only them), without charts.
   */
  readonly signal?: AbortSignal;
}

/** What {@link mergeRuns} did. */
export interface MergeRunsResult {
  /** `completed`, or `stopped` when the signal ended it before every variant was merged. */
  readonly status: 'completed' | 'stopped';
  /**
   * `matrix` for bench shards (variant folders and the combined files), `load` for load shards (one load run),
   * `clients` for the clients of a split sweep point (a one-point load run).
   */
  readonly kind: 'matrix' | 'load' | 'clients';
  /** Ids of the variants (sweep points) merged, in canonical (sweep) order; of clients, their folder names. */
  readonly merged: readonly string[];
  /** Number of variants the matrix has; of clients, the number of the point's clients. */
  readonly total: number;
  /** The shard (client) folders merged (absolute), in the order given (by client index). */
  readonly sources: readonly string[];
  /** Files written, relative to the output folder, results first. */
  readonly files: readonly string[];
  /** Why variants are absent (one line each; with `allowPartial`), empty for a complete merge. */
  readonly missing: readonly string[];
  /** Charts that threw while rendering. */
  readonly failedCharts: readonly string[];
}

type Hooks = HookCalls<MergeHooks>;

/**
 * Writes the planned merge into its folder: every variant copied from its shard folder, `matrix.json` of the merged
 * matrix, the combined results, charts and report.html — or, for shards of `dantinox load`, one load run with
 * every sweep point in sweep order (results.*, requests.* of every point, charts, report.html), as one unsharded
 * load writes it. Releases the plan's lock. Returns what happened as data; nothing is printed but through `hooks`.
 *
 * @example
 * ```ts
 * import { mergeRuns, planMergeRun } from 'dantinox/runs';
 *
 * const plan = planMergeRun({ inputs: ['results/study'], out: 'results/study-merged' });
 * const result = await mergeRuns(plan);
 * console.log(`${result.merged.length} of ${result.total} variant(s)`, result.missing);
 * ```
 *
 * @throws {@link dantinox!DantinoxError} `IO` when a file cannot be copied or written.
 */
export async function mergeRuns(
  plan: MergeRunPlan,
  options: MergeRunsOptions = {},
): Promise<MergeRunsResult> {
  try {
    const hooks = fanOutHooks(options.hooks, plan.logger, { onNote: true, onVariantMerged: true });
    const signal = options.signal ?? new AbortController().signal;
    const { parts } = plan;
    if (parts.kind === 'clients') return await mergeLoadClients(plan, parts.plan, hooks, signal);
    return parts.plan.manifest.command === 'load'
      ? await mergeLoadShards(plan, parts.plan, hooks, signal)
      : await mergeMatrix(plan, parts.plan, hooks, signal);
  } finally {
    plan.lock.release();
  }
}

/** Calls `take` for each planned variant in turn until the signal stops it; the ids taken. */
async function eachVariant(
  shards: MergePlan,
  hooks: Hooks,
  signal: AbortSignal,
  take: (variant: MergePlan['variants'][number]) => void,
): Promise<string[]> {
  const { variants } = shards;
  const taken: string[] = [];
  for (const [index, planned] of variants.entries()) {
    if (signal.aborted) break;
    take(planned);
    taken.push(planned.variant.id);
    await hooks.onVariantMerged({ id: planned.variant.id, from: planned.dir, index, total: variants.length });
  }
  return taken;
}

/** The result of a merge of shards. */
function resultOf(
  shards: MergePlan,
  kind: MergeRunsResult['kind'],
  merged: readonly string[],
  written: { readonly files: readonly string[]; readonly failedCharts: readonly string[] },
): MergeRunsResult {
  return {
    status: merged.length < shards.variants.length ? 'stopped' : 'completed',
    kind,
    merged,
    total: shards.manifest.variants.length,
    sources: shards.sources.map((s) => s.dir),
    files: written.files,
    missing: shards.missing,
    failedCharts: written.failedCharts,
  };
}

/** Bench shards: variant folders copied, `matrix.json`, the combined results, charts and report. */
async function mergeMatrix(
  plan: MergeRunPlan,
  shards: MergePlan,
  hooks: Hooks,
  signal: AbortSignal,
): Promise<MergeRunsResult> {
  const { dir } = plan;
  const merged = await eachVariant(shards, hooks, signal, ({ variant, dir: from }) =>
    cpSync(variantDir(from, variant.id), variantDir(dir, variant.id), { recursive: true }),
  );
  const variants = shards.variants.map((v) => v.variant).filter((v) => merged.includes(v.id));
  const { manifest } = shards;
  writeMatrixManifest(
    dir,
    createMatrixManifest(
      manifest,
      manifest.variants,
      null,
      variants,
      shards.sources.map((s) => relative(dir, s.dir)),
    ),
  );
  const notes: string[] = [];
  const combined = MatrixReport.fromDirectory(dir, variants, (note) => notes.push(note));
  for (const note of notes) await hooks.onNote(`${note}\n`);
  const files = [...combined.save(dir), 'matrix.json'];
  const stopped = merged.length < shards.variants.length;
  const written =
    plan.charts && !stopped
      ? await writeMatrixCharts(
          combined,
          new RunDirectory(dir),
          { logger: plan.logger, registry: plan.registry },
          `${variants.length} variant(s) merged from ${shards.sources.length} shard folder(s)`,
        )
      : { files: [], failedCharts: [] };
  return resultOf(shards, 'matrix', merged, {
    files: [...files, ...written.files],
    failedCharts: written.failedCharts,
  });
}

/** Load shards: the sweep points (each a point folder of a shard) written as one load run. */
async function mergeLoadShards(
  plan: MergeRunPlan,
  shards: MergePlan,
  hooks: Hooks,
  signal: AbortSignal,
): Promise<MergeRunsResult> {
  const points: { report: MatrixReport['variants'][number]['report']; unfinished: boolean }[] = [];
  const lines: ReturnType<typeof readRequestLines> = [];
  const notes: string[] = [];
  const merged = await eachVariant(shards, hooks, signal, ({ variant, dir: from, state }) => {
    const run = readVariantRun(from, variant.id);
    if (run?.note !== undefined) notes.push(run.note);
    if (run !== undefined) points.push({ report: run.report, unfinished: state === 'unfinished' });
    lines.push(...readRequestLines(new RunDirectory(variantDir(from, variant.id)).requestsJsonlPath));
  });
  for (const note of notes) await hooks.onNote(`${note}\n`);
  const stopped = merged.length < shards.variants.length;
  if (points.length === 0 && stopped)
    return resultOf(shards, 'load', merged, { files: [], failedCharts: [] });
  const written = await writeMergedLoad(mergedLoadReport(points), plan.dir, {
    requests: lines,
    charts: plan.charts && !stopped,
    logger: plan.logger,
    registry: plan.registry,
  });
  return resultOf(shards, 'load', merged, written);
}

/**
 * Load clients: one sweep point measured again from the union of their requests (see `mergeClientPoint`), written
 * as a one-point load run. The signal stops it only before it starts: a point is merged whole.
 */
async function mergeLoadClients(
  plan: MergeRunPlan,
  clients: ClientMergePlan,
  hooks: Hooks,
  signal: AbortSignal,
): Promise<MergeRunsResult> {
  const names = clients.clients.map((c) => clientFolderName(c.manifest.client));
  const result = {
    kind: 'clients' as const,
    total: clients.manifest.client.count,
    sources: clients.clients.map((c) => c.dir),
    missing: clients.missing,
  };
  if (signal.aborted) return { ...result, status: 'stopped', merged: [], files: [], failedCharts: [] };
  const { report, requests } = mergeClientPoint(clients);
  for (const [index, c] of clients.clients.entries())
    await hooks.onVariantMerged({ id: names[index] as string, from: c.dir, index, total: names.length });
  const written = await writeMergedLoad(report, plan.dir, {
    requests,
    charts: plan.charts,
    logger: plan.logger,
    registry: plan.registry,
  });
  return { ...result, status: 'completed', merged: names, ...written };
}
