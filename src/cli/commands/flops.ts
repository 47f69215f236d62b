/**
 * `dantinox flops`: the analytical FLOPs of one forward pass (the seed's `print(flops)`), plus parameters,
 * weight bytes and KV-cache bytes per token.
 *
 * @packageDocumentation
 */
import type { Command } from 'commander';
import { DTYPE_NAMES } from '../../dtype.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { describeModel } from '../../models/describe-model.js';
import { resolveModelConfig } from '../../models/resolve-model-config.js';
import {
  type CountFlopsOptions,
  countFlops,
  countParameters,
  type MemoryFootprintOptions,
  memoryFootprint,
} from '../../profiling/index.js';
import { addCliOptions, type CliOptions } from '../cli-options.js';
import type { CommandContext } from '../command-context.js';
import { formatBytes, formatCount, formatInteger } from '../format-quantity.js';
import {
  parseDtypeOption,
  parseNonNegativeInt,
  parsePositiveInt,
  parsePositiveNumber,
} from '../option-parsers.js';

/** `--seq-len` when not given, unless the model's context is shorter. */
const DEFAULT_SEQ_LEN = 512;

/** The library options `dantinox flops` exposes: every field of `countFlops` and `memoryFootprint` options. */
const FLOPS_OPTIONS: CliOptions<CountFlopsOptions & MemoryFootprintOptions> = {
  seqLen: {
    flags: '--seq-len <n>',
    description:
      "new tokens per sequence T (default: 512, or what fits the model's context when that is less)",
    parse: parsePositiveInt,
  },
  batchSize: {
    flags: '--batch-size <n>',
    description: 'sequences per batch B',
    parse: parsePositiveInt,
    default: 4,
  },
  pastLength: {
    flags: '--past-length <n>',
    description: 'tokens already in the KV cache (exact formula only)',
    parse: parseNonNegativeInt,
    default: 0,
  },
  formula: {
    flags: '--formula <name>',
    description: "'exact' for the architecture built, 'seed' for the seed's documented formulas",
    choices: ['exact', 'seed'],
    default: 'exact',
  },
  moe: {
    flags: '--moe <counting>',
    description: "MoE layers: 'active' (router + top-k experts) or 'dense' (all experts)",
    choices: ['active', 'dense'],
    default: 'active',
  },
  logitPositions: {
    flags: '--logit-positions <n>',
    description:
      "positions per sequence whose logits the LM head computes, the last ones (default: all; 1: a generation's prefill)",
    parse: parsePositiveInt,
  },
  dtype: {
    flags: '--dtype <type>',
    description: `weight dtype for the byte counts: ${DTYPE_NAMES.join(', ')} (KV cache in its activation type)`,
    parse: parseDtypeOption,
    default: 'fp32',
  },
  headDtype: {
    flags: '--head-dtype <type>',
    description: 'quantized dtypes: dtype of the LM head (default: --dtype)',
    parse: parseDtypeOption,
  },
  kvBytesPerElement: {
    flags: '--kv-bytes-per-element <n>',
    description:
      "bytes per KV-cache element when the engine's cache type is not the dtype's activation type (llama.cpp's F16 cache: 2)",
    parse: parsePositiveNumber,
  },
};

/** Parsed options of `dantinox flops`. */
interface FlopsCliOptions
  extends Omit<
    Required<CountFlopsOptions & Omit<MemoryFootprintOptions, 'headDtype' | 'kvBytesPerElement'>>,
    'seqLen' | 'logitPositions'
  > {
  readonly seqLen?: number;
  readonly logitPositions?: number;
  readonly headDtype?: MemoryFootprintOptions['headDtype'];
  readonly kvBytesPerElement?: number;
  readonly config: string;
  readonly json?: boolean;
}

const EXAMPLES = `
Examples:
  $ dantinox flops --config small
  $ dantinox flops --config gpt2-small --seq-len 1024 --batch-size 1
  $ dantinox flops --config my-model.yaml --formula seed --json
  $ dantinox flops --config small --seq-len 1 --past-length 511   # one decode step at context 511
  $ dantinox flops --config small --seq-len 512 --batch-size 1 --logit-positions 1   # a generation's prefill
`;

/** Registers `dantinox flops` on `program`. */
export function registerFlopsCommand(program: Command, ctx: CommandContext): Command {
  const command = program
    .command('flops')
    .summary('count FLOPs, parameters and memory of a model config (no model is run)')
    .description(
      "Counts the FLOPs of one forward pass analytically (1 multiply-add = 2 FLOPs, matrix products only) and prints them in the seed's form, plus parameters, weight bytes and KV-cache bytes per token.",
    )
    .option(
      '-c, --config <file|preset>',
      'model preset (tiny, small, gpt2-small, brown) or YAML/JSON config file',
      'small',
    );
  addCliOptions(command, FLOPS_OPTIONS);
  return command
    .option('--json', 'print one JSON object instead of text')
    .option('--verbose', 'print stack traces on errors')
    .addHelpText('after', EXAMPLES)
    .action((options: FlopsCliOptions) => {
      const { config, name, isPreset } = resolveModelConfig(options.config, ctx.io.cwd);
      const { batchSize, pastLength, formula, moe, dtype, headDtype, kvBytesPerElement } = options;
      // The default length fits the model it is applied to (tiny's context is 128); an explicit one is checked.
      const seqLen = options.seqLen ?? Math.max(1, Math.min(DEFAULT_SEQ_LEN, config.maxContext - pastLength));
      const logitPositions = options.logitPositions ?? seqLen;
      if (logitPositions > seqLen)
        throw new DantinoxError('INVALID_OPTION', messages.logitPositionsAboveSeqLen(logitPositions, seqLen));
      const flops = countFlops(config, { seqLen, batchSize, pastLength, formula, moe, logitPositions });
      const parameters = countParameters(config);
      const memory = memoryFootprint(config, {
        dtype,
        ...(headDtype === undefined ? {} : { headDtype }),
        ...(kvBytesPerElement === undefined ? {} : { kvBytesPerElement }),
      });
      const out = ctx.io.stdout;
      if (options.json === true) {
        const { attention, ffn, embedding, total, attentionProjections, attentionScores, router, lmHead } =
          flops;
        const json = {
          model: { name, preset: isPreset, config },
          pass: flops.pass,
          seqLen,
          batchSize,
          pastLength,
          logitPositions,
          formula,
          moe,
          flops: { attention, ffn, embedding, total, attentionProjections, attentionScores, router, lmHead },
          parameters,
          memory,
        };
        out.write(`${JSON.stringify(json, null, 2)}\n`);
        return;
      }
      const active =
        parameters.active === parameters.total ? '' : `; ${formatCount(parameters.active)} active per token`;
      const past = pastLength > 0 ? ` after ${pastLength} cached tokens` : '';
      const logits = logitPositions === seqLen ? '' : `, logits of the last ${logitPositions} per sequence`;
      out.write(
        [
          `Model: ${name}${isPreset ? ' (preset)' : ''}: ${describeModel(config)}`,
          `Counted: one forward pass of ${batchSize} × ${seqLen} tokens${past}${logits}, formula ${formula} (1 multiply-add = 2 FLOPs)`,
          '',
          flops.toString(),
          '',
          `Parameters         : ${formatInteger(parameters.total)} (${formatCount(parameters.total)}; ${formatCount(parameters.embedding)} embedding${active})`,
          `Weight bytes       : ${formatInteger(memory.weightBytes)} (${formatBytes(memory.weightBytes)}, ${dtype})`,
          `KV cache per token : ${formatInteger(memory.kvBytesPerToken)} (${formatBytes(memory.kvBytesPerToken)}, ${dtype}, per sequence)`,
          '',
        ].join('\n'),
      );
    });
}
