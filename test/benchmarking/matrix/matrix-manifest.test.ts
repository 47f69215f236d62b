import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type MatrixDefinition, matrixKey } from '../../../src/benchmarking/matrix/matrix-manifest.js';

const bench: MatrixDefinition = {
  axes: [{ name: 'dtype', values: ['fp32', 'q8'] }],
  exclude: [],
  benchConfig: { seed: 0, seq_lens: [16] },
  tasks: ['throughput'],
};

describe('matrixKey', () => {
  it("keeps a bench matrix's key (folders written before loads were sharded still resume and merge)", () => {
    // The canonical JSON of the definition (keys sorted), as the key has always hashed it.
    const canonical =
      '{"axes":[{"name":"dtype","values":["fp32","q8"]}],"benchConfig":{"seed":0,"seq_lens":[16]},"exclude":[],"tasks":["throughput"]}';
    expect(matrixKey(bench)).toBe(createHash('sha256').update(canonical).digest('hex').slice(0, 16));
  });

  it('tells a load from a bench matrix of the same settings', () => {
    expect(matrixKey({ ...bench, command: 'load' })).not.toBe(matrixKey(bench));
  });
});
