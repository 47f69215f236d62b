import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  expandMatrix,
  type MatrixAxisValues,
  type MatrixExclude,
  variantId,
} from '../../../src/benchmarking/matrix/expand-matrix.js';
import { MATRIX_AXIS_NAMES, type MatrixAxisName } from '../../../src/benchmarking/matrix/matrix-axes.js';
import { DTYPE_NAMES } from '../../../src/dtype.js';
import { DantinoxError } from '../../../src/errors.js';
import { messages } from '../../../src/messages.js';
import { ENGINE_NAMES } from '../../../src/models/engines/engine-name.js';
import { TARGET_NAMES } from '../../../src/models/engines/target-name.js';

/** Distinct, id-safe values per axis (threads get integers, the closed axes their allowed values). */
const valuesFor = (name: MatrixAxisName): fc.Arbitrary<string[]> =>
  fc.uniqueArray(
    name === 'threads'
      ? fc.integer({ min: 1, max: 64 }).map(String)
      : name === 'paradigm'
        ? fc.constantFrom('ar', 'diffusion')
        : name === 'dtype'
          ? fc.constantFrom(...DTYPE_NAMES)
          : name === 'engine'
            ? fc.constantFrom(...ENGINE_NAMES)
            : name === 'target'
              ? fc.constantFrom(...TARGET_NAMES)
              : fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/),
    { minLength: 1, maxLength: 4 },
  );

const specArb = fc
  .subarray([...MATRIX_AXIS_NAMES], { minLength: 1 })
  .chain((names) =>
    fc.tuple(...names.map((name) => valuesFor(name).map((values): MatrixAxisValues => ({ name, values })))),
  )
  .chain((axes) =>
    fc.tuple(
      fc.constant(axes),
      fc.array(
        fc
          .subarray(axes, { minLength: 1 })
          .chain((chosen) =>
            fc.tuple(
              ...chosen.map((a) =>
                fc.subarray([...a.values], { minLength: 1 }).map((v) => [a.name, v] as const),
              ),
            ),
          )
          .map(
            (pairs): MatrixExclude =>
              Object.fromEntries(pairs.map(([n, v]) => [n, v.length === 1 ? v[0]! : v])),
          ),
        { maxLength: 3 },
      ),
      fc.array(fc.nat(), { minLength: 5, maxLength: 5 }),
    ),
  );

const product = (axes: readonly MatrixAxisValues[]): Record<string, string>[] =>
  axes.reduce<Record<string, string>[]>(
    (acc, a) => acc.flatMap((c) => a.values.map((v) => ({ ...c, [a.name]: v }))),
    [{}],
  );

const excluded = (combo: Record<string, string>, exclude: readonly MatrixExclude[]): boolean =>
  exclude.some((e) =>
    Object.entries(e).every(([k, v]) =>
      typeof v === 'string' ? combo[k] === v : v!.includes(combo[k] ?? ''),
    ),
  );

describe('expandMatrix', () => {
  it('gives every non-excluded combination exactly once, in canonical order, with unique stable ids', () => {
    fc.assert(
      fc.property(specArb, ([axes, exclude, shuffle]) => {
        const all = product(axes);
        const expected = all.filter((c) => !excluded(c, exclude));
        let variants: ReturnType<typeof expandMatrix>;
        try {
          variants = expandMatrix({ axes, exclude });
        } catch (error) {
          // Only two legitimate failures: everything excluded, or two values with the same id part.
          expect(error).toBeInstanceOf(DantinoxError);
          const msg = (error as Error).message;
          if (expected.length === 0) expect(msg).toBe(messages.matrixAllExcluded(all.length));
          else expect(msg).toMatch(/would share the id/);
          return;
        }
        expect(variants.map((v) => v.axes)).toEqual(expected);
        expect(variants.map((v) => v.index)).toEqual(expected.map((_, i) => i));
        expect(new Set(variants.map((v) => v.id)).size).toBe(variants.length);
        // Stable: the id depends only on the variant's own values, not on the rest of the matrix or the
        // order the axes and values were given in.
        for (const v of variants) expect(v.id).toBe(variantId(v.axes));
        const reordered = [...axes]
          .reverse()
          .map((a, i) => ({ ...a, values: rotate(a.values, shuffle[i % shuffle.length]!) }));
        const again = expandMatrix({ axes: reordered, exclude });
        expect(new Map(again.map((v) => [v.id, v.axes]))).toEqual(
          new Map(variants.map((v) => [v.id, v.axes])),
        );
      }),
    );
  });

  it('names the axes in canonical order: config/model, dtype, threads, paradigm', () => {
    const variants = expandMatrix({
      axes: [
        { name: 'paradigm', values: ['ar'] },
        { name: 'threads', values: ['1', '2'] },
        { name: 'config', values: ['tiny', 'configs/small.yaml'] },
        { name: 'dtype', values: ['q8'] },
      ],
    });
    expect(variants.map((v) => v.id)).toEqual([
      'tiny-q8-t1-ar',
      'tiny-q8-t2-ar',
      'small-q8-t1-ar',
      'small-q8-t2-ar',
    ]);
  });

  it('honours exclude entries with single values and lists', () => {
    const ids = expandMatrix({
      axes: [
        { name: 'config', values: ['tiny', 'small'] },
        { name: 'threads', values: ['1', '2', '4'] },
      ],
      exclude: [
        { config: 'small', threads: ['1', '2'] },
        { threads: '4', config: 'tiny' },
      ],
    }).map((v) => v.id);
    expect(ids).toEqual(['tiny-t1', 'tiny-t2', 'small-t4']);
  });

  it('rejects an empty axis, a value twice, id collisions, bad excludes and an all-excluded matrix', () => {
    const bad = (spec: Parameters<typeof expandMatrix>[0], message: string): void => {
      expect(() => expandMatrix(spec)).toThrowError(new DantinoxError('INVALID_OPTION', message));
    };
    bad({ axes: [{ name: 'threads', values: [] }] }, messages.matrixEmptyAxis('--threads', '1,2'));
    bad(
      { axes: [{ name: 'config', values: ['tiny', ' '] }] },
      messages.matrixEmptyAxis('--config', 'tiny,small'),
    );
    bad(
      { axes: [{ name: 'dtype', values: ['fp32', 'fp32'] }] },
      messages.matrixDuplicateValue('--dtype', 'fp32'),
    );
    bad(
      { axes: [{ name: 'config', values: ['a/tiny.yaml', 'b/tiny.yml'] }] },
      messages.variantIdCollision('tiny', 'config=a/tiny.yaml', 'config=b/tiny.yml'),
    );
    bad(
      { axes: [{ name: 'config', values: ['tiny'] }], exclude: [{ dtype: 'q8' }] },
      messages.matrixBadExclude(1, 'dtype', 'q8', [], ['config']),
    );
    bad(
      { axes: [{ name: 'threads', values: ['1', '2'] }], exclude: [{ threads: '3' }] },
      messages.matrixBadExclude(1, 'threads', '3', ['1', '2'], ['threads']),
    );
    bad({ axes: [{ name: 'threads', values: ['1'] }], exclude: [{}] }, messages.matrixEmptyExclude(1));
    bad(
      { axes: [{ name: 'threads', values: ['1'] }], exclude: [{ threads: '1' }] },
      messages.matrixAllExcluded(1),
    );
  });
});

function rotate<T>(values: readonly T[], by: number): T[] {
  const k = by % values.length;
  return [...values.slice(k), ...values.slice(0, k)];
}
