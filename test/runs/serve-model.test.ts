/**
 * `serveModel`: opens the selected model and serves it (the URL answers), knows the end-of-sequence token of each
 * tokenizer, refuses a diffusion model before listening, and frees the model when stopped.
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
