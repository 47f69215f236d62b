/**
 * `dantinox tokenizer train`: learns a byte-level BPE vocabulary (GPT-2's scheme) from a text file or the Brown
 * corpus's training split and writes it as a Hugging Face `tokenizer.json` + `tokenizer_config.json`.
 *
 * @packageDocumentation
 */
import { isAbsolute, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { brownCorpusText, brownSplitName } from '../../benchmarking/data/brown-corpus.js';
import { HF_TOKENIZER_FILES, saveHfTokenizerFiles } from '../../models/hf/hf-tokenizer-json.js';
import { MAX_BPE_VOCAB_SIZE } from '../../models/tokenizers/bpe-tokenizer.js';
import { MIN_BPE_VOCAB_SIZE, type TrainBpeOptions, trainBpe } from '../../models/tokenizers/train-bpe.js';
import { claimTokenizerFolder } from '../../runs/index.js';
import { readTextFile } from '../../text-file.js';
import { addCliOptions, type CliOptions } from '../cli-options.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import { formatInteger } from '../format-quantity.js';
import { integerInRange, parsePositiveInt } from '../option-parsers.js';

/** The `trainBpe` options `tokenizer train` exposes. */
const TRAIN_OPTIONS: CliOptions<TrainBpeOptions> = {
  vocabSize: {
    flags: '--vocab-size <n>',
    description: `ids of the tokenizer: the 256 bytes, one per merge, and <|endoftext|> (${MIN_BPE_VOCAB_SIZE} to ${MAX_BPE_VOCAB_SIZE})`,
    parse: integerInRange(MIN_BPE_VOCAB_SIZE, MAX_BPE_VOCAB_SIZE, '4096'),
    default: 4096,
  },
  minPairCount: {
    flags: '--min-pair-count <n>',
    description: 'merge a pair only if it occurs at least this many times (training stops earlier otherwise)',
    parse: parsePositiveInt,
    default: 2,
  },
  source: null,
};

/** Parsed options of `dantinox tokenizer train`. */
interface TrainCliOptions {
  readonly vocabSize: number;
  readonly minPairCount: number;
  readonly data?: string;
  readonly out: string;
  readonly force?: boolean;
}

const EXAMPLES = `
Examples:
  $ dantinox tokenizer train --vocab-size 4096 --out tokenizers/bpe-4096      # on the Brown training split
  $ dantinox tokenizer train --vocab-size 16384 --data corpus.txt --out tokenizers/corpus-16k
  $ dantinox baseline --tokenizer tokenizers/bpe-4096/tokenizer.json          # its n-gram baseline

The folder gets tokenizer.json and tokenizer_config.json (GPT-2's layout), which @huggingface/tokenizers,
transformers.js and, through "dantinox export", llama.cpp read. Pairs tied in count go to the smaller ids.
`;

/** Registers `dantinox tokenizer` and its `train` sub-command on `program`. */
export function registerTokenizerCommand(program: Command, ctx: CommandContext): Command {
  const tokenizer = program
    .command('tokenizer')
    .summary('train a byte-level BPE tokenizer (Hugging Face tokenizer.json)')
    .description(
      "Tokenizers as Hugging Face tokenizer.json files: train learns a byte-level BPE vocabulary in GPT-2's scheme from a text file or the Brown corpus's training split.",
    )
    .addHelpText('after', EXAMPLES);
  const train = tokenizer
    .command('train')
    .summary('learn a byte-level BPE vocabulary and write tokenizer.json')
    .description(
      "Learns a byte-level BPE vocabulary (GPT-2's pre-tokenizer, merges by pair count, ties to the smaller ids, <|endoftext|> last) and writes tokenizer.json and tokenizer_config.json into --out.",
    );
  addCliOptions(train, TRAIN_OPTIONS)
    .option('--data <file>', "UTF-8 text to learn from (default: the Brown corpus's training split)")
    .requiredOption('-o, --out <folder>', 'folder to write tokenizer.json and tokenizer_config.json into')
    .option('--force', 'replace the tokenizer.json and tokenizer_config.json --out already holds')
    .addHelpText('after', EXAMPLES)
    .action(async (options: TrainCliOptions) => {
      ctx.exitCode = await runTrain(options, ctx);
    });
  return tokenizer;
}

async function runTrain(options: TrainCliOptions, ctx: CommandContext): Promise<ExitCode> {
  const { io } = ctx;
  const folder = claimTokenizerFolder(options.out, io.cwd, options.force === true);
  const data =
    options.data === undefined
      ? { text: brownCorpusText('train'), name: brownSplitName('train') }
      : {
          text: readTextFile(
            isAbsolute(options.data) ? options.data : resolve(io.cwd, options.data),
            'training',
          ),
          name: options.data,
        };
  const start = io.now().getTime();
  const tok = trainBpe(data.text, {
    vocabSize: options.vocabSize,
    minPairCount: options.minPairCount,
    source: options.data === undefined ? data.name : `--data ${options.data}`,
  });
  const seconds = (io.now().getTime() - start) / 1000;
  saveHfTokenizerFiles(tok.tokenizerFiles(), folder);
  const [json, config] = HF_TOKENIZER_FILES.map((f) => join(options.out, f));
  const bytes = Buffer.byteLength(data.text, 'utf8');
  const tokens = tok.encode(data.text).length;
  const lines = [
    `Wrote ${json} and ${config}: byte-level BPE ${tok.name}, ${formatInteger(tok.vocabSize)} ids (256 bytes, ${formatInteger(tok.merges.length)} merges, <|endoftext|> = ${tok.endOfText})`,
    `Trained in ${seconds.toFixed(1)} s on ${data.name}: ${formatInteger(bytes)} bytes → ${formatInteger(tokens)} tokens (${(tokens / bytes).toFixed(4)} tokens per byte)`,
  ];
  if (tok.vocabSize < options.vocabSize)
    lines.push(
      `Stopped at ${formatInteger(tok.vocabSize)} of --vocab-size ${options.vocabSize} ids: no pair occurs --min-pair-count ${options.minPairCount} times any more.`,
    );
  io.stdout.write(`${lines.join('\n')}\n`);
  return ExitCode.ok;
}
