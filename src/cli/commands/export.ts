/**
 * `dantinox export`: writes a built-in model (seeded random weights, or weights from a safetensors file) as a
 * GGUF file for llama.cpp or as a Hugging Face ONNX folder for transformers.js, or converts such a folder to GGUF.
 *
 * @packageDocumentation
 */
import { isAbsolute, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { GgufExportResult } from '../../models/gguf/gguf-export.js';
import { DEFAULT_PRESET } from '../../models/model-selection.js';
import { resolveModelConfig } from '../../models/resolve-model-config.js';
import { claimModelFolder, claimOutFile } from '../../runs/index.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import { formatBytes } from '../format-quantity.js';
import { parseNonNegativeInt } from '../option-parsers.js';

/** Parsed options of `dantinox export`. */
interface ExportCliOptions {
  readonly config?: string;
  readonly weights?: string;
  readonly model?: string;
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
  const { io } = ctx;
  const at = (p: string): string => (isAbsolute(p) ? p : resolve(io.cwd, p));
  const force = options.force === true;
  const models = await import('../../models/index.js');
  if (options.model !== undefined) {
    if (options.config !== undefined || options.weights !== undefined || options.format !== 'gguf')
      throw new DantinoxError('INVALID_OPTION', messages.exportModelAlone());
    const folder = at(options.model);
    const r = models.exportGguf(folder, claimOutFile(options.out, io.cwd, force), { dtype: options.dtype });
    io.stdout.write(`${describeGguf(options.out, r)}\n`);
    return ExitCode.ok;
  }
  let config = resolveModelConfig(options.config ?? DEFAULT_PRESET, io.cwd).config;
  let weights: import('../../models/index.js').WeightMap;
  if (options.weights === undefined) {
    weights = models.initWeights(config, options.seed);
  } else {
    const loaded = await models.loadWeights(at(options.weights));
    if (options.config === undefined && loaded.config !== undefined) config = loaded.config;
    weights = loaded.weights;
  }
  if (options.format === 'hf') {
    const folder = claimModelFolder(options.out, io.cwd, force);
    const r = models.exportHfModel(config, weights, folder.path, {
      dtypes: options.dtype === 'fp32' ? ['fp32'] : ['fp32', options.dtype],
      beforeWrite: folder.clear,
    });
    io.stdout.write(
      `Wrote ${options.out}: Hugging Face ${r.modelType} folder, ${formatBytes(r.onnxBytes)} of ONNX\n`,
    );
    return ExitCode.ok;
  }
  const r = models.exportGguf({ config, weights }, claimOutFile(options.out, io.cwd, force), {
    dtype: options.dtype,
  });
  io.stdout.write(`${describeGguf(options.out, r)}\n`);
  return ExitCode.ok;
}

/** The line that says what a GGUF export wrote. */
function describeGguf(shown: string, r: GgufExportResult): string {
  return `Wrote ${shown}: GGUF v3, architecture ${r.architecture}, ${r.type} matrices, ${r.tensors} tensors, ${formatBytes(r.bytes)}`;
}
