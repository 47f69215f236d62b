/**
 * The quality tasks on real engines: the choice task's batched, right-padded scoring against each row scored
 * alone, and kld's bootstrap intervals — on the built-in model (ONNX Runtime), a Hugging Face ONNX folder and a
 * GGUF file run by llama.cpp.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../../src/benchmarking/config.js';
import { brownSentences } from '../../../src/benchmarking/data/brown-corpus.js';
import { buildChoiceItems } from '../../../src/benchmarking/tasks/choice-items.js';
import { ChoiceTask, choiceLogLikelihoods } from '../../../src/benchmarking/tasks/choice-task.js';
import { KldTask } from '../../../src/benchmarking/tasks/kld-task.js';
import { createLlamaCppModel } from '../../../src/models/engines/llama-cpp/create-llama-cpp-model.js';
import { createModel, loadHfModel, type Model, ModelConfig } from '../../../src/models/index.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { logSoftmax } from '../../../src/models/paradigms/log-probs.js';
import type { Tokenizer } from '../../../src/models/tokenizer.js';
import { builtinTokenizer } from '../../../src/models/tokenizers/builtin-tokenizer.js';
import { Rng } from '../../../src/rng.js';
import { writeTinyHfModel } from '../../models/hf/fixtures.js';

const open: Model[] = [];
const cleanups: (() => void)[] = [];
afterAll(async () => {
  for (const m of open) await m.dispose();
  for (const c of cleanups) c();
});

const ITEMS = buildChoiceItems(brownSentences('held-out'), {
  items: 6,
  distractors: 3,
  rng: new Rng(5),
  source: 'brown',
});

/** Σ log p of the continuation's tokens, each row run alone (batch 1, no padding), log-softmax in float64. */
async function aloneLogLikelihood(model: Model, tokenizer: Tokenizer, context: string, choice: string) {
  const ctx = tokenizer.encode(context);
  const cont = tokenizer.encode(` ${choice}`);
  const ids = [...ctx, ...cont].slice(-(model.config.maxContext + 1));
  const logits = await model.forward(Int32Array.from(ids.slice(0, -1)), { batch: 1, seq: ids.length - 1 });
  const v = logits.dims[2];
  let sum = 0;
  for (let j = Math.max(0, ids.length - cont.length - 1); j + 1 < ids.length; j++)
    sum += logSoftmax(logits.data.subarray(j * v, (j + 1) * v))[ids[j + 1] as number] as number;
  return sum;
}

async function models(): Promise<Record<string, Model>> {
  const config = ModelConfig.preset('tiny');
  const ort = await createModel(config, { seed: 3, threads: 2 });
  const gguf = await createLlamaCppModel(ort, { dtype: 'fp32', threads: 2 });
  const hf = writeTinyHfModel('llama', { seed: 3 });
  cleanups.push(hf.cleanup);
  const folder = await loadHfModel(hf.dir, { threads: 2 });
  open.push(ort, gguf, folder);
  return { 'built-in (ort)': ort, 'GGUF (llama.cpp)': gguf, 'HF ONNX folder': folder };
}

describe('the quality tasks on real engines', () => {
  it('choice: one padded forward per item gives each row’s own log-likelihood (1e-3), on every engine', {
    timeout: 180_000,
  }, async () => {
    for (const [name, model] of Object.entries(await models())) {
      const tokenizer = model.tokenizer ?? (builtinTokenizer(model.config) as Tokenizer);
      for (const [k, item] of ITEMS.entries()) {
        const batched = await choiceLogLikelihoods(model, tokenizer, item);
        for (const [i, choice] of item.choices.entries()) {
          const alone = await aloneLogLikelihood(model, tokenizer, item.context, choice);
          // The values in the message: a failure seen once under load has not been reproduced since.
          const where = `${name}, item ${k}, choice ${i}: batched ${batched[i]}, alone ${alone}`;
          expect(Math.abs((batched[i] as number) - alone), where).toBeLessThan(1e-3);
        }
      }
      const config = BenchmarkConfig.parse({ choiceItems: 16, ciResamples: 200 });
      const r = await new ChoiceTask({ reference: model }).run(
        new ARParadigm(model.config),
        model,
        config,
        new Rng(0),
      );
      // Against itself: no discordant item. Random weights: accuracy is a fraction of 16 items.
      expect(r.metrics, name).toMatchObject({ items: 16, mcnemar_b: 0, mcnemar_c: 0, mcnemar_p: 1 });
      expect(r.metrics['reference_accuracy'], name).toBe(r.metrics['accuracy']);
      expect((r.metrics['accuracy'] as number) * 16, name).toBe(
        Math.round((r.metrics['accuracy'] as number) * 16),
      );
    }
  });

  it('kld: q4 GGUF on llama.cpp against fp32 ONNX Runtime — an interval above 0 around the mean', {
    timeout: 180_000,
  }, async () => {
    const config = ModelConfig.preset('tiny');
    const reference = await createModel(config, { seed: 3, threads: 2 });
    const q4 = await createLlamaCppModel(reference, { dtype: 'q4', threads: 2 });
    open.push(reference, q4);
    const r = await new KldTask({ reference }).run(
      new ARParadigm(q4.config),
      q4,
      BenchmarkConfig.parse({ evalBatches: 4, evalSeqLen: 32, evalBatchSize: 2, ciResamples: 300 }),
      new Rng(0),
    );
    const m = r.metrics as Record<string, number>;
    expect(m['kld_mean_lo']).toBeGreaterThan(0);
    expect(m['kld_mean_lo']).toBeLessThanOrEqual(m['kld_mean'] as number);
    expect(m['kld_mean_hi']).toBeGreaterThanOrEqual(m['kld_mean'] as number);
    expect(m['top1_agreement_lo']).toBeLessThanOrEqual(m['top1_agreement'] as number);
    expect(m['ppl_ratio_hi']).toBeGreaterThanOrEqual(m['ppl_ratio'] as number);
  });
});
