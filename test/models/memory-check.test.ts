import { describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { checkFitsInMemory, forwardActivationBytes } from '../../src/models/memory-check.js';
import { ModelConfig } from '../../src/models/model-config.js';

describe('forwardActivationBytes', () => {
  it('counts logits, a dozen dim-wide intermediates, the FFN width and three copies of the attention scores, in fp32', () => {
    const config = ModelConfig.parse({ dim: 8, n_heads: 2, num_blocks: 3, vocab_size: 100, expansion: 2.5 });
    // Per token: 100 logits + 12 × 8 + 2.5 × 8 = 216 values; per sequence position 3 copies × 2 heads × 5 scores
    // more: 4 bytes × batch 3 × seq 5 × (216 + 30) = 14,760.
    expect(forwardActivationBytes(config, 3, 5)).toBe(14_760);
    // Batch and sequence enter differently: the score matrix grows with seq², not with the batch.
    expect(forwardActivationBytes(config, 5, 3)).toBe(4 * 5 * 3 * (216 + 3 * 2 * 3));
  });
});

describe('checkFitsInMemory', () => {
  it('accepts exactly the available memory and refuses one byte more, with the estimate', () => {
    expect(() => checkFitsInMemory('the model', 1000, { availableBytes: 1000 })).not.toThrow();
    expect(() => checkFitsInMemory('the model', 1001, { availableBytes: 1000 })).toThrow(
      messages.doesNotFitInMemory('the model', 1001, 1000, true),
    );
  });

  it('mentions --force only when the caller has one', () => {
    const refusal = (canForce?: boolean): string => {
      try {
        checkFitsInMemory('a cell', 2, {
          availableBytes: 1,
          ...(canForce === undefined ? {} : { canForce }),
        });
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refusal()).toBe(messages.doesNotFitInMemory('a cell', 2, 1, true));
    expect(refusal(false)).toBe(messages.doesNotFitInMemory('a cell', 2, 1, false));
    expect(refusal(false)).not.toContain('--force');
  });

  it('force tries anyway, whatever the estimate', () => {
    expect(() =>
      checkFitsInMemory('the model', Number.POSITIVE_INFINITY, { force: true, availableBytes: 0 }),
    ).not.toThrow();
  });
});
