import { describe, expect, it } from 'vitest';
import {
  BROWN_HELD_OUT_EVERY,
  brownCorpusText,
  brownDocuments,
  inBrownSplit,
} from '../../../src/benchmarking/data/brown-corpus.js';

describe('the Brown corpus split', () => {
  it('holds out every tenth document, from the tenth', () => {
    expect(BROWN_HELD_OUT_EVERY).toBe(10);
    const held = Array.from({ length: 30 }, (_, i) => i).filter((i) => inBrownSplit(i, 'held-out'));
    expect(held).toEqual([9, 19, 29]);
    for (let i = 0; i < 30; i++) {
      expect(inBrownSplit(i, 'train')).toBe(!held.includes(i));
      expect(inBrownSplit(i, 'all')).toBe(true);
    }
  });

  it('splits the 500 documents 450 / 50, disjoint, in file order', () => {
    const docs = brownDocuments();
    expect(docs).toHaveLength(500);
    const train = brownCorpusText('train');
    const heldOut = brownCorpusText('held-out');
    expect(heldOut.split('\n\n')).toHaveLength(50);
    expect(train.split('\n\n')).toHaveLength(450);
    // ca10 is the first held-out document, ca01 the first training one.
    expect(heldOut.startsWith(docs[9] as string)).toBe(true);
    expect(train.startsWith(docs[0] as string)).toBe(true);
    expect(train.includes(docs[9] as string)).toBe(false);
    expect(train.length + heldOut.length + 2).toBe(brownCorpusText().length);
    // About a tenth of the text is held out.
    expect(heldOut.length / brownCorpusText().length).toBeGreaterThan(0.08);
    expect(heldOut.length / brownCorpusText().length).toBeLessThan(0.12);
  });
});
