/**
 * `serveModel`: opens the selected model and serves it (the URL answers), knows the end-of-sequence token of each
 * tokenizer, refuses a diffusion model before listening, and frees the model when stopped. On llama.cpp it opens
 * the model with contexts of `maxBatch` rows (continuous batching), and without row batching when batching is
 * static.
 */
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import { GPT2_END_OF_TEXT, type Model } from '../../src/models/index.js';
import { Gpt2Tokenizer } from '../../src/models/tokenizers/gpt2-tokenizer.js';
import { eosTokenId, serveModel } from '../../src/runs/serve-model.js';

describe('serveModel', () => {
  it('serves a built-in preset on a free loopback port until stopped', async () => {
    const serving = await serveModel({ config: 'tiny', seed: 0, threads: 1 }, { maxBatch: 2 }, process.cwd());
    try {
      expect(serving.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(serving.server.name).toBe('tiny');
      expect(serving.opened.randomWeights).toBe(true);
      const res = await fetch(`${serving.url}/v1/models`);
      expect(((await res.json()) as { data: { id: string }[] }).data[0]?.id).toBe('tiny');
    } finally {
      expect(await serving.stop(1000)).toBe(true);
    }
    await expect(fetch(`${serving.url}/health`)).rejects.toThrow();
  });

  it('batches llama.cpp continuously, three requests of different lengths together, or statically when asked', async () => {
    const serving = await serveModel(
      { config: 'tiny', engine: 'llama.cpp', seed: 0, threads: 1 },
      { maxBatch: 3 },
      process.cwd(),
    );
    try {
      expect(serving.server.scheduler.batching).toBe('continuous');
      const { model } = serving.opened;
      // Three rows prefilled one by one land in one context (of 3 sequences), so they join.
      const rows = model.rowBatching;
      const states = await Promise.all(
        [[1, 2], [3, 4, 5], [6]].map(
          async (p) => (await model.prefill(Int32Array.from(p), { batch: 1, seq: p.length })).state,
        ),
      );
      const joined = rows?.joinRows(states);
      expect(joined === undefined ? undefined : rows?.rowLengths(joined)).toEqual([2, 3, 1]);
      joined?.dispose();
    } finally {
      await serving.stop(1000);
    }
    const statically = await serveModel(
      { config: 'tiny', engine: 'llama.cpp', seed: 0, threads: 1 },
      { maxBatch: 3, batching: 'static' },
      process.cwd(),
    );
    try {
      expect(statically.server.scheduler.batching).toBe('static');
      expect(statically.opened.model.rowBatching).toBeUndefined();
    } finally {
      await statically.stop(1000);
    }
  });

  it('refuses a diffusion model with INVALID_OPTION', async () => {
    const error = await serveModel(
      { config: 'tiny', paradigm: 'diffusion', seed: 0 },
      {},
      process.cwd(),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DantinoxError);
    expect((error as DantinoxError).code).toBe('INVALID_OPTION');
    expect((error as DantinoxError).message).toContain('paradigm ar');
  });

  it('takes <|endoftext|> as the end of GPT-2 vocabularies and none for bytes', () => {
    const withTokenizer = (tokenizer: Model['tokenizer']) => ({ tokenizer }) as unknown as Model;
    expect(eosTokenId(withTokenizer(new Gpt2Tokenizer()), { seed: 0 }, process.cwd())).toBe(GPT2_END_OF_TEXT);
    expect(eosTokenId(withTokenizer(undefined), { seed: 0 }, process.cwd())).toBeUndefined();
  });
});
