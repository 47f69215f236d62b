import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { profileModelCalls } from '../../../../src/models/engines/ort/index.js';
import {
  createModel,
  exportHfModel,
  initWeights,
  loadHfModel,
  ModelConfig,
} from '../../../../src/models/index.js';
import { OP_CATEGORIES, parseOrtProfile, timeBreakdown } from '../../../../src/profiling/index.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const calls = {
  promptIds: Int32Array.from({ length: 12 }, (_, i) => (i * 37) % 256),
  decodeId: Int32Array.of(7),
};

/** Checks a real trace: warm-up prefill and decode, then the profiled pair, with sane breakdowns. */
function checkTrace(trace: unknown): void {
  const runs = parseOrtProfile(trace);
  expect(runs).toHaveLength(4);
  for (const run of runs.slice(2)) {
    const b = timeBreakdown(run);
    expect(b.kernelMs).toBeGreaterThan(0);
    expect(b.kernelMs).toBeLessThanOrEqual(b.runMs);
    expect(b.categoryMs.matmul).toBeGreaterThan(0);
    expect(b.categoryMs.norm).toBeGreaterThan(0);
    const sum = OP_CATEGORIES.reduce((a, c) => a + b.categoryMs[c], 0);
    expect(sum).toBeCloseTo(b.kernelMs, 9);
  }
}

describe('profileModelCalls (real ONNX Runtime session, tiny preset)', () => {
  it('built-in model: the trace of one warm-up round and one profiled prefill + decode step', async () => {
    let prefix = '';
    const trace = await profileModelCalls(async (p) => {
      prefix = p;
      return createModel('tiny', { threads: 1, seed: 0, profileFilePrefix: p });
    }, calls);
    checkTrace(trace);
    // The built-in graph spells attention out: its score softmax is a Softmax node, its norms are RMSNorm kernels.
    const decode = timeBreakdown(parseOrtProfile(trace)[3]!);
    expect(decode.categoryMs.softmax).toBeGreaterThan(0);
    expect(prefix).toMatch(/dantinox-profile-/);
    expect(existsSync(dirname(prefix))).toBe(false); // the trace's temporary folder is gone
  });

  it('Hugging Face folder: loadHfModel takes profileFilePrefix too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-profile-hf-'));
    dirs.push(dir);
    const config = ModelConfig.preset('tiny');
    exportHfModel(config, initWeights(config, 0), dir);
    const trace = await profileModelCalls(
      (p) => loadHfModel(dir, { threads: 1, profileFilePrefix: p }),
      calls,
    );
    checkTrace(trace);
  });
});
