/**
 * `BenchmarkConfig`: what a suite measures and how long it measures it. The seed's fields and defaults plus
 * time-based warm-up, generation length, diffusion steps, sliding-window perplexity, threads and a per-cell time
 * budget. Accepts camelCase and the seed's snake_case; validation lists every problem at once.
 *
 * @packageDocumentation
 */
import { writeFileSync } from 'node:fs';
import { dirname, extname } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { z } from 'zod';
import { DantinoxError, ValidationError, type ValidationIssue } from '../errors.js';
import { makeDirectory } from '../make-directory.js';
import { excerpt, messages } from '../messages.js';
import { readTextFile, removePartial } from '../text-file.js';
import { parseYamlText } from '../yaml-text.js';

/** A validated benchmark configuration; every field is present. */
export interface BenchmarkConfig {
  /** Sequence lengths of the throughput sweep (batch 1); `[0]` is the batch sweep's length; the latency prompt is the last one ≤ `maxContext`. @default [64, 128, 256, 512] */
  readonly seqLens: readonly number[];
  /** Batch sizes of the throughput sweep at `seqLens[0]`. @default [1, 4, 16, 64, 128] */
  readonly batchSizes: readonly number[];
  /**
   * Context depths d of the latency task's depth sweep: at each, a prefill of the prompt and decode steps on a KV
   * cache already holding d tokens (filled untimed, never counted as warm-up); depths that do not fit the model's
   * `maxContext` are skipped with a note. Empty: no sweep. @default []
   */
  readonly depths: readonly number[];
  /** Warm-up calls per cell (not timed). @default 5 */
  readonly nWarmup: number;
  /** Timed calls per cell. @default 20 */
  readonly nMeasure: number;
  /** Warm-up also lasts at least this many milliseconds per cell (after `nWarmup` calls). @default 1000 */
  readonly minWarmupMs: number;
  /** Timed calls continue until at least this many milliseconds have been measured (after `nMeasure` calls). @default 0 */
  readonly minMeasureMs: number;
  /**
   * Cap on a cell's timed phase in milliseconds (its timed calls and their untimed preparations): once it has lasted
   * this long, timing ends after at least {@link MIN_TIMED_CALLS} calls (`nMeasure` when fewer), even before
   * `nMeasure` — slow cells get fewer calls, fast ones keep `nMeasure`. 0: no cap. `dantinox bench`'s default run
   * sets 3000. @default 0
   */
  readonly maxMeasureMs: number;
  /** Perplexity: number of random-window batches (random mode) or the cap on windows / `evalBatchSize` (stride mode). @default 50 */
  readonly evalBatches: number;
  /** Perplexity: tokens scored per window (the model sees `evalSeqLen + 1` tokens for ar). @default 256 */
  readonly evalSeqLen: number;
  /** Perplexity: windows per batch. @default 4 */
  readonly evalBatchSize: number;
  /** Perplexity: when set, sliding windows advance by this many tokens and every token is scored once. @default null */
  readonly evalStride: number | null;
  /**
   * Coverage of the quality tasks' bootstrap confidence intervals (kld: over scored windows; choice: over items), in
   * (0, 1). @default 0.95
   */
  readonly ciLevel: number;
  /** Bootstrap resamples of those intervals. @default 1000 */
  readonly ciResamples: number;
  /** Choice task: multiple-choice items, each a held-out sentence's context and its continuation. @default 500 */
  readonly choiceItems: number;
  /** Choice task: distractor continuations per item (k; chance is 1 / (k + 1)). @default 3 */
  readonly choiceDistractors: number;
  /** Tokens generated for TTFT/TPOT (ar) and the generation length (diffusion). @default 32 */
  readonly genTokens: number;
  /** Denoising passes of a diffusion generation. @default 32 */
  readonly diffusionSteps: number;
  /** Intra-op threads requested from the engine (recorded in the report); `null` = engine default. @default null */
  readonly threads: number | null;
  /**
   * Time budget of one cell in milliseconds; a cell predicted or found to exceed it is skipped or failed, and a
   * task that neither returns nor finishes a cell for twice this is given up as hung (a failed row). @default 60000
   */
  readonly maxCellMs: number;
  /** Seed of the suite's random generator (inputs, windows, sampling). @default 0 */
  readonly seed: number;
  /** Directory of the JSONL stream and of reports saved without an explicit path. @default 'benchmark_results' */
  readonly outputDir: string;
}

/** What {@link BenchmarkConfig.parse} accepts: any subset of the fields, camelCase or snake_case. */
export type BenchmarkConfigInput = Partial<Record<keyof BenchmarkConfig, unknown>> & Record<string, unknown>;

const DEFAULTS: BenchmarkConfig = {
  seqLens: [64, 128, 256, 512],
  batchSizes: [1, 4, 16, 64, 128],
  depths: [],
  nWarmup: 5,
  nMeasure: 20,
  minWarmupMs: 1000,
  minMeasureMs: 0,
  maxMeasureMs: 0,
  evalBatches: 50,
  evalSeqLen: 256,
  evalBatchSize: 4,
  evalStride: null,
  ciLevel: 0.95,
  ciResamples: 1000,
  choiceItems: 500,
  choiceDistractors: 3,
  genTokens: 32,
  diffusionSteps: 32,
  threads: null,
  maxCellMs: 60_000,
  seed: 0,
  outputDir: 'benchmark_results',
};

/**
 * Fewest timed calls of a cell whose timed phase reached {@link BenchmarkConfig.maxMeasureMs} (a cell with a smaller
 * `nMeasure` makes `nMeasure`): enough for a mean, a spread and the comparison tests, as hyperfine's ten runs.
 */
export const MIN_TIMED_CALLS = 10;

const posInt = z.number().int().positive();
const nonNeg = z.number().min(0);
/** Longest time budget of a cell, in ms: Node's timers hold at most 2³¹ − 1 ms (≈ 24.8 days). */
export const MAX_CELL_MS = 2 ** 31 - 1;
/** A sweep list: positive integers, each once (a value measured twice would be dropped from the row). */
const sweep = z
  .array(posInt)
  .min(1)
  .superRefine((values, ctx) => {
    const twice = values.filter((v, i) => values.indexOf(v) !== i);
    if (twice.length > 0) ctx.addIssue({ code: 'custom', message: messages.duplicateSweepValues(twice) });
  });
/** A depth list: non-negative integers, each once (may be empty: no depth sweep). */
const depthList = z.array(z.number().int().min(0)).superRefine((values, ctx) => {
  const twice = values.filter((v, i) => values.indexOf(v) !== i);
  if (twice.length > 0) ctx.addIssue({ code: 'custom', message: messages.duplicateSweepValues(twice) });
});
const schema = z.strictObject({
  seqLens: sweep,
  batchSizes: sweep,
  depths: depthList,
  nWarmup: z.number().int().min(0),
  nMeasure: posInt,
  minWarmupMs: nonNeg,
  minMeasureMs: nonNeg,
  maxMeasureMs: nonNeg,
  evalBatches: posInt,
  evalSeqLen: posInt,
  evalBatchSize: posInt,
  evalStride: posInt.nullable(),
  ciLevel: z.number().gt(0).lt(1),
  ciResamples: posInt,
  choiceItems: posInt,
  choiceDistractors: posInt,
  genTokens: posInt,
  diffusionSteps: posInt,
  threads: posInt.nullable(),
  maxCellMs: z.number().positive().max(MAX_CELL_MS),
  seed: z.number().int().min(0),
  outputDir: z.string().min(1),
});

const FIELDS = Object.keys(DEFAULTS) as (keyof BenchmarkConfig)[];
const toSnake = (k: string): string => k.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`);
const SNAKE_TO_CAMEL = new Map(FIELDS.map((k) => [toSnake(k), k]));

function normalise(raw: Record<string, unknown>, issues: ValidationIssue[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const known = [...FIELDS, ...SNAKE_TO_CAMEL.keys()];
  for (const [key, value] of Object.entries(raw)) {
    const field = (FIELDS as string[]).includes(key) ? key : SNAKE_TO_CAMEL.get(key);
    if (field === undefined) {
      issues.push({ path: key, message: messages.unknownKey(key, known) });
      continue;
    }
    if (field in out && JSON.stringify(out[field]) !== JSON.stringify(value)) {
      issues.push({ path: field, message: messages.conflictingKeys(key, out[field], value) });
      continue;
    }
    out[field] = value;
  }
  return out;
}

/**
 * Companion of the {@link BenchmarkConfig} type: defaults, parsing, loading and saving.
 *
 * @example
 * ```ts
 * const config = BenchmarkConfig.parse({ seq_lens: [128, 256, 512], n_measure: 30 }); // seed spelling
 * BenchmarkConfig.save(config, 'bench.yaml');
 * const same = BenchmarkConfig.load('bench.yaml');
 * ```
 */
export const BenchmarkConfig = {
  /** The default configuration (the seed's defaults plus ours). */
  defaults(): BenchmarkConfig {
    return {
      ...DEFAULTS,
      seqLens: [...DEFAULTS.seqLens],
      batchSizes: [...DEFAULTS.batchSizes],
      depths: [...DEFAULTS.depths],
    };
  },

  /**
   * Validates `input` (camelCase or the seed's snake_case; missing fields take their defaults).
   *
   * @throws {@link dantinox!ValidationError} with code `INVALID_OPTION`, listing every problem (unknown keys with a
   * did-you-mean, wrong types, out-of-range values, the same field given twice with different values).
   */
  parse(input: unknown = {}): BenchmarkConfig {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new ValidationError('INVALID_OPTION', messages.invalidBenchmarkConfig(1), [
        { path: '', message: `expected an object of config fields, received ${excerpt(input)}` },
      ]);
    }
    const issues: ValidationIssue[] = [];
    const fields = normalise(input as Record<string, unknown>, issues);
    const parsed = schema.safeParse({ ...BenchmarkConfig.defaults(), ...fields });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const path = issue.path.join('.');
        const top = issue.path[0];
        const received = typeof top === 'string' ? excerpt(fields[top]) : undefined;
        issues.push({
          path,
          message: `${issue.message}${received === undefined ? '' : ` (received ${received})`}`,
        });
      }
    }
    if (
      parsed.success &&
      parsed.data.evalStride !== null &&
      parsed.data.evalStride > parsed.data.evalSeqLen
    ) {
      issues.push({
        path: 'evalStride',
        message: `must be ≤ evalSeqLen (${parsed.data.evalSeqLen}) so consecutive windows overlap and every token is scored, received ${parsed.data.evalStride}`,
      });
    }
    if (
      parsed.success &&
      parsed.data.maxMeasureMs > 0 &&
      parsed.data.minMeasureMs > parsed.data.maxMeasureMs
    ) {
      issues.push({
        path: 'minMeasureMs',
        message: `must be ≤ maxMeasureMs (${parsed.data.maxMeasureMs}), the cap on a cell's timed phase (0: no cap), received ${parsed.data.minMeasureMs}`,
      });
    }
    if (issues.length > 0 || !parsed.success) {
      throw new ValidationError('INVALID_OPTION', messages.invalidBenchmarkConfig(issues.length), issues);
    }
    return parsed.data;
  },

  /**
   * Reads a `.json`, `.yaml` or `.yml` file and validates it; an empty file gives the defaults (as the seed).
   *
   * @throws {@link dantinox!DantinoxError} with code `IO` when the file cannot be read or parsed, and
   * {@link ValidationError} (`INVALID_OPTION`) when its contents are invalid.
   */
  load(path: string): BenchmarkConfig {
    return BenchmarkConfig.parse(BenchmarkConfig.readFile(path));
  },

  /**
   * Reads a `.json`, `.yaml` or `.yml` file without validating it (an empty file gives `{}`), for callers that
   * take sections of their own out of it first (e.g. `dantinox bench`'s `matrix:`).
   *
   * @throws {@link dantinox!DantinoxError} with code `IO` when the file cannot be read, decoded or parsed.
   */
  readFile(path: string): unknown {
    const text = readTextFile(path, 'benchmark config');
    const isJson = extname(path).toLowerCase() === '.json';
    let raw: unknown;
    try {
      raw = text.trim() === '' ? {} : isJson ? JSON.parse(text) : parseYamlText(text);
    } catch (cause) {
      throw new DantinoxError('IO', messages.malformedFile(path, isJson ? 'JSON' : 'YAML', cause), { cause });
    }
    return raw ?? {};
  },

  /**
   * Writes `config` to `path` with the seed's snake_case keys: JSON for `.json`, YAML otherwise. Creates the
   * parent directory.
   *
   * @throws {@link dantinox!DantinoxError} with code `IO` when the file cannot be written.
   */
  save(config: BenchmarkConfig, path: string): void {
    const data = BenchmarkConfig.toSnakeCase(config);
    const text =
      extname(path).toLowerCase() === '.json' ? `${JSON.stringify(data, null, 2)}\n` : stringifyYaml(data);
    try {
      makeDirectory(dirname(path));
      writeFileSync(path, text);
    } catch (cause) {
      removePartial(path);
      throw new DantinoxError('IO', messages.benchWriteFailed(path, 'the benchmark config', cause), {
        cause,
      });
    }
  },

  /** The config as a plain object with snake_case keys (the seed's spelling). */
  toSnakeCase(config: BenchmarkConfig): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const k of FIELDS) out[toSnake(k)] = config[k];
    return out;
  },
} as const;
