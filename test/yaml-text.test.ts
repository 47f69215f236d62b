import { describe, expect, it } from 'vitest';
import { parseYamlText } from '../src/yaml-text.js';

describe('parseYamlText', () => {
  it('returns the document value', () => {
    expect(parseYamlText('dim: 32\nseq_lens: [1, 2]\n')).toEqual({ dim: 32, seq_lens: [1, 2] });
  });

  it('refuses what the parser only warns about (an unresolved tag) instead of printing a Node.js warning', () => {
    expect(() => parseYamlText('!H 3')).toThrow(/Unresolved tag: !H/);
  });

  it('refuses a syntax error and an alias bomb', () => {
    expect(() => parseYamlText('a: [1, 2')).toThrow();
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 8; i++)
      bomb.push(
        `${'bcdefghi'[i]}: &${'bcdefghi'[i]} [${new Array(10).fill(`*${i === 0 ? 'a' : 'bcdefghi'[i - 1]}`).join(', ')}]`,
      );
    expect(() => parseYamlText(bomb.join('\n'))).toThrow(/alias/i);
  });
});
