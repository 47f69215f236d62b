import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseShard,
  resolveShard,
  shardFolderName,
  shardVariants,
} from '../../../src/benchmarking/matrix/shard.js';
import { DantinoxError } from '../../../src/errors.js';
import { messages } from '../../../src/messages.js';

const invalid = (message: string): DantinoxError => new DantinoxError('INVALID_OPTION', message);

describe('shards', () => {
  it('parses i/n (0-based) and rejects anything else', () => {
    expect(parseShard('1/4')).toEqual({ index: 1, count: 4, source: '--shard' });
    expect(parseShard(' 0 / 1 ')).toEqual({ index: 0, count: 1, source: '--shard' });
    expect(parseShard('12/16')).toEqual({ index: 12, count: 16, source: '--shard' });
    expect(parseShard('3/12')).toEqual({ index: 3, count: 12, source: '--shard' });
    for (const bad of [
      '3/2',
      '2/2',
      '0/0',
      '1',
      '-1/2',
      'a/b',
      '1/2/3',
      '',
      '12/3',
      '0/99999999999999999999',
    ])
      expect(() => parseShard(bad), bad).toThrowError(invalid(messages.badShard(bad)));
  });

  it('deals every variant to exactly one shard, round-robin', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 9 }), (n, count) => {
        const variants = Array.from({ length: n }, (_, index) => ({ index }));
        const shards = Array.from({ length: count }, (_, index) =>
          shardVariants(variants, { index, count, source: 'test' }).map((v) => v.index),
        );
        expect(shards.flat().sort((a, b) => a - b)).toEqual(variants.map((v) => v.index));
        for (const [i, s] of shards.entries()) for (const k of s) expect(k % count).toBe(i);
        // Balanced: shard sizes differ by at most one.
        const sizes = shards.map((s) => s.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }),
    );
    expect(shardVariants([{ index: 0 }, { index: 1 }], undefined)).toHaveLength(2);
    expect(shardFolderName({ index: 2, count: 5 })).toBe('shard-2-of-5');
  });

  it('reads Slurm arrays (minus SLURM_ARRAY_TASK_MIN) and Kubernetes Indexed Jobs; the flag wins', () => {
    const slurm = { SLURM_ARRAY_TASK_ID: '3', SLURM_ARRAY_TASK_COUNT: '3', SLURM_ARRAY_TASK_MIN: '1' };
    expect(resolveShard({ env: slurm })).toEqual({ index: 2, count: 3, source: 'SLURM_ARRAY_TASK_ID' });
    expect(resolveShard({ env: { SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_TASK_COUNT: '2' } })).toEqual({
      index: 0,
      count: 2,
      source: 'SLURM_ARRAY_TASK_ID',
    });
    expect(resolveShard({ env: { JOB_COMPLETION_INDEX: '1' }, shards: 2 })).toEqual({
      index: 1,
      count: 2,
      source: 'JOB_COMPLETION_INDEX',
    });
    expect(resolveShard({ env: slurm, shard: '0/1' })).toEqual({ index: 0, count: 1, source: '--shard' });
    expect(resolveShard({ env: {} })).toBeUndefined();
    expect(resolveShard({ env: { JOB_COMPLETION_INDEX: '' } })).toBeUndefined();
  });

  it('maps a stepped Slurm array (--array=1-5:2: ids 1, 3, 5) to shards 0, 1, 2 of 3, and an unstepped one likewise', () => {
    /** The variables Slurm sets in task `id` of an array `min`-`max`:`step` of `count` tasks. */
    const array = (id: number, min: number, max: number, step: number, count: number) => ({
      SLURM_ARRAY_TASK_ID: String(id),
      SLURM_ARRAY_TASK_MIN: String(min),
      SLURM_ARRAY_TASK_MAX: String(max),
      SLURM_ARRAY_TASK_STEP: String(step),
      SLURM_ARRAY_TASK_COUNT: String(count),
    });
    const source = 'SLURM_ARRAY_TASK_ID';
    expect([1, 3, 5].map((id) => resolveShard({ env: array(id, 1, 5, 2, 3) }))).toEqual([
      { index: 0, count: 3, source },
      { index: 1, count: 3, source },
      { index: 2, count: 3, source },
    ]);
    // --array=1-3 (step 1): ids 1, 2, 3 are shards 0, 1, 2 of 3; the upper end is the last shard, not beyond.
    expect([1, 2, 3].map((id) => resolveShard({ env: array(id, 1, 3, 1, 3) })?.index)).toEqual([0, 1, 2]);
    // --array=0-12:4 with --shards: the step still divides; index 3 of 4 is the last one accepted.
    expect(resolveShard({ env: array(12, 0, 12, 4, 4), shards: 4 })).toEqual({ index: 3, count: 4, source });
    expect(() => resolveShard({ env: array(12, 0, 12, 4, 4), shards: 3 })).toThrowError(
      invalid(messages.slurmIndexOutOfRange(12, 0, 3, 4)),
    );
    // Every shard of a stepped array runs exactly once.
    const ids = [0, 1, 2, 3, 4, 5, 6].map((k) => 3 + 5 * k);
    const indices = ids.map((id) => resolveShard({ env: array(id, 3, 33, 5, 7) })?.index);
    expect(indices).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('refuses a Slurm array that is not evenly spaced, naming the variables and what to submit instead', () => {
    // --array=1,2,7: Slurm sets MIN 1, MAX 7, COUNT 3; id 2 would silently run shard 1 and shard 2 never.
    const list = {
      SLURM_ARRAY_TASK_ID: '2',
      SLURM_ARRAY_TASK_MIN: '1',
      SLURM_ARRAY_TASK_MAX: '7',
      SLURM_ARRAY_TASK_COUNT: '3',
    };
    const uneven = invalid(messages.slurmArrayUneven(2, { min: 1, max: 7, step: 1, count: 3 }));
    expect(() => resolveShard({ env: list })).toThrowError(uneven);
    expect(uneven.message).not.toContain('\n');
    expect(uneven.message).toContain('--array=1-7:2');
    expect(uneven.message).toContain('--shard i/n');
    // An id off the step (4 in 1-5:2) and a step of 0 are refused, not rounded.
    const offStep = {
      SLURM_ARRAY_TASK_ID: '4',
      SLURM_ARRAY_TASK_MIN: '1',
      SLURM_ARRAY_TASK_STEP: '2',
      SLURM_ARRAY_TASK_COUNT: '3',
    };
    expect(() => resolveShard({ env: offStep })).toThrowError(
      invalid(messages.slurmArrayUneven(4, { min: 1, max: undefined, step: 2, count: 3 })),
    );
    expect(() =>
      resolveShard({ env: { ...offStep, SLURM_ARRAY_TASK_ID: '3', SLURM_ARRAY_TASK_STEP: '0' } }),
    ).toThrowError(invalid(messages.slurmArrayUneven(3, { min: 1, max: undefined, step: 0, count: 3 })));
    // Below the minimum stays an out-of-range index.
    expect(() => resolveShard({ env: { ...offStep, SLURM_ARRAY_TASK_ID: '0' } })).toThrowError(
      invalid(messages.slurmIndexOutOfRange(0, 1, 3, 2)),
    );
  });

  it('rejects malformed or inconsistent scheduler variables with one clear line', () => {
    // Not a plain decimal integer, or one beyond 2^53: a number Number() would still read is refused too.
    for (const raw of ['x1', '1e2', '0x1', '1.0', '-1', '99999999999999999999'])
      expect(() => resolveShard({ env: { JOB_COMPLETION_INDEX: raw }, shards: 200 }), raw).toThrowError(
        invalid(messages.badShardVariable('JOB_COMPLETION_INDEX', raw)),
      );
    // A one-task array is shard 0 of 1; an id at the array's start on a list that is not evenly spaced is refused.
    expect(resolveShard({ env: { SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_TASK_COUNT: '1' } })).toEqual({
      index: 0,
      count: 1,
      source: 'SLURM_ARRAY_TASK_ID',
    });
    const uneven = { SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '7', SLURM_ARRAY_TASK_STEP: '2' };
    expect(() =>
      resolveShard({ env: { ...uneven, SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_COUNT: '3' } }),
    ).toThrowError(invalid(messages.slurmArrayUneven(1, { min: 1, max: 7, step: 2, count: 3 })));
    expect(() =>
      resolveShard({ env: { SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_COUNT: 'two' } }),
    ).toThrowError(invalid(messages.badShardVariable('SLURM_ARRAY_TASK_COUNT', 'two')));
    expect(() => resolveShard({ env: { JOB_COMPLETION_INDEX: '1' } })).toThrowError(
      invalid(messages.shardCountMissing('JOB_COMPLETION_INDEX', 1)),
    );
    expect(() => resolveShard({ env: { SLURM_ARRAY_TASK_ID: '1' } })).toThrowError(
      invalid(messages.shardCountMissing('SLURM_ARRAY_TASK_ID', 1)),
    );
    expect(() =>
      resolveShard({
        env: { SLURM_ARRAY_TASK_ID: '8', SLURM_ARRAY_TASK_COUNT: '4', SLURM_ARRAY_TASK_MIN: '0' },
      }),
    ).toThrowError(invalid(messages.slurmIndexOutOfRange(8, 0, 4)));
    expect(() => resolveShard({ env: { JOB_COMPLETION_INDEX: '2' }, shards: 2 })).toThrowError(
      invalid(messages.badShard('2/2')),
    );
    expect(() => resolveShard({ env: {}, shards: 3 })).toThrowError(invalid(messages.shardsWithoutIndex(3)));
  });
});
