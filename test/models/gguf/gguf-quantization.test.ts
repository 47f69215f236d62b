/** `ggufQuantizationInfo` on hand-made tensor lists with known answers. */
import { describe, expect, test } from 'vitest';
import { ggufQuantizationInfo } from '../../../src/models/gguf/gguf-quantization.js';

const t = (name: string, type: string, dims = 2) => ({ name, type, dims });

describe('ggufQuantizationInfo', () => {
  test('an all-F32 file (1-D norms in any type) has none', () => {
    expect(
      ggufQuantizationInfo([t('token_embd.weight', 'F32'), t('blk.0.attn_norm.weight', 'F16', 1)]),
    ).toBeUndefined();
  });

  test("dantinox's types by dantinox's names, others by ggml's; the head is output.weight; Q4_0 blocks of 32", () => {
    const info = ggufQuantizationInfo([
      t('token_embd.weight', 'Q4_K'),
      t('blk.0.attn_q.weight', 'Q4_0'),
      t('blk.0.attn_k.weight', 'Q6_K'),
      t('blk.0.ffn_down.weight', 'Q6_K'),
      t('blk.0.attn_norm.weight', 'F32', 1),
      t('blk.1.attn_q.weight', 'F32'),
      t('output.weight', 'Q8_0'),
    ]);
    expect(info).toEqual({
      dtype: 'Q6_K', // two of the blocks' three listed matrices; output and token_embd are not blocks
      headDtype: 'q8',
      matrices: {
        'token_embd.weight': 'Q4_K',
        'blk.0.attn_q.weight': 'q4',
        'blk.0.attn_k.weight': 'Q6_K',
        'blk.0.ffn_down.weight': 'Q6_K',
        'output.weight': 'q8',
      },
      blockSize: 32,
    });
  });

  test('a tied head is token_embd; a float head is fp32 or fp16; no Q4_0, no block size', () => {
    expect(ggufQuantizationInfo([t('token_embd.weight', 'F16'), t('blk.0.attn_q.weight', 'Q8_0')])).toEqual({
      dtype: 'q8',
      headDtype: 'fp16',
      matrices: { 'token_embd.weight': 'fp16', 'blk.0.attn_q.weight': 'q8' },
    });
    expect(
      ggufQuantizationInfo([
        t('token_embd.weight', 'Q8_0'),
        t('output.weight', 'F32'),
        t('blk.0.ffn_up.weight', 'Q8_0'),
      ])?.headDtype,
    ).toBe('fp32');
  });

  test('boundaries: the tied head is token_embd by name, wherever it is; no head tensor at all is fp32', () => {
    const tied = ggufQuantizationInfo([t('blk.0.attn_q.weight', 'Q8_0'), t('token_embd.weight', 'Q4_0')]);
    expect(tied?.headDtype).toBe('q4');
    expect(ggufQuantizationInfo([t('blk.0.attn_q.weight', 'Q8_0')])?.headDtype).toBe('fp32');
  });
});
