/**
 * `dantinox export`: writes a built-in model (seeded random weights, or weights from a safetensors file) as a
 * GGUF file for llama.cpp or as a Hugging Face ONNX folder for transformers.js, or converts such a folder to GGUF.
 *
 * @packageDocumentation
 */
import { type Command, Option } from 'commander';
import type { GgufExportResult } from '../../models/gguf/gguf-export.js';
import { DEFAULT_PRESET } from '../../models/model-selection.js';
import { exportModel } from '../../runs/index.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import { formatBytes } from '../format-quantity.js';
import { parseNonNegativeInt } from '../option-parsers.js';

/** Parsed options of `dantinox export`. */
interface ExportCliOptions {
  readonly config?: string;
  readonly weights?: string;
  readonly model?: string;
  readonly tokenizer?: string;
  readonly seed: number;
  readonly format: 'gguf' | 'hf';
  readonly dtype: 'fp32' | 'fp16' | 'q8' | 'q4';
  readonly out: string;
  readonly force?: boolean;
}

const EXAMPLES = `
Examples:
  $ dantinox export --config small --dtype q8 --out small-q8.gguf      # llama.cpp file, Q8_0 matrices
  $ dantinox export --weights trained.safetensors --out trained.gguf   # the config stored in the file
  $ dantinox export --config tiny --format hf --out models/tiny-hf      # folder for transformers.js / --model
  $ dantinox export --model models/tiny-hf --dtype q4 --out tiny-q4.gguf # that folder for llama.cpp
  $ dantinox export --weights runs/bpe/model/model.safetensors --tokenizer runs/bpe/model/tokenizer.json --out bpe.gguf

An existing --out file, or a folder that already holds a Hugging Face model, is refused (exit 2) unless --force.
GGUF files load in llama.cpp (e.g. node-llama-cpp); "dantinox bench --engine llama.cpp" exports one on the fly.
`;

/** Registers `dantinox export` on `program`. */
export function registerExportCommand(program: Command, ctx: CommandContext): Command {
  return program
    .command('export')
    .summary('write a built-in model as a GGUF file (llama.cpp) or a Hugging Face ONNX folder')
    .description(
      'Writes a built-in model (seeded random weights, or the weights of a safetensors file) as a GGUF v3 file that llama.cpp runs (llama architecture for rotary/RMSNorm/SwiGLU models, gpt2 for learned positions/LayerNorm/GELU) or as a Hugging Face ONNX folder.',
    )
    .option('-c, --config <file|preset>', `preset or YAML/JSON config (default: ${DEFAULT_PRESET})`)
    .option('-w, --weights <file>', 'safetensors file with the weights (and config) to export')
    .option(
      '-m, --model <folder>',
      'a Hugging Face folder written by "export --format hf" (its fp32 weights and tokenizer) to convert to GGUF',
    )
    .option(
      '-t, --tokenizer <file>',
      "a Hugging Face tokenizer.json the export carries (e.g. the BPE the model was trained with); default: a trained preset's own, else bytes for 256 ids or GPT-2's BPE from 50257 (other vocabularies need this)",
    )
    .option('--seed <n>', 'seed of the random weights (without --weights)', parseNonNegativeInt, 0)
    .addOption(new Option('--format <format>', 'output format').choices(['gguf', 'hf']).default('gguf'))
    .addOption(
      new Option(
        '--dtype <dtype>',
        "matrix dtype: GGUF fp32 (F32), fp16 (F16), q8 (Q8_0), q4 (Q4_0); --format hf writes model.onnx plus that dtype's file (model_q4.onnx…)",
      )
        .choices(['fp32', 'fp16', 'q8', 'q4'])
        .default('fp32'),
    )
    .requiredOption('-o, --out <path>', 'GGUF file, or folder for --format hf')
    .option(
      '--force',
      "replace an existing --out file, or the model files (config, tokenizer, every dtype's ONNX file) of an existing --out folder",
    )
    .addHelpText('after', EXAMPLES)
    .action(async (options: ExportCliOptions) => {
      ctx.exitCode = await runExport(options, ctx);
    });
}

async function runExport(options: ExportCliOptions, ctx: CommandContext): Promise<ExitCode> {
  const written = await exportModel({
    ...(options.config === undefined ? {} : { config: options.config }),
    ...(options.weights === undefined ? {} : { weights: options.weights }),
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.tokenizer === undefined ? {} : { tokenizer: options.tokenizer }),
    seed: options.seed,
    format: options.format,
    dtype: options.dtype,
    out: options.out,
    cwd: ctx.io.cwd,
    force: options.force === true,
  });
  ctx.io.stdout.write(
    written.format === 'gguf'
      ? `${describeGguf(options.out, written.result)}\n`
      : `Wrote ${options.out}: Hugging Face ${written.result.modelType} folder, ${formatBytes(written.result.onnxBytes)} of ONNX\n`,
  );
  return ExitCode.ok;
}

/** The line that says what a GGUF export wrote. */
function describeGguf(shown: string, r: GgufExportResult): string {
  return `Wrote ${shown}: GGUF v3, architecture ${r.architecture}, ${r.type} matrices, ${r.tensors} tensors, ${formatBytes(r.bytes)}`;
}
