/**
 * The benchmark matrix of a run: axis values (`--config a,b`, `--threads 1,2`… on the command line) over the
 * `matrix:` section of a bench config file, expanded into variants and checked before any model is built.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import type { BenchmarkConfig } from '../benchmarking/config.js';
import { BenchmarkConfig as BenchmarkConfigApi } from '../benchmarking/config.js';
import {
  expandMatrix,
  type MatrixAxisValues,
  type MatrixExclude,
  type MatrixVariant,
} from '../benchmarking/matrix/expand-matrix.js';
import { MATRIX_AXIS_NAMES, type MatrixAxisName } from '../benchmarking/matrix/matrix-axes.js';
import type { MatrixDefinition } from '../benchmarking/matrix/matrix-manifest.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { EngineName } from '../models/engines/engine-name.js';
import type { TargetName } from '../models/engines/target-name.js';
import { checkFitsInMemory, modelBuildBytes } from '../models/memory-check.js';
import type { ParadigmKind } from '../models/model-config.js';
import {
  type CheckedSelection,
  checkModelSelection,
  DEFAULT_PRESET,
  type ModelSelection,
} from '../models/model-selection.js';

/** Axis values given as flags or in a `matrix:` section (absent: not given). */
export type AxisFlags = Partial<Record<MatrixAxisName, readonly string[]>>;

const scalar = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const values = z.union([scalar.transform((v) => [v]), z.array(scalar)]);
const section = z.strictObject({
  ...Object.fromEntries(MATRIX_AXIS_NAMES.map((n) => [n, values.optional()])),
  exclude: z.array(z.record(z.string(), values)).optional(),
});

/** The axes and excludes of a `matrix:` section. */
export interface MatrixSection {
  /** Values per axis. */
  readonly axes: AxisFlags;
  /** Combinations left out: each entry excludes the variants that match all of its axis values. */
  readonly exclude: readonly MatrixExclude[];
}

/**
 * Validates the `matrix:` section of a `--bench-config` file: axis names as keys (a value or a list of values)
 * and an optional `exclude:` list of `{ axis: value | [values] }` entries.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` naming the first problem.
 */
export function parseMatrixSection(raw: unknown, path: string): MatrixSection {
  const parsed = section.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where =
      issue === undefined || issue.path.length === 0 ? 'matrix' : `matrix.${issue.path.join('.')}`;
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.badMatrixSection(path, where, issue?.message ?? 'invalid', [...MATRIX_AXIS_NAMES, 'exclude']),
    );
  }
  const { exclude, ...axes } = parsed.data as Record<string, string[]> & {
    exclude?: Record<string, string[]>[];
  };
  for (const entry of exclude ?? []) {
    for (const key of Object.keys(entry)) {
      if (!(MATRIX_AXIS_NAMES as readonly string[]).includes(key))
        throw new DantinoxError(
          'INVALID_OPTION',
          messages.badMatrixSection(path, 'matrix.exclude', `unknown axis "${key}"`, MATRIX_AXIS_NAMES),
        );
    }
  }
  return { axes: axes as AxisFlags, exclude: (exclude ?? []) as MatrixExclude[] };
}

/** The `--bench-config` file split into the benchmark config and the `matrix:` section. */
export interface BenchConfigFile {
  /** Everything but `matrix:` (validated later as a {@link BenchmarkConfig}). */
  readonly config: Record<string, unknown>;
  /** The validated `matrix:` section, when there is one. */
  readonly matrix?: MatrixSection;
}

/**
 * Reads a `--bench-config` file and takes its `matrix:` section out.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for a file that sets nothing (empty, or `{}`): a run of
 * the defaults is not what a file was given for. And the errors of {@link BenchmarkConfig.readFile} and
 * {@link parseMatrixSection}.
 */
export function readBenchConfigFile(path: string): BenchConfigFile {
  const raw = BenchmarkConfigApi.readFile(path);
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && Object.keys(raw).length === 0)
    throw new DantinoxError('INVALID_OPTION', messages.benchConfigEmpty(path));
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return { config: raw as Record<string, unknown> };
  const { matrix, ...config } = raw as Record<string, unknown>;
  return matrix === undefined ? { config } : { config, matrix: parseMatrixSection(matrix, path) };
}

/** The matrix of one command: its definition (what `--resume` and `merge` compare) and its variants. */
export interface BenchMatrix {
  /** Axes, excludes, benchmark config and tasks. */
  readonly definition: MatrixDefinition;
  /** Every variant, in canonical order. */
  readonly variants: readonly MatrixVariant[];
  /** Whether the command asked for more than one model run or for a matrix section (else the classic flat run). */
  readonly isMatrix: boolean;
}

/** Input of {@link buildBenchMatrix}. */
export interface BenchMatrixInput {
  /** Axis flags (override the file's axes one by one; `--config`/`--model` replace both of the file's). */
  readonly flags: AxisFlags;
  /** The `matrix:` section of `--bench-config`. */
  readonly file?: MatrixSection;
  /** The validated benchmark config shared by every variant. */
  readonly config: BenchmarkConfig;
  /** Task names. */
  readonly tasks: readonly string[];
  /** `--data`, as given. */
  readonly data?: string;
}

/**
 * The matrix of a command line: flags over the file's `matrix:` section; the model axis defaults to the
 * `small` preset.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for `--config` with `--model`, and the errors of
 * {@link expandMatrix}.
 */
export function buildBenchMatrix(input: BenchMatrixInput): BenchMatrix {
  const sourceGiven = input.flags.config !== undefined || input.flags.model !== undefined;
  const fileAxes: AxisFlags = { ...input.file?.axes };
  if (sourceGiven) {
    delete fileAxes.config;
    delete fileAxes.model;
  }
  const merged: AxisFlags = { ...fileAxes, ...input.flags };
  if (merged.config !== undefined && merged.model !== undefined)
    throw new DantinoxError('INVALID_OPTION', messages.configAndModel());
  if (merged.config === undefined && merged.model === undefined) merged.config = [DEFAULT_PRESET];
  const axes: MatrixAxisValues[] = MATRIX_AXIS_NAMES.flatMap((name) => {
    const v = merged[name];
    return v === undefined ? [] : [{ name, values: v }];
  });
  const exclude = input.file?.exclude ?? [];
  const variants = expandMatrix({ axes, exclude });
  const { output_dir: _out, ...benchConfig } = BenchmarkConfigApi.toSnakeCase(input.config);
  return {
    definition: {
      // The checked, canonical values (e.g. `02` threads → `2`), read back from the variants.
      axes: axes.map((a) => ({
        name: a.name,
        values: [...new Set(variants.map((v) => v.axes[a.name] ?? ''))],
      })),
      exclude,
      benchConfig: { ...benchConfig, data: input.data ?? null },
      tasks: input.tasks,
    },
    variants,
    isMatrix: variants.length > 1 || input.file !== undefined,
  };
}

/** The model selection of a variant (threads from its axis, else the benchmark config's). */
export function variantSelection(
  variant: MatrixVariant,
  config: BenchmarkConfig,
  shared: SharedSelection = {},
): ModelSelection {
  const { config: source, model, engine, target, paradigm, threads, dtype } = variant.axes;
  const n = threads === undefined ? config.threads : Number(threads);
  return {
    ...shared,
    ...(source === undefined ? {} : { config: source }),
    ...(model === undefined ? {} : { model }),
    ...(paradigm === undefined ? {} : { paradigm: paradigm as ParadigmKind }),
    ...(engine === undefined ? {} : { engine: engine as EngineName }),
    ...(target === undefined ? {} : { target: target as TargetName }),
    ...(dtype === undefined ? {} : { dtype }),
    ...(n === null ? {} : { threads: n }),
    seed: config.seed,
  };
}

/**
 * The parts of a model selection every variant shares: `--ep`, `--force`, `--head-dtype`, `--block-size`,
 * `--reference`, `--reference-engine`, `--browser-path`, `--no-isolation`.
 */
export type SharedSelection = Pick<
  ModelSelection,
  | 'executionProvider'
  | 'force'
  | 'headDtype'
  | 'blockSize'
  | 'reference'
  | 'referenceEngine'
  | 'browserPath'
  | 'isolated'
>;

/** The benchmark config of a variant: the shared one with the variant's threads. */
export function variantConfig(variant: MatrixVariant, config: BenchmarkConfig): BenchmarkConfig {
  const threads = variant.axes.threads;
  return threads === undefined ? config : BenchmarkConfigApi.parse({ ...config, threads: Number(threads) });
}

/**
 * Checks every variant's model selection without building anything (presets, config files, folders,
 * paradigms, dtypes), so a bad value fails in the first second, not after hours of earlier variants.
 *
 * @throws the errors of {@link checkModelSelection}.
 */
export function checkVariants(
  variants: readonly MatrixVariant[],
  config: BenchmarkConfig,
  cwd: string,
  shared: SharedSelection = {},
): Map<string, CheckedSelection> {
  return new Map(
    variants.map((v) => {
      const checked = checkModelSelection(variantSelection(v, config, shared), cwd);
      if (checked.config !== undefined)
        checkFitsInMemory(
          messages.modelBuild(checked.config.dim, checked.config.numBlocks, checked.config.vocabSize),
          modelBuildBytes(checked.config),
          { force: shared.force === true },
        );
      return [v.id, checked];
    }),
  );
}
