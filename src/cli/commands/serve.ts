/**
 * `dantinox serve`: opens a model (a preset or config, or a Hugging Face ONNX folder, on any engine) and serves it
 * behind the OpenAI API until SIGTERM or Ctrl-C, which stop it gracefully: new requests get 503 while the requests
 * in flight finish (at most `--grace-ms`), then the process exits 0. A second signal quits at once.
 *
 * @packageDocumentation
 */
import { type Command, Option } from 'commander';
import { messages } from '../../messages.js';
import { ENGINE_NAMES, type EngineName } from '../../models/engines/engine-name.js';
import { DEFAULT_PRESET } from '../../models/model-selection.js';
import { serveModel } from '../../runs/index.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import type { StopSignal } from '../interrupts.js';
import { parseNonNegativeInt, parsePort, parsePositiveInt } from '../option-parsers.js';

/** Parsed options of `dantinox serve`. */
interface ServeCliOptions {
  readonly config?: string;
  readonly model?: string;
  readonly engine?: EngineName;
  readonly dtype?: string;
  readonly threads?: number;
  readonly seed: number;
  readonly port: number;
  readonly host: string;
  readonly servedModelName?: string;
  readonly maxBatch: number;
  readonly batching: 'continuous' | 'static';
  readonly maxQueue: number;
  readonly graceMs: number;
}

/** Default of `--grace-ms`: how long a graceful stop waits for the requests in flight, in ms. */
export const DEFAULT_GRACE_MS = 30_000;

const EXAMPLES = `
Examples:
  $ dantinox serve --config small --port 8080
  $ dantinox serve --config tiny --port 0                       # any free port: the URL is printed
  $ dantinox serve --model models/gpt2-onnx --dtype q8 --served-model-name gpt2
  $ dantinox serve --config small --engine llama.cpp --dtype q8 --threads 2 --max-batch 4
  $ curl -s localhost:8080/v1/completions -H 'Content-Type: application/json' \\
      -d '{"prompt": "Hello", "max_tokens": 16, "temperature": 0}'

Routes: POST /v1/completions, POST /v1/chat/completions (stream: true for Server-Sent Events), GET /v1/models,
GET /health, GET /metrics (Prometheus). A built-in model (--config) on ONNX Runtime or llama.cpp batches
continuously: requests join the running batch at its next decode step and leave it when done, up to --max-batch
rows. Hugging Face folders, transformers.js (and --batching static) batch requests whose prompts have the same
number of tokens, decoded in lockstep, one batch after another. SIGTERM or Ctrl-C: new requests get 503, the
ones in flight finish (at most --grace-ms), exit 0; a second signal quits at once.
`;

/** Registers `dantinox serve` on `program`. */
export function registerServeCommand(program: Command, ctx: CommandContext): Command {
  return program
    .command('serve')
    .summary('serve a model behind an OpenAI-compatible HTTP API (completions, chat, metrics)')
    .description(
      'Opens a model (a built-in preset or config with seeded random weights, or a Hugging Face ONNX folder) and serves it on /v1/completions and /v1/chat/completions (whole or streamed), /v1/models, /health and /metrics until SIGTERM or Ctrl-C. Prints the URL on stdout once listening.',
    )
    .option('-c, --config <file|preset>', `preset or YAML/JSON model config (default: ${DEFAULT_PRESET})`)
    .option(
      '-m, --model <folder>',
      'a Hugging Face ONNX folder or a dantinox model folder (e.g. written by "dantinox train") to serve instead of a built-in model',
    )
    .addOption(
      new Option('--engine <name>', 'engine that runs the model (default: ort)').choices([...ENGINE_NAMES]),
    )
    .option('--dtype <name>', 'weight dtype, e.g. fp32, fp16, q8, q4 (default: fp32)')
    .option('--threads <n>', 'intra-op threads of the engine (default: engine default)', parsePositiveInt)
    .option(
      '--seed <n>',
      'seed of the random weights, and of the seeds of requests that send none',
      parseNonNegativeInt,
      0,
    )
    .option('-p, --port <n>', 'TCP port; 0 picks a free one', parsePort, 8080)
    .option('--host <address>', 'address to listen on (0.0.0.0 for every interface)', '127.0.0.1')
    .option(
      '--served-model-name <name>',
      "the model name clients pass and /v1/models lists (default: the model's name)",
    )
    .option(
      '--max-batch <n>',
      'most requests decoded together in one engine call (of equal prompt length when batching is static)',
      parsePositiveInt,
      8,
    )
    .addOption(
      new Option(
        '--batching <mode>',
        'continuous: requests join and leave a running batch (built-in models on ONNX Runtime and llama.cpp; static on the others); static: batches of equal-length prompts run to their end',
      )
        .choices(['continuous', 'static'])
        .default('continuous'),
    )
    .option(
      '--max-queue <n>',
      'most requests waiting for the engine; more get HTTP 429',
      parsePositiveInt,
      64,
    )
    .option(
      '--grace-ms <ms>',
      'on SIGTERM or Ctrl-C, how long the requests in flight may take to finish before they are cancelled',
      parseNonNegativeInt,
      DEFAULT_GRACE_MS,
    )
    .addHelpText('after', EXAMPLES)
    .action(async (options: ServeCliOptions) => {
      ctx.exitCode = await runServe(options, ctx);
    });
}

async function runServe(options: ServeCliOptions, ctx: CommandContext): Promise<ExitCode> {
  const { io } = ctx;
  const serving = await serveModel(
    {
      ...(options.config === undefined ? {} : { config: options.config }),
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.engine === undefined ? {} : { engine: options.engine }),
      ...(options.dtype === undefined ? {} : { dtype: options.dtype }),
      ...(options.threads === undefined ? {} : { threads: options.threads }),
      seed: options.seed,
    },
    {
      port: options.port,
      host: options.host,
      maxBatch: options.maxBatch,
      batching: options.batching,
      maxQueue: options.maxQueue,
      ...(options.servedModelName === undefined ? {} : { servedModelName: options.servedModelName }),
    },
    io.cwd,
  );
  io.stderr.write(`${serving.opened.description}\n`);
  io.stdout.write(
    `${messages.serveListening(serving.url, serving.server.name, serving.server.scheduler.batching, options.maxBatch, options.maxQueue)}\n`,
  );
  const signal = await new Promise<StopSignal>((resolve) => {
    const onInt = (): void => stop('SIGINT');
    const onTerm = (): void => stop('SIGTERM');
    // After the first signal the handlers go, so a second one takes its default action and quits at once.
    const stop = (received: StopSignal): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(received);
    };
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
  io.stderr.write(`${messages.serveStopping(signal, serving.server.inFlight, options.graceMs)}\n`);
  const drained = await serving.stop(options.graceMs);
  io.stderr.write(`${messages.serveStopped(drained)}\n`);
  return ExitCode.ok;
}
