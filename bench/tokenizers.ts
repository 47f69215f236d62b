/**
 * The tokenizer choice of a trained model: byte-level BPE vocabularies of 1,024 … 16,384 ids learned on the Brown
 * corpus's training split (and GPT-2's r50k_base for reference) — how long `trainBpe` takes (median of the
 * repeats, sizes interleaved within each repeat, one core), tokens per byte of the held-out split, the best n-gram
 * baseline's held-out bits per byte (and the ≤ 0.9 × that a model must reach to beat it by 10%), and the embedding
 * parameters (vocab × dim) at dim 256 / 384 / 512. Prints the machine, the load before and after, and a Markdown
 * table.
 *
 * Run with `npm run bench:tokenizers [-- --sizes 1024,2048,4096,8192,16384 --repeats 3]`.
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { ngramBaseline } from '../src/benchmarking/baselines/ngram-baseline.js';
import { brownCorpusText } from '../src/benchmarking/data/brown-corpus.js';
import type { Tokenizer } from '../src/models/tokenizer.js';
import type { BpeTokenizer } from '../src/models/tokenizers/bpe-tokenizer.js';
import { Gpt2Tokenizer } from '../src/models/tokenizers/gpt2-tokenizer.js';
import { trainBpe } from '../src/models/tokenizers/train-bpe.js';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const SIZES = arg('sizes', '1024,2048,4096,8192,16384').split(',').map(Number);
const REPEATS = Number(arg('repeats', '3'));
const DIMS = [256, 384, 512];

const load = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const cpuInfo = readFileSync('/proc/cpuinfo', 'utf8');
const field = (name: string): string => new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm').exec(cpuInfo)?.[1] ?? '?';
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

process.stdout.write(
  `CPU: ${field('model name')} (family ${field('cpu family')}, model ${field('model')}), ${cpus().length} logical CPUs; Node ${process.version}\n`,
);
process.stdout.write(`load average at start: ${load()}\n`);
const train = brownCorpusText('train');
const heldOut = brownCorpusText('held-out');
const heldBytes = Buffer.byteLength(heldOut, 'utf8');

const times = new Map<number, number[]>(SIZES.map((s) => [s, []]));
const tokenizers = new Map<number, BpeTokenizer>();
for (let r = 0; r < REPEATS; r++) {
  for (const size of SIZES) {
    const t0 = performance.now();
    const tok = trainBpe(train, { vocabSize: size });
    times.get(size)?.push(performance.now() - t0);
    tokenizers.set(size, tok);
  }
}

const rows: string[] = [];
const measure = (label: string, tok: Tokenizer, trainMs: number | undefined): void => {
  const result = ngramBaseline(tok);
  const best = result.best;
  const bpb = best.metrics['bits_per_byte'] as number;
  const name = `${['', 'unigram', 'bigram', 'trigram'][best.order]} ${best.smoothing === 'kneser-ney' ? 'KN' : 'add-k'}`;
  const embedding = DIMS.map((d) => `${((tok.vocabSize * d) / 1e6).toFixed(2)} M`).join(' / ');
  rows.push(
    `| ${label} | ${trainMs === undefined ? '—' : (trainMs / 1000).toFixed(2)} | ${(result.heldOut.tokens / heldBytes).toFixed(4)} | ${bpb.toFixed(4)} (${name}) | ${(0.9 * bpb).toFixed(3)} | ${embedding} |`,
  );
  process.stderr.write(`${label} done (load ${load()})\n`);
};
for (const size of SIZES)
  measure(`BPE ${size}`, tokenizers.get(size) as BpeTokenizer, median(times.get(size) as number[]));
measure('GPT-2 r50k (50,257)', new Gpt2Tokenizer(), undefined);

process.stdout.write(
  [
    '',
    `| tokenizer | trainBpe s (median of ${REPEATS}) | held-out tokens/byte | best n-gram held-out bits/byte | 0.9 × best | embedding params at dim ${DIMS.join(' / ')} |`,
    '|---|---:|---:|---:|---:|---:|',
    ...rows,
    '',
  ].join('\n'),
);
process.stdout.write(`load average at end: ${load()}\n`);
