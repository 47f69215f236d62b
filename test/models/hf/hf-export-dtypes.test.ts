import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportHfModel } from '../../../src/models/hf/hf-export.js';
import { loadHfModel } from '../../../src/models/hf/hf-model.js';
import { ModelConfig } from '../../../src/models/model-config.js';
import { BUILTIN_DTYPES } from '../../../src/models/onnx/precision.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { initWeights } from '../../../src/models/weights.js';
import { Rng } from '../../../src/rng.js';

const PROMPT = [5, 17, 42, 99, 7, 3];
const NEW = 8;

describe('exportHfModel dtypes: transformers.js 4.3.2 loads every file with its dtype option', () => {
  it('writes one file per dtype; transformers.js and dantinox pick the same greedy tokens from each', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dantinox-export-dtypes-'));
    const folder = join(root, 'tiny-gpt2');
    // gpt2 layout (learned positions, LayerNorm, GELU MLP) with the byte tokenizer.
    const config = ModelConfig.parse({
      dim: 64,
      nHeads: 4,
      numBlocks: 2,
      vocabSize: 256,
      maxContext: 64,
      posEncoding: 'learned',
      norm: 'layernorm',
      useSwiglu: false,
      activation: 'gelu',
      weightTying: true,
    });
    const result = exportHfModel(config, initWeights(config, 11), folder, { dtypes: BUILTIN_DTYPES });
    expect(result.files).toEqual({
      fp32: 'onnx/model.onnx',
      fp16: 'onnx/model_fp16.onnx',
      q8: 'onnx/model_quantized.onnx',
      q4: 'onnx/model_q4.onnx',
    });
    const tjs = await import('@huggingface/transformers');
    tjs.env.allowRemoteModels = false;
    tjs.env.allowLocalModels = true;
    tjs.env.localModelPath = `${dirname(folder)}/`;
    const ids = new tjs.Tensor('int64', BigInt64Array.from(PROMPT, BigInt), [1, PROMPT.length]);
    const mask = new tjs.Tensor('int64', new BigInt64Array(PROMPT.length).fill(1n), [1, PROMPT.length]);
    for (const dtype of BUILTIN_DTYPES) {
      const theirs = await tjs.AutoModelForCausalLM.from_pretrained(basename(folder), {
        device: 'cpu',
        dtype,
        session_options: { intraOpNumThreads: 1 },
      });
      const out = (await theirs.generate({
        inputs: ids,
        attention_mask: mask,
        max_new_tokens: NEW,
        min_new_tokens: NEW,
        do_sample: false,
      })) as { tolist(): bigint[][] };
      await theirs.dispose();
      const tjsTokens = (out.tolist()[0] ?? []).slice(PROMPT.length).map(Number);

      const ours = await loadHfModel(folder, { dtype, threads: 1 });
      const generated = await new ARParadigm(ours.config).generate(
        ours,
        Int32Array.from(PROMPT),
        { batch: 1, seq: PROMPT.length },
        new Rng(0),
        { maxNewTokens: NEW, greedy: true },
      );
      await ours.dispose();
      expect([dtype, ...generated.tokens.subarray(PROMPT.length)]).toEqual([dtype, ...tjsTokens]);
    }
  }, 120_000);
});
