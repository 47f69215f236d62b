import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MatrixVariant } from '../../../src/benchmarking/matrix/expand-matrix.js';
import {
  createMatrixManifest,
  isMatrixDirectory,
  type MatrixDefinition,
  matrixKey,
  readMatrixManifest,
  writeMatrixManifest,
} from '../../../src/benchmarking/matrix/matrix-manifest.js';
import { messages } from '../../../src/messages.js';
import { thrown } from '../../thrown.js';

const bench: MatrixDefinition = {
  axes: [{ name: 'dtype', values: ['fp32', 'q8'] }],
  exclude: [],
  benchConfig: { seed: 0, seq_lens: [16] },
  tasks: ['throughput'],
};

/** A load's settings, keys in no order, one of them unset (`undefined`), one nested. */
const load: MatrixDefinition = {
  command: 'load',
  axes: [],
  exclude: [],
  benchConfig: {
    'base-url': 'http://h/v1',
    '--seed': 0,
    '--warmup': undefined,
    '--rate': [5, 10],
    '--slo': { ttft: 200, e2e: 1000 },
    '--model': null,
  },
  tasks: ['load'],
};

const VARIANTS: readonly MatrixVariant[] = [
  { id: 'fp32', index: 0, axes: { dtype: 'fp32' } },
  { id: 'q8', index: 1, axes: { dtype: 'q8' } },
];

const sha = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);
const tmp = (): string => mkdtempSync(join(tmpdir(), 'dantinox-matrix-manifest-'));

describe('matrixKey', () => {
  it("keeps a bench matrix's key (folders written before loads were sharded still resume and merge)", () => {
    // The canonical JSON of the definition (keys sorted), as the key has always hashed it.
    const canonical =
      '{"axes":[{"name":"dtype","values":["fp32","q8"]}],"benchConfig":{"seed":0,"seq_lens":[16]},"exclude":[],"tasks":["throughput"]}';
    expect(matrixKey(bench)).toBe(sha(canonical));
  });

  it('tells a load from a bench matrix of the same settings', () => {
    expect(matrixKey({ ...bench, command: 'load' })).not.toBe(matrixKey(bench));
  });

  it("hashes a load's settings with keys sorted at every depth, unset ones left out, strings, numbers and null as JSON", () => {
    const canonical =
      '{"axes":[],"benchConfig":{"--model":null,"--rate":[5,10],"--seed":0,"--slo":{"e2e":1000,"ttft":200},"base-url":"http://h/v1"},"command":"load","exclude":[],"tasks":["load"]}';
    expect(matrixKey(load)).toBe(sha(canonical));
  });

  it('ignores the order of keys and what is not part of the definition (shard, assigned variants); not the order of a list', () => {
    const reversed = Object.fromEntries(Object.entries(load.benchConfig).reverse());
    expect(matrixKey({ ...load, benchConfig: reversed })).toBe(matrixKey(load));
    const shard = createMatrixManifest(bench, VARIANTS, { index: 1, count: 2, source: '--shard' }, [
      VARIANTS[1]!,
    ]);
    expect(matrixKey(shard)).toBe(matrixKey(bench));
    expect(matrixKey({ ...load, benchConfig: { ...load.benchConfig, '--rate': [10, 5] } })).not.toBe(
      matrixKey(load),
    );
  });
});

describe('createMatrixManifest', () => {
  it('records the definition, every variant, the shard and the ids assigned to it; no command for a bench', () => {
    const shard = { index: 1, count: 2, source: 'JOB_COMPLETION_INDEX' };
    expect(createMatrixManifest(bench, VARIANTS, shard, [VARIANTS[1]!])).toStrictEqual({
      format: 'dantinox-matrix',
      version: 1,
      key: matrixKey(bench),
      axes: bench.axes,
      exclude: [],
      benchConfig: bench.benchConfig,
      tasks: ['throughput'],
      variants: VARIANTS,
      shard,
      assigned: ['q8'],
    });
  });

  it("keeps a load's command, and the folders a merge came from", () => {
    const m = createMatrixManifest(load, [], null, [], ['shard-0-of-2', 'shard-1-of-2']);
    expect(m).toMatchObject({ command: 'load', shard: null, mergedFrom: ['shard-0-of-2', 'shard-1-of-2'] });
    expect(m.key).toBe(matrixKey(load));
    expect('mergedFrom' in createMatrixManifest(load, [], null, [])).toBe(false);
  });
});

describe('matrix.json on disk', () => {
  const manifest = createMatrixManifest(bench, VARIANTS, null, VARIANTS);

  it('is written as indented JSON (creating the folder) and read back equal', () => {
    const dir = join(tmp(), 'nested', 'run');
    expect(isMatrixDirectory(dir)).toBe(false);
    const path = writeMatrixManifest(dir, manifest);
    expect(path).toBe(join(dir, 'matrix.json'));
    expect(readFileSync(path, 'utf8')).toBe(`${JSON.stringify(manifest, null, 2)}\n`);
    expect(isMatrixDirectory(dir)).toBe(true);
    expect(readMatrixManifest(dir)).toEqual(manifest);
  });

  it('reports a folder it cannot write as IO, naming the file and what is in the way', () => {
    const root = tmp();
    writeFileSync(join(root, 'file'), 'in the way');
    const dir = join(root, 'file', 'run');
    const error = thrown(() => writeMatrixManifest(dir, manifest));
    expect(error.code).toBe('IO');
    expect(error.message).toBe(
      `Cannot write the matrix manifest to "${join(dir, 'matrix.json')}": a file is in the way where a folder is needed; move that file or pass another --out (outDir in TypeScript).`,
    );
  });

  it('refuses a folder without one, and a file that is not JSON or not a matrix manifest', () => {
    const refused = (dir: string) => {
      const error = thrown(() => readMatrixManifest(dir));
      expect(error.code).toBe('IO');
      expect(error.message).toBe(messages.notAMatrixFolder(dir));
      return error;
    };
    expect(refused(tmp()).cause).toBeDefined();
    const written = (text: string): string => {
      const dir = tmp();
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'matrix.json'), text);
      return dir;
    };
    expect(refused(written('{"format":')).cause).toBeInstanceOf(SyntaxError);
    const { variants: _v, ...noVariants } = manifest;
    const { assigned: _a, ...noAssigned } = manifest;
    for (const raw of [
      null,
      { ...manifest, format: 'dantinox-report' },
      noVariants,
      { ...manifest, variants: {} },
      noAssigned,
      { ...manifest, key: 42 },
    ])
      refused(written(JSON.stringify(raw)));
  });
});
