import { describe, expect, it } from 'vitest';
import { withReference } from '../../../src/benchmarking/tasks/with-reference.js';
import { charTokenizer, FakeModel } from '../fake-model.js';

const P = [
  [0.5, 0.5],
  [0.5, 0.5],
];

/** A fake model that counts its disposals. */
function countedModel(): { model: FakeModel; disposed: () => number } {
  const model = new FakeModel({ tokenizer: charTokenizer('ab'), bigram: P });
  let count = 0;
  model.dispose = async () => {
    count++;
  };
  return { model, disposed: () => count };
}

describe('withReference', () => {
  it('passes a given model through and leaves it to its owner', async () => {
    const ref = countedModel();
    const model = new FakeModel({ tokenizer: charTokenizer('ab'), bigram: P });
    const seen = await withReference(ref.model, model, async (reference) => reference);
    expect([seen === ref.model, ref.disposed()]).toEqual([true, 0]);
  });

  it('opens a factory once for the model and disposes what it made after use', async () => {
    const ref = countedModel();
    const model = new FakeModel({ tokenizer: charTokenizer('ab'), bigram: P });
    const asked: unknown[] = [];
    const result = await withReference(
      async (m) => {
        asked.push(m);
        return ref.model;
      },
      model,
      async (reference) => {
        expect(ref.disposed()).toBe(0);
        return reference === ref.model ? 'made' : 'other';
      },
    );
    expect([result, asked.length, asked[0] === model, ref.disposed()]).toEqual(['made', 1, true, 1]);
  });

  it('disposes a made reference when the use throws, and rethrows', async () => {
    const ref = countedModel();
    const model = new FakeModel({ tokenizer: charTokenizer('ab'), bigram: P });
    const failing = withReference(
      async () => ref.model,
      model,
      async () => {
        throw new Error('scoring failed');
      },
    );
    await expect(failing).rejects.toThrow('scoring failed');
    expect(ref.disposed()).toBe(1);
  });

  it('gives undefined when there is no reference', async () => {
    const model = new FakeModel({ tokenizer: charTokenizer('ab'), bigram: P });
    expect(await withReference(undefined, model, async (reference) => reference)).toBeUndefined();
  });
});
