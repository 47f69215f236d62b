/**
 * One sweep point from the folders of its client processes (`dantinox load --client i/n --start-at t`): the clients
 * checked to be those of one point (same load, same start, each index once), their requests put on one clock — the
 * point's start on the wall clock plus each request's times — and the point measured again from the union, as one
 * process sending all of them would have: percentiles of the union's requests, throughput over the union's span,
 * warm-up and cool-down counted on the union, and the point's self-checks run on the union.
 *
 * @packageDocumentation
 */
import { runState, type VariantState } from '../benchmarking/matrix/matrix-report.js';
import { settingsDifference } from '../benchmarking/matrix/plan-merge.js';
import { SuiteReport } from '../benchmarking/report.js';
import { RunDirectory } from '../benchmarking/run-directory.js';
import type { MetaValue } from '../benchmarking/task.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { CLIENT_FLAGS } from '../scheduler-index.js';
import { inWindow, type RequestLine, readRequestLines } from '../serving/index.js';
import { type LoadClientManifest, readLoadClientManifest } from './load-client-manifest.js';
import { pointCell, SERVING_TASK, servingResult, tokenAccounting } from './run-load.js';

/** A client folder taking part in a merge. */
export interface ClientSource {
  /** The folder. */
  readonly dir: string;
  /** Its manifest. */
  readonly manifest: LoadClientManifest;
  /** How far its run got: `completed`, `failed` (no request succeeded), or `unfinished` (with `allowPartial`). */
  readonly state: VariantState;
}

/** Which client folders make the point, and what is missing. */
export interface ClientMergePlan {
  /** The manifest the clients share (the first one's). */
  readonly manifest: LoadClientManifest;
  /** The clients with results, by index. */
  readonly clients: readonly ClientSource[];
  /** Why clients are absent or cut short (one line each; with `allowPartial`); empty for a complete merge. */
  readonly missing: readonly string[];
}

/**
 * Plans the merge of client folders: they must be clients of one load (same settings, `--start-at` and number of
 * clients: the first setting that differs is named), each index once; missing or unfinished clients are errors
 * unless `allowPartial`, in which case they are listed in `missing`.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for clients of different loads, an index in two folders, or
 * (without `allowPartial`) a missing or unfinished client; `IO` for a folder without a readable `load-client.json`.
 */
export function planClientMerge(
  dirs: readonly string[],
  options: { readonly allowPartial: boolean },
): ClientMergePlan {
  const sources = dirs.map((dir) => ({ dir, manifest: readLoadClientManifest(dir) }));
  const first = sources[0];
  if (first === undefined) throw new DantinoxError('INVALID_INPUT', messages.notAMergeFolder('(none)'));
  for (const s of sources.slice(1)) {
    if (s.manifest.key === first.manifest.key) continue;
    const d = settingsDifference(first.manifest.settings, s.manifest.settings);
    throw new DantinoxError(
      'INVALID_INPUT',
      d === undefined
        ? messages.matrixMismatch(first.dir, s.dir)
        : messages.loadShardsDiffer(first.dir, s.dir, d.flag, d.there, d.here, CLIENT_FLAGS),
    );
  }
  const byIndex = new Map<number, string>();
  for (const s of sources) {
    const other = byIndex.get(s.manifest.client.index);
    if (other !== undefined)
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.duplicateClient(s.manifest.client.index, [other, s.dir]),
      );
    byIndex.set(s.manifest.client.index, s.dir);
  }
  const { count } = first.manifest.client;
  const absent = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  const missing = absent.length === 0 ? [] : [messages.clientsMissing(absent, count)];
  const clients: ClientSource[] = [];
  for (const s of [...sources].sort((a, b) => a.manifest.client.index - b.manifest.client.index)) {
    const state = runState(s.dir);
    if (state === 'missing' || state === 'unfinished') missing.push(messages.clientNotFinished(s.dir, state));
    if (state !== 'missing') clients.push({ ...s, state });
  }
  if (missing.length > 0 && !options.allowPartial)
    throw new DantinoxError('INVALID_INPUT', messages.mergeIncomplete(missing, CLIENT_FLAGS));
  return { manifest: first.manifest, clients, missing };
}

/** The merged point: its load run's report and the union's requests (as requests.jsonl lines). */
export interface MergedClientPoint {
  /** One `serving` row with the point measured from the union, under the first client's header. */
  readonly report: SuiteReport;
  /** The union's requests on the point's clock, by index. */
  readonly requests: readonly RequestLine[];
}

/**
 * The requests of every client on one clock — time 0 the earliest client's point start on the wall clock (their
 * `--start-at`, the same for all), each request's planned and send times moved by its client's start — by index,
 * with the warm-up and cool-down windows applied to the union as one process applies them (a count on the point's
 * request indices, a time from its start and back from its last send).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when two clients hold the same request of the point.
 */
export function unionOfRequests(
  clients: readonly { readonly dir: string; readonly requests: readonly RequestLine[] }[],
  windows: Pick<LoadClientManifest, 'warmup' | 'cooldown'>,
): { readonly records: RequestLine[]; readonly originEpochMs: number } {
  const all = clients.flatMap((c) => c.requests.map((r) => ({ r, dir: c.dir })));
  const originEpochMs = Math.min(...all.map(({ r }) => r.originEpochMs));
  const owner = new Map<number, string>();
  for (const { r, dir } of all) {
    const other = owner.get(r.index);
    if (other !== undefined)
      throw new DantinoxError('INVALID_INPUT', messages.loadClientsOverlap(r.index, other, dir));
    owner.set(r.index, dir);
  }
  const moved = all
    .map(({ r }): RequestLine => {
      const shift = r.originEpochMs - originEpochMs;
      return { ...r, plannedMs: r.plannedMs + shift, sentMs: r.sentMs + shift, originEpochMs };
    })
    .sort((a, b) => a.index - b.index);
  const count = Math.max(0, ...moved.map((r) => r.index + 1));
  const lastSent = Math.max(0, ...moved.map((r) => r.sentMs));
  const records = moved.map((r) => ({
    ...r,
    measured: inWindow(
      r.index,
      count,
      r.sentMs,
      lastSent,
      windows.warmup ?? undefined,
      windows.cooldown ?? undefined,
    ),
  }));
  return { records, originEpochMs: all.length === 0 ? Number.NaN : originEpochMs };
}

/**
 * Measures the planned point again from the union of its clients' requests (see {@link unionOfRequests}): its
 * metrics, samples and self-checks by `servingMetrics` and `validateLoadPoint` as for one process, its row's meta
 * the first client's with `clients` (and `interrupted` when clients were missing or cut short), its run id from the
 * point's start.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when two clients hold the same request, or no client has a
 * run; `IO` when a client's files cannot be read.
 */
export function mergeClientPoint(plan: ClientMergePlan): MergedClientPoint {
  const { manifest } = plan;
  const runs = plan.clients.map((c) => ({
    dir: c.dir,
    report: RunDirectory.read(c.dir).report,
    requests: readRequestLines(new RunDirectory(c.dir).requestsJsonlPath),
  }));
  const first = runs[0]?.report;
  const row = first?.results.find((r) => r.task === SERVING_TASK);
  if (first === undefined || row === undefined)
    throw new DantinoxError('INVALID_INPUT', messages.loadMergeNothing());
  const { records, originEpochMs } = unionOfRequests(runs, manifest);
  const text = (key: string): string => String(row.meta?.[key] ?? '');
  const cell = pointCell(
    {
      point: manifest.point,
      records,
      wallMs: Math.max(0, ...records.map((r) => r.sentMs + r.e2eMs)),
      scheduled: manifest.scheduled,
      originEpochMs,
    },
    manifest.slo,
    tokenAccounting(text('tokenizer'), text('tokenizer_check')),
  );
  const { client: _client, interrupted: _interrupted, ...meta } = row.meta ?? {};
  const cut = manifest.client.count - plan.clients.filter((c) => c.state !== 'unfinished').length;
  const merged: Record<string, MetaValue> = {
    ...meta,
    clients: manifest.client.count,
    ...(cut === 0 ? {} : { interrupted: messages.loadClientsInterrupted(cut) }),
  };
  const durationMs =
    Math.max(0, ...records.map((r) => r.sentMs + r.e2eMs)) - Math.min(0, ...records.map((r) => r.plannedMs));
  const report = new SuiteReport({
    results: [{ ...servingResult([cell], merged), durationMs }],
    modelMeta: first.modelMeta,
    totalTimeS: durationMs / 1000,
    ...(first.environment === undefined ? {} : { environment: first.environment }),
    runId: `load-${new Date(manifest.startAtEpochMs).toISOString().replace(/[:.]/g, '-')}`,
    descriptors: first.descriptors,
  });
  return { report, requests: records.map((r) => ({ ...r, point: manifest.point.id })) };
}
