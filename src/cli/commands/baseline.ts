/**
 * `dantinox baseline`: the held-out bits per byte of unigram, bigram and trigram models (add-k and Kneser–Ney) of
 * a tokenizer's ids — the bar a trained model must clear.
 *
 * @packageDocumentation
 */
import { isAbsolute, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import type { NgramBaselineOptions, NgramBaselineRow } from '../../benchmarking/baselines/ngram-baseline.js';
import { NGRAM_ORDERS, type NgramOrder } from '../../models/ngram/ngram-counts.js';
import { NGRAM_SMOOTHINGS, type NgramSmoothing } from '../../models/ngram/ngram-model.js';
import type { Tokenizer } from '../../models/tokenizer.js';
import { formatSignificant } from '../../number-format.js';
import { readTextFile } from '../../text-file.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import { formatInteger } from '../format-quantity.js';
import { choiceList } from '../option-parsers.js';

/** Parsed options of `dantinox baseline`. */
interface BaselineCliOptions {
  readonly tokenizer: string;
  readonly train?: string;
  readonly heldOut?: string;
  readonly orders: NgramOrder[];
  readonly smoothing: NgramSmoothing[];
  readonly json?: boolean;
}

const EXAMPLES = `
Examples:
  $ dantinox baseline                                              # GPT-2's tokenizer, Brown train → held-out
  $ dantinox baseline --tokenizer tokenizers/bpe-4096/tokenizer.json
  $ dantinox baseline --tokenizer bytes --orders 3 --smoothing kneser-ney
  $ dantinox baseline --tokenizer my-model --train train.txt --held-out valid.txt --json

Each model is fitted on --train; add-k's k and Kneser-Ney's discounts are chosen on its dev slice (every tenth
of 100 blocks), never on --held-out. Bits per byte is the perplexity task's: every held-out token after the first
is scored, and Σ -ln p is divided by ln 2 and the UTF-8 bytes of the scored tokens.
`;

const ORDER_NAMES: Readonly<Record<NgramOrder, string>> = { 1: 'unigram', 2: 'bigram', 3: 'trigram' };
const SMOOTHING_NAMES: Readonly<Record<NgramSmoothing, string>> = {
  'add-k': 'add-k',
  'kneser-ney': 'Kneser-Ney',
};

/** Registers `dantinox baseline` on `program`. */
export function registerBaselineCommand(program: Command, ctx: CommandContext): Command {
  return program
    .command('baseline')
    .summary("held-out bits per byte of n-gram models (add-k, Kneser-Ney) of a tokenizer's ids")
    .description(
      "Fits unigram, bigram and trigram models of a tokenizer's ids (add-k and interpolated modified Kneser-Ney, smoothing chosen on a dev slice of the training text) and prints their held-out bits per token and bits per byte, as the perplexity task defines them, one line per model, the best marked.",
    )
    .option(
      '-t, --tokenizer <file|folder|name>',
      'a tokenizer.json (or its folder), or gpt2 (r50k_base) or bytes (UTF-8 bytes)',
      'gpt2',
    )
    .option('--train <file>', "UTF-8 text to fit on (default: the Brown corpus's training split)")
    .option('--held-out <file>', "UTF-8 text to score (default: the Brown corpus's held-out split)")
    .addOption(
      new Option('--orders <list>', 'n-gram orders, from 1, 2, 3')
        .argParser(choiceList(NGRAM_ORDERS, '1,2,3'))
        .default([...NGRAM_ORDERS], NGRAM_ORDERS.join(',')),
    )
    .addOption(
      new Option('--smoothing <list>', `smoothings, from ${NGRAM_SMOOTHINGS.join(', ')}`)
        .argParser(choiceList(NGRAM_SMOOTHINGS, 'add-k,kneser-ney'))
        .default([...NGRAM_SMOOTHINGS], NGRAM_SMOOTHINGS.join(',')),
    )
    .option('--json', 'print the result as JSON')
    .addHelpText('after', EXAMPLES)
    .action(async (options: BaselineCliOptions) => {
      ctx.exitCode = await runBaseline(options, ctx);
    });
}

/** The tokenizer `--tokenizer` names. */
async function openTokenizer(spec: string, cwd: string): Promise<Tokenizer> {
  const models = await import('../../models/index.js');
  if (spec === 'gpt2') return new models.Gpt2Tokenizer();
  if (spec === 'bytes') return new models.ByteTokenizer();
  return models.loadHfTokenizer(isAbsolute(spec) ? spec : resolve(cwd, spec));
}

async function runBaseline(options: BaselineCliOptions, ctx: CommandContext): Promise<ExitCode> {
  const { io } = ctx;
  const at = (p: string): string => (isAbsolute(p) ? p : resolve(io.cwd, p));
  const tokenizer = await openTokenizer(options.tokenizer, io.cwd);
  const { ngramBaseline } = await import('../../benchmarking/baselines/ngram-baseline.js');
  const request: NgramBaselineOptions = {
    orders: options.orders,
    smoothings: options.smoothing,
    ...(options.train === undefined
      ? {}
      : { train: { text: readTextFile(at(options.train), 'training'), name: options.train } }),
    ...(options.heldOut === undefined
      ? {}
      : { heldOut: { text: readTextFile(at(options.heldOut), 'held-out'), name: options.heldOut } }),
  };
  const result = ngramBaseline(tokenizer, request);
  if (options.json === true) {
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return ExitCode.ok;
  }
  const { train, heldOut } = result;
  const head = [
    `N-gram baseline of tokenizer ${options.tokenizer} (${result.tokenizer}, ${formatInteger(result.vocabSize)} ids)`,
    `  train:    ${train.name}, ${formatInteger(train.bytes)} bytes, ${formatInteger(train.tokens)} tokens (k and discounts chosen on its dev slice)`,
    `  held-out: ${heldOut.name}, ${formatInteger(heldOut.bytes)} bytes, ${formatInteger(heldOut.tokens)} tokens (${formatInteger(heldOut.tokens - 1)} scored)`,
    '',
  ];
  const rows = result.rows.map((r) => [
    ORDER_NAMES[r.order],
    SMOOTHING_NAMES[r.smoothing],
    (r.metrics['bits_per_byte'] as number).toFixed(4),
    (r.metrics['bits_per_token'] as number).toFixed(4),
    formatSignificant(r.metrics['perplexity'] as number),
    parametersText(r),
    r === result.best ? '← best' : '',
  ]);
  const table = columns(
    ['model', 'smoothing', 'bits/byte', 'bits/token', 'perplexity', 'parameters', ''],
    rows,
  );
  io.stdout.write(`${[...head, ...table].join('\n')}\n`);
  return ExitCode.ok;
}

/** `k = 0.0207`, or the discounts per order: `D = 0, 0.048, 0.34 | 0.68, 0.96, 1.08`. */
function parametersText(row: NgramBaselineRow): string {
  const p = row.parameters;
  if (p.smoothing === 'add-k') return `k = ${formatSignificant(p.k, 3)}`;
  const levels: string[] = [];
  for (let i = 0; i < p.discounts.length; i += 3)
    levels.push(
      p.discounts
        .slice(i, i + 3)
        .map((d) => d.toFixed(3))
        .join(', '),
    );
  return `D = ${levels.join(' | ')}`;
}

/** Rows as columns two spaces apart, numbers right-aligned (columns 2–4), the rest left-aligned. */
function columns(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const right = new Set([2, 3, 4]);
  const line = (r: readonly string[]): string =>
    r
      .map((x, i) => (right.has(i) ? x.padStart(widths[i] as number) : x.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)];
}
