/**
 * `load-client.json`: what one client process of a split sweep point is (`dantinox load --client i/n --start-at t`)
 * — the load's settings and their key, the client's index among n, the point, its schedule's kind, the objectives
 * and windows the merge applies to the union, its share of the concurrency — written before the first request, so
 * that `dantinox merge` can check that its folders are the clients of one point and make that point of them.
 *
 * @packageDocumentation
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { matrixKey } from '../benchmarking/matrix/matrix-manifest.js';
import type { ShardSpec } from '../benchmarking/matrix/shard.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { type LoadPoint, type LoadWindow, type Slo, shareSlots } from '../serving/index.js';
import { LOAD_CLIENT_FILE } from './output-dir.js';
import type { LoadRunInput } from './run-load.js';

/** The folder a client writes under the shared output folder: `client-<i>-of-<n>`. */
export function clientFolderName(client: Pick<ShardSpec, 'index' | 'count'>): string {
  return `client-${client.index}-of-${client.count}`;
}

const window = z.union([
  z.strictObject({ requests: z.number().int().nonnegative() }),
  z.strictObject({ ms: z.number() }),
]);
/** A bound written as a number, `null` for unbounded (JSON has no Infinity). */
const bound = z
  .number()
  .nullable()
  .transform((v) => v ?? Number.POSITIVE_INFINITY);

/** Reads a `load-client.json`. */
const LoadClientManifestSchema = z.object({
  format: z.literal('dantinox-load-client'),
  version: z.literal(1),
  key: z.string(),
  settings: z.record(z.string(), z.unknown()),
  client: z.object({
    index: z.number().int().nonnegative(),
    count: z.number().int().positive(),
    source: z.string(),
  }),
  point: z.object({ id: z.string(), concurrency: bound, rate: bound }),
  scheduled: z.boolean(),
  slots: bound,
  startAtEpochMs: z.number(),
  slo: z.object({
    ttftMs: z.exactOptional(z.number()),
    tpotMs: z.exactOptional(z.number()),
    e2eMs: z.exactOptional(z.number()),
  }),
  warmup: window.nullable(),
  cooldown: window.nullable(),
});

/** The sweep point a client sends part of. */
export interface ClientPoint extends LoadPoint {
  /** Its cell id, e.g. `concurrency=256,rate=inf`. */
  readonly id: string;
}

/** The content of a client folder's `load-client.json` (as read: unbounded values are `Infinity`). */
export interface LoadClientManifest {
  /** Format tag. */
  readonly format: 'dantinox-load-client';
  /** Format version. */
  readonly version: 1;
  /** Hash of `settings`: the clients of one point have the same key. */
  readonly key: string;
  /** The load's settings keyed by `dantinox load` flag, `--start-at` and `--clients` included (not `--client`). */
  readonly settings: Readonly<Record<string, unknown>>;
  /** This client's index among the point's clients, and where it came from. */
  readonly client: ShardSpec;
  /** The sweep point: its cell id, its concurrency and rate (`Infinity`: unbounded). */
  readonly point: ClientPoint;
  /** Whether the point's requests have planned send times (an open loop, a trace). */
  readonly scheduled: boolean;
  /** This client's share of the concurrency. */
  readonly slots: number;
  /** The point's time 0 on the wall clock, ms since the Unix epoch. */
  readonly startAtEpochMs: number;
  /** The objectives of goodput. */
  readonly slo: Slo;
  /** The warm-up window the merge applies to the union of requests. */
  readonly warmup: LoadWindow | null;
  /** The cool-down window the merge applies to the union of requests. */
  readonly cooldown: LoadWindow | null;
}

/** What a client's manifest is made from: its fields but the key, the slots and the start-time settings. */
export type LoadClientInput = Pick<
  LoadClientManifest,
  'settings' | 'client' | 'point' | 'scheduled' | 'startAtEpochMs' | 'slo'
> & {
  /** The warm-up window, if any. */
  readonly warmup: LoadWindow | undefined;
  /** The cool-down window, if any. */
  readonly cooldown: LoadWindow | undefined;
};

/** The manifest of a client: its settings' key covers the start time and the number of clients. */
export function loadClientManifest(input: LoadClientInput): LoadClientManifest {
  const settings = {
    ...input.settings,
    '--start-at': new Date(input.startAtEpochMs).toISOString(),
    '--clients': input.client.count,
  };
  return {
    format: 'dantinox-load-client',
    version: 1,
    key: matrixKey({ command: 'load', axes: [], exclude: [], benchConfig: settings, tasks: ['serving'] }),
    settings,
    client: input.client,
    point: input.point,
    scheduled: input.scheduled,
    slots: shareSlots(input.point.concurrency, input.client),
    startAtEpochMs: input.startAtEpochMs,
    slo: input.slo,
    warmup: input.warmup ?? null,
    cooldown: input.cooldown ?? null,
  };
}

/** Infinity as `null`, the way JSON can hold it. */
const finiteOrNull = (v: number): number | null => (Number.isFinite(v) ? v : null);

/**
 * Writes `dir/load-client.json`.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when it cannot be written.
 */
export function writeLoadClientManifest(dir: string, manifest: LoadClientManifest): void {
  const path = join(dir, LOAD_CLIENT_FILE);
  const json = {
    ...manifest,
    point: {
      ...manifest.point,
      concurrency: finiteOrNull(manifest.point.concurrency),
      rate: finiteOrNull(manifest.point.rate),
    },
    slots: finiteOrNull(manifest.slots),
  };
  try {
    writeFileSync(path, `${JSON.stringify(json, null, 2)}\n`);
  } catch (cause) {
    throw new DantinoxError('IO', messages.benchWriteFailed(path, "the load client's manifest", cause), {
      cause,
    });
  }
}

/** Whether `dir` holds a `load-client.json`. */
export function isLoadClientFolder(dir: string): boolean {
  return existsSync(join(dir, LOAD_CLIENT_FILE));
}

/**
 * Reads `dir/load-client.json`.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when it is missing, not JSON or not a client manifest.
 */
export function readLoadClientManifest(dir: string): LoadClientManifest {
  const path = join(dir, LOAD_CLIENT_FILE);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new DantinoxError('IO', messages.malformedFile(path, 'JSON', cause), { cause });
  }
  const parsed = LoadClientManifestSchema.safeParse(raw);
  if (!parsed.success)
    throw new DantinoxError(
      'IO',
      messages.malformedClientManifest(path, parsed.error.issues[0]?.path.join('.') ?? ''),
    );
  return parsed.data;
}

/**
 * Refuses (`INVALID_OPTION`, naming the flags) a start time that has passed, and a client load that cannot be one client of one point: with a shard or
 * the search, without `startAtEpochMs`, with a sweep of several points (`ids`), or a concurrency that leaves this
 * client no slot.
 */
export function checkLoadStart(input: LoadRunInput, ids: readonly string[]): void {
  const { client, startAtEpochMs } = input;
  if (startAtEpochMs !== undefined && startAtEpochMs < Date.now())
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.loadStartAtPast(new Date(startAtEpochMs).toISOString(), Date.now() - startAtEpochMs),
    );
  if (client === undefined) return;
  const problem =
    input.shard !== undefined
      ? messages.loadClientWithShard(client.source, input.shard.source)
      : input.findMaxGoodput !== undefined
        ? messages.loadClientSearch(client.source)
        : startAtEpochMs === undefined
          ? messages.loadClientNeedsStartAt(client.source)
          : ids.length !== 1
            ? messages.loadClientOnePoint(client.source, ids)
            : undefined;
  if (problem !== undefined) throw new DantinoxError('INVALID_OPTION', problem);
  const concurrency = input.concurrency?.[0] ?? Number.POSITIVE_INFINITY;
  if (shareSlots(concurrency, client) === 0)
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.loadClientNoSlot(concurrency, client.index, client.count),
    );
}
