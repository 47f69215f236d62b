/**
 * `resolveLoadTarget` and `loadWorkload`, the runs-layer halves of `dantinox load`'s flags: where a load writes
 * (whole sweep, shard, client share) and the workload its options ask for, with the conflicts refused by code.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkload, resolveLoadTarget, timestampName } from '../../src/runs/index.js';
import { thrown } from '../thrown.js';

const now = new Date('2026-12-06T10:00:00.000Z');

describe('resolveLoadTarget', () => {
  it('writes the whole sweep into --out, or results/<timestamp> without it', () => {
    expect(resolveLoadTarget({ out: 'r', env: {}, now })).toEqual({ dir: 'r' });
    expect(resolveLoadTarget({ env: {}, now }).dir).toBe(join('results', timestampName(now)));
  });

  it('puts a shard and a client share in their folders under --out', () => {
    const shard = resolveLoadTarget({ out: 'r', shard: '1/4', env: {}, now });
    expect(shard.dir).toBe(join('r', 'shard-1-of-4'));
    expect(shard.shard).toMatchObject({ index: 1, count: 4 });
    expect(shard.client).toBeUndefined();
    const client = resolveLoadTarget({ out: 'r', clients: 3, env: { JOB_COMPLETION_INDEX: '2' }, now });
    expect(client.dir).toBe(join('r', 'client-2-of-3'));
    expect(client.client).toMatchObject({ index: 2, count: 3 });
    expect(client.shard).toBeUndefined();
  });

  it('refuses a shard with a client share, and either without --out', () => {
    expect(
      thrown(() => resolveLoadTarget({ out: 'r', shard: '0/2', client: '0/2', env: {}, now })),
    ).toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/^--client .* --shard /) });
    expect(thrown(() => resolveLoadTarget({ shard: '0/2', env: {}, now }))).toMatchObject({
      code: 'INVALID_OPTION',
      message: expect.stringContaining('--out'),
    });
    expect(thrown(() => resolveLoadTarget({ client: '0/2', env: {}, now }))).toMatchObject({
      code: 'INVALID_OPTION',
      message: expect.stringContaining('--out'),
    });
  });
});

describe('loadWorkload', () => {
  const base = { prompts: 'synthetic', inputTokens: 64, outputTokens: 16 };

  it('reads synthetic prompts with their shape, a trace, conversations and a prompts file', () => {
    expect(loadWorkload({ ...base, turns: 3, sharedPrefix: 32 })).toEqual({
      kind: 'synthetic',
      inputTokens: 64,
      outputTokens: 16,
      prefixTokens: 32,
      turns: 3,
    });
    expect(loadWorkload({ ...base, trace: 't.csv' })).toEqual({ kind: 'trace', path: 't.csv' });
    expect(loadWorkload({ ...base, conversations: 'c.jsonl' })).toEqual({
      kind: 'conversations',
      path: 'c.jsonl',
      outputTokens: 16,
    });
    expect(loadWorkload({ ...base, prompts: 'p.jsonl' })).toEqual({
      kind: 'prompts',
      path: 'p.jsonl',
      outputTokens: 16,
    });
  });

  it('names both flags of a conflict', () => {
    const cases: [Parameters<typeof loadWorkload>[0], string][] = [
      [{ ...base, trace: 't.csv', prompts: 'brown' }, '--trace and --prompts'],
      [{ ...base, trace: 't.csv', conversations: 'c.jsonl' }, '--trace and --conversations'],
      [{ ...base, conversations: 'c.jsonl', prefixGroups: 2 }, '--conversations and --prefix-groups'],
      [{ ...base, prompts: 'p.jsonl', turns: 2 }, '--prompts p.jsonl and --turns'],
    ];
    for (const [input, flags] of cases)
      expect(thrown(() => loadWorkload(input))).toMatchObject({
        code: 'INVALID_OPTION',
        message: expect.stringContaining(flags),
      });
  });
});
