/**
 * `dantinox bench` with neither --config nor --model runs the trained preset `brown` with its shipped weights and
 * BPE: the summary says `trained weights`, gives perplexity and bits per byte and no random-weights note; llama.cpp
 * runs the same weights (exported to GGUF with the same BPE) to the same loss.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { benchPerplexity } from './bench-model-perplexity.js';

const cwd = mkdtempSync(join(tmpdir(), 'dx-brown-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** The default bench's perplexity task, small: one batch of two 64-token windows. */
const bench = (out: string, extra: readonly string[] = []) =>
  benchPerplexity(
    cwd,
    ['--eval-batches', '1', '--eval-seq-len', '64', '--eval-batch-size', '2', ...extra],
    out,
  );

describe('the default bench', () => {
  it('runs the trained brown preset on ONNX Runtime, and llama.cpp gives the same loss', async () => {
    const ort = await bench('ort');
    expect(ort.printed).toContain(
      'Model: brown (built-in preset, trained weights): dim 256, 8 heads, 6 blocks',
    );
    expect(ort.printed).toMatch(/perplexity +bits_per_byte +\d/);
    expect(ort.printed).not.toContain(messages.randomWeightsNote(['perplexity']) ?? 'none');
    expect(ort.cells['model']).toBe('brown');
    const loss = Number(ort.cells['eval_loss']);
    // Trained: far below the uniform guess over 4,096 ids (ln 4096 = 8.3 nats).
    expect(loss).toBeLessThan(Math.log(4096));
    const llama = await bench('llama', ['--engine', 'llama.cpp']);
    expect(llama.printed).toContain('trained weights');
    expect(Number(llama.cells['eval_loss'])).toBeCloseTo(loss, 2);
  }, 300_000);
});
