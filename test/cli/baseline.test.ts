/**
 * `dantinox baseline`: one line per n-gram with the numbers `ngramBaseline` gives for the same tokenizer and
 * texts, the best marked; `--json` is the library's result; bad flags and files fail in one line.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ngramBaseline } from '../../src/benchmarking/baselines/ngram-baseline.js';
import { brownCorpusText } from '../../src/benchmarking/data/brown-corpus.js';
import { loadHfTokenizer } from '../../src/models/hf/hf-tokenizer.js';
import { saveHfTokenizerFiles } from '../../src/models/hf/hf-tokenizer-json.js';
import { trainBpe } from '../../src/models/tokenizers/train-bpe.js';
import type { CliRun } from './built-cli.js';
import { runCliInProcess } from './capture-io.js';

const TRAIN = brownCorpusText('train').slice(0, 100_000);
const HELD_OUT = brownCorpusText('held-out').slice(0, 10_000);
const cwd = mkdtempSync(join(tmpdir(), 'dx-baseline-'));
writeFileSync(join(cwd, 'train.txt'), TRAIN);
writeFileSync(join(cwd, 'held.txt'), HELD_OUT);
saveHfTokenizerFiles(trainBpe(TRAIN, { vocabSize: 400 }).tokenizerFiles(), join(cwd, 'tok'));
const FILES = ['--train', 'train.txt', '--held-out', 'held.txt'];

const run = (argv: string[]): Promise<CliRun> => runCliInProcess(argv, cwd);

describe('dantinox baseline', () => {
  const library = ngramBaseline(loadHfTokenizer(join(cwd, 'tok')), {
    train: { text: TRAIN, name: 'train.txt' },
    heldOut: { text: HELD_OUT, name: 'held.txt' },
  });

  it('prints the texts, then one line per model with the library numbers, the best marked', async () => {
    const r = await run(['baseline', '--tokenizer', 'tok/tokenizer.json', ...FILES]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('N-gram baseline of tokenizer tok/tokenizer.json (hf:BPE, 400 ids)');
    expect(lines[1]).toMatch(
      /^ {2}train: {4}train\.txt, 100,000 bytes, [\d,]+ tokens \(k and discounts chosen on its dev slice\)$/,
    );
    expect(lines[2]).toBe(
      `  held-out: held.txt, 10,000 bytes, ${library.heldOut.tokens.toLocaleString('en-US')} tokens (${(library.heldOut.tokens - 1).toLocaleString('en-US')} scored)`,
    );
    expect(lines[4]).toMatch(/^model\s+smoothing\s+bits\/byte\s+bits\/token\s+perplexity\s+parameters$/);
    const rows = lines.slice(5);
    expect(
      rows.map((l) =>
        l
          .split(/\s{2,}/)
          .slice(0, 2)
          .join(' '),
      ),
    ).toEqual([
      'unigram add-k',
      'unigram Kneser-Ney',
      'bigram add-k',
      'bigram Kneser-Ney',
      'trigram add-k',
      'trigram Kneser-Ney',
    ]);
    library.rows.forEach((row, i) => {
      const cells = (rows[i] as string).split(/\s{2,}/);
      expect(cells[2]).toBe((row.metrics['bits_per_byte'] as number).toFixed(4));
      expect(cells[3]).toBe((row.metrics['bits_per_token'] as number).toFixed(4));
      expect((rows[i] as string).endsWith('← best')).toBe(row === library.best);
    });
  });

  it('--json prints the library result; --orders and --smoothing choose the rows', async () => {
    const r = await run(['baseline', '--tokenizer', 'tok', ...FILES, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(JSON.stringify(library)));
    const one = await run([
      'baseline',
      '--tokenizer',
      'tok',
      ...FILES,
      '--orders',
      '3',
      '--smoothing',
      'kneser-ney',
    ]);
    expect(one.code).toBe(0);
    expect(one.stdout.trimEnd().split('\n').slice(5)).toHaveLength(1);
  });

  it('refuses an unknown order, a repeated smoothing, a missing tokenizer or text file, in one line', async () => {
    const orders = await run(['baseline', '--orders', '2,4']);
    expect(orders.code).toBe(2);
    expect(orders.stderr.split('\n')[0]).toBe(
      `error: option '--orders <list>' argument '2,4' is invalid. "2,4" is not a comma-separated list of 1, 2, 3, each once, e.g. 1,2,3.`,
    );
    const twice = await run(['baseline', '--smoothing', 'add-k,add-k']);
    expect(twice.code).toBe(2);
    const tokenizer = await run(['baseline', '--tokenizer', 'nowhere/tokenizer.json']);
    expect(tokenizer.code).toBe(2);
    expect(tokenizer.stderr).toMatch(/^error: Hugging Face model folder ".*nowhere" has no tokenizer\.json/);
    const text = await run(['baseline', '--tokenizer', 'bytes', '--train', 'missing.txt']);
    expect(text.code).toBe(2);
    expect(text.stderr).toMatch(/^error: Cannot read training file ".*missing\.txt": there is no such file/);
  });
});
