/**
 * The identity of a variant: everything that makes two runs measure the same thing — the model (name, weights,
 * architecture), how its weights are stored (dtype, head dtype, block size, quantized matrices), the engine (and
 * version and execution provider), the threads, the paradigm and the machine. Comparisons and the history match runs
 * on it: two runs that differ in any of these are two variants, not a before and an after.
 *
 * @packageDocumentation
 */
import type { Environment } from './environment.js';
import type { MetaValue } from './task.js';

/**
 * The machine fingerprint recorded with a run: `<CPU model> · <logical CPUs> CPUs · <memory> GiB`, or
 * `unknown machine` when the run has no environment block (e.g. a CSV file).
 */
export function machineLabel(environment: Environment | undefined): string {
  if (environment === undefined) return 'unknown machine';
  const gib = Math.round(environment.totalMemoryBytes / 2 ** 30);
  return `${environment.cpuModel} · ${environment.logicalCpus} CPUs · ${gib} GiB`;
}

/** The `modelMeta` columns of a variant's identity, in the order differences are listed. */
export const VARIANT_IDENTITY_KEYS = [
  'model',
  'weights',
  'paradigm',
  'params',
  'dim',
  'num_blocks',
  'n_heads',
  'kv_heads',
  'vocab_size',
  'max_context',
  'attention',
  'ffn',
  'dtype',
  'head_dtype',
  'block_size',
  'quantized_matrices',
  'engine',
  'target',
  'browser',
  'cross_origin_isolated',
  'threads',
] as const;

/** One field of a variant identity: a `modelMeta` column, or the machine. */
export type IdentityField = (typeof VARIANT_IDENTITY_KEYS)[number] | 'machine';

/** A variant's identity: its identity columns and its machine fingerprint. */
export type VariantIdentity = Readonly<Partial<Record<IdentityField, MetaValue>>>;

/** A field whose value differs between two runs. */
export interface IdentityDifference {
  /** The field. */
  readonly field: IdentityField;
  /** Its value in the first (baseline) run. */
  readonly baseline: MetaValue;
  /** Its value in the second (candidate) run. */
  readonly candidate: MetaValue;
}

/** An earlier run of the same model and its differences from the run it was looked up for. */
export interface NearestRun {
  /** Its run id. */
  readonly runId: string;
  /** The identity fields that differ (none: the same variant). */
  readonly differences: readonly IdentityDifference[];
}

/** What a report carries that identifies its variant. */
export interface IdentifiedReport {
  /** Model identity columns (snake_case). */
  readonly modelMeta: Readonly<Record<string, MetaValue>>;
  /** Where it was measured (absent in CSV files). */
  readonly environment?: Environment | undefined;
}

/** The identity of a report's variant (fields it does not record are absent). */
export function variantIdentity(report: IdentifiedReport): VariantIdentity {
  const out: Partial<Record<IdentityField, MetaValue>> = {};
  for (const key of VARIANT_IDENTITY_KEYS) {
    const value = report.modelMeta[key];
    if (value !== undefined) out[key] = value;
  }
  if (report.environment !== undefined && report.environment !== null)
    out.machine = machineLabel(report.environment);
  return out;
}

/**
 * The fields whose values differ between two identities. A field one of them does not record (a file of an older
 * version, a CSV without an environment) is not a difference: it cannot be told.
 */
export function identityDifferences(
  baseline: VariantIdentity,
  candidate: VariantIdentity,
): IdentityDifference[] {
  const fields: readonly IdentityField[] = [...VARIANT_IDENTITY_KEYS, 'machine'];
  return fields.flatMap((field) => {
    const a = baseline[field];
    const b = candidate[field];
    return a === undefined || b === undefined || a === null || b === null || a === b
      ? []
      : [{ field, baseline: a, candidate: b }];
  });
}

/** The differences as `dtype q4 → fp32, threads 2 → 1`. */
export function formatDifferences(differences: readonly IdentityDifference[]): string {
  return differences.map((d) => `${d.field} ${String(d.baseline)} → ${String(d.candidate)}`).join(', ');
}

/**
 * A short label of how a variant runs, without its model and machine: `q4 · head q8 · block 32 · 2 threads ·
 * onnxruntime-node 1.30.0 (cpu)`; the head and block only where they say something.
 */
export function variantLabel(identity: VariantIdentity): string {
  const { dtype, head_dtype: head, block_size: block, threads, engine } = identity;
  return [
    dtype,
    head !== undefined && head !== null && head !== dtype ? `head ${head}` : undefined,
    block !== undefined && block !== null ? `block ${block}` : undefined,
    threads === undefined || threads === null ? undefined : `${threads} threads`,
    engine,
  ]
    .filter((p) => p !== undefined && p !== null)
    .join(' · ');
}
