import { describe, expect, it } from 'vitest';
import {
  type Environment,
  formatDifferences,
  identityDifferences,
  machineLabel,
  VARIANT_IDENTITY_KEYS,
  variantIdentity,
  variantLabel,
} from '../../src/benchmarking/index.js';

/** An environment block with only the fields the machine label reads being meaningful. */
const machine = (cpuModel: string, logicalCpus: number, totalMemoryBytes: number): Environment =>
  ({ cpuModel, logicalCpus, totalMemoryBytes }) as Environment;

describe('variant identity', () => {
  it('labels the machine by CPU model, logical CPUs and memory rounded to GiB (half a GiB rounds up)', () => {
    expect(machineLabel(machine('AMD EPYC', 2, 24 * 2 ** 30))).toBe('AMD EPYC · 2 CPUs · 24 GiB');
    expect(machineLabel(machine('x', 8, 23.5 * 2 ** 30))).toBe('x · 8 CPUs · 24 GiB');
    expect(machineLabel(machine('x', 8, 23.49 * 2 ** 30))).toBe('x · 8 CPUs · 23 GiB');
    expect(machineLabel(undefined)).toBe('unknown machine');
  });

  it('takes every identity column the report records, and the machine; nothing else', () => {
    const modelMeta = Object.fromEntries(VARIANT_IDENTITY_KEYS.map((k, i) => [k, i]));
    const identity = variantIdentity({
      modelMeta: { ...modelMeta, seed: 7, note: 'x' },
      environment: machine('c', 1, 2 ** 30),
    });
    expect(identity).toEqual({ ...modelMeta, machine: 'c · 1 CPUs · 1 GiB' });
    // Columns a file does not record (older versions, CSV without environment) are absent, not undefined.
    const sparse = variantIdentity({ modelMeta: { model: 'tiny', dtype: null } });
    expect(sparse).toEqual({ model: 'tiny', dtype: null });
    expect(Object.keys(sparse)).toEqual(['model', 'dtype']);
  });

  it('lists the fields that differ in table order, machine last; a field either side lacks or holds null is not a difference', () => {
    const a = { model: 'tiny', dtype: 'q8', threads: 2, engine: 'ort', machine: 'm1', weights: 'w' };
    const b = { model: 'tiny', dtype: 'fp32', threads: 1, engine: null, machine: 'm2', head_dtype: 'q8' };
    const differences = identityDifferences(a, b);
    expect(differences).toEqual([
      { field: 'dtype', baseline: 'q8', candidate: 'fp32' },
      { field: 'threads', baseline: 2, candidate: 1 },
      { field: 'machine', baseline: 'm1', candidate: 'm2' },
    ]);
    expect(identityDifferences(b, a).map((d) => d.field)).toEqual(['dtype', 'threads', 'machine']);
    expect(identityDifferences({ ...a, engine: null }, a)).toEqual([]);
    expect(identityDifferences(a, a)).toEqual([]);
    expect(formatDifferences(differences)).toBe('dtype q8 → fp32, threads 2 → 1, machine m1 → m2');
    expect(formatDifferences([])).toBe('');
  });

  it('labels how a variant runs: the head only when it differs from the dtype, the block only when recorded', () => {
    expect(
      variantLabel({
        dtype: 'q4',
        head_dtype: 'q8',
        block_size: 32,
        threads: 2,
        engine: 'onnxruntime-node 1.30.0',
      }),
    ).toBe('q4 · head q8 · block 32 · 2 threads · onnxruntime-node 1.30.0');
    expect(
      variantLabel({ dtype: 'q8', head_dtype: 'q8', block_size: null, threads: null, engine: 'e' }),
    ).toBe('q8 · e');
    expect(variantLabel({ dtype: 'fp32', head_dtype: null, threads: 0 })).toBe('fp32 · 0 threads');
    expect(variantLabel({})).toBe('');
  });
});
