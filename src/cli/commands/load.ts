/**
 * `dantinox load <base-url>`: the load generator — a sweep of concurrency and/or rate points against any
 * OpenAI-compatible server, written as a normal run folder. Parses flags, prints one line per sweep point and
 * maps the outcome to an exit code; {@link runLoad} does the rest.
 *
 * @packageDocumentation
 */
import { join, relative } from 'node:path';
import { type Command, Option } from 'commander';
import { createWriterLogger } from '../../benchmarking/logger.js';
import { formatNoiseWarnings, noiseWarnings } from '../../benchmarking/noise-warnings.js';
import type { CellRecord } from '../../benchmarking/task.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { formatSignificant } from '../../number-format.js';
import { loadWorkload, resolveLoadTarget, runLoad } from '../../runs/index.js';
import { ENDPOINTS, type Endpoint, type LoadWindow, type Slo } from '../../serving/index.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import { watchInterrupts } from '../interrupts.js';
import {
  parseBurstiness,
  parseDurationOption,
  parseFraction,
  parseLoadList,
  parseSloOption,
  parseStartAt,
  parseWindow,
  searchAxis,
} from '../load-option-parsers.js';
import { parseNonNegativeInt, parsePositiveInt } from '../option-parsers.js';

/** Parsed options of `dantinox load`. */
interface LoadCliOptions {
  readonly endpoint: Endpoint;
  readonly model?: string;
  readonly apiKeyEnv: string;
  readonly caFile?: string;
  readonly stream: boolean;
  readonly timeout: number;
  readonly concurrency?: number[];
  readonly rate?: number[];
  readonly burstiness: number;
  readonly ramp?: number;
  readonly duration?: number;
  readonly requests?: number;
  readonly warmup?: LoadWindow;
  readonly cooldown?: LoadWindow;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly prompts: string;
  readonly trace?: string;
  readonly conversations?: string;
  readonly turns?: number;
  readonly turnDelay?: number;
  readonly sharedPrefix?: number;
  readonly prefixGroups?: number;
  readonly tokenizer?: string;
  readonly slo?: Slo;
  readonly ignoreEos: boolean;
  readonly seed: number;
  readonly out?: string;
  readonly force?: boolean;
  readonly charts: boolean;
  readonly quiet?: boolean;
  readonly findMaxGoodput?: boolean | string;
  readonly sloTarget: number;
  readonly shard?: string;
  readonly shards?: number;
  readonly resume?: boolean;
  readonly client?: string;
  readonly clients?: number;
  readonly startAt?: number;
  readonly workers?: number;
}

const EXAMPLES = `
Examples:
  $ dantinox load http://127.0.0.1:8080/v1 --concurrency 1,4,16 --requests 200
  $ dantinox load http://127.0.0.1:8000 --model my-model --rate 1,2,4,inf --duration 60s --warmup 10s --slo ttft=500ms,tpot=50ms
  $ dantinox load https://gateway.example/v1 --endpoint chat --api-key-env GATEWAY_KEY --concurrency 8 --rate 4 --burstiness 0.5 --requests 400
  $ dantinox load https://10.0.0.5:8443/v1 --ca-file internal-ca.pem --concurrency 4 --requests 100
  $ dantinox load http://127.0.0.1:8080/v1 --trace azure-conv.csv --concurrency 32 --out results/trace
  $ dantinox load http://127.0.0.1:8080/v1 --find-max-goodput --slo ttft=500ms,tpot=50ms --requests 100
  $ dantinox load http://10.0.0.5:8080/v1 --concurrency 1,2,4,8 --requests 200 --out /shared/load --shard 1/4
  $ dantinox merge /shared/load --out results/load                   # the 4 shards as one load run
  $ dantinox load http://10.0.0.5:8080/v1 --concurrency 256 --requests 5000 --out /shared/c256 --client 0/4 --start-at 2026-12-06T10:00:00Z
  $ dantinox merge /shared/c256 --out results/c256                   # the 4 clients as one sweep point
  $ dantinox compare results/server-a results/server-b --noise-floor 5%

Each --concurrency value is a closed-loop sweep point (that many requests in flight), each --rate value an
open-loop point (Poisson arrivals, --burstiness k for gamma gaps); both together give their cross product, the
rate capped by the concurrency. Each point ends at --requests N or after --duration, whichever comes first.
Prompts have exactly --input-tokens tokens by the served model's tokenizer (--tokenizer tokenizer.json, else
GPT-2's), and ask for exactly --output-tokens (max_tokens, min_tokens, ignore_eos). Timestamps are taken as
bytes arrive; tokens are counted per chunk after each point. The run folder reads like any dantinox run:
compare, history add and report work on it. --find-max-goodput probes 1, 2, 4, … until a probe misses
--slo for more than 1 − --slo-target of its requests, then bisects; each probe is a point of the run.
Sweep points shard like bench variants: --shard i/n (or JOB_COMPLETION_INDEX with --shards n, or a Slurm
array) measures the points k ≡ i (mod n) into --out/shard-<i>-of-<n>, and "dantinox merge" of the shard
folders writes the run one unsharded load would have; --resume continues a shard cut short. The search
cannot be sharded.
One sweep point splits over client processes (pods, array tasks) when one machine cannot send it: --client i/n
(or JOB_COMPLETION_INDEX / a Slurm array with --clients n) sends client i's share — open-loop requests every n-th
of the same seeded schedule, closed-loop the requests of its share of --concurrency — from --start-at (the same
ISO time or Unix seconds for every client) into --out/client-<i>-of-<n>; "dantinox merge" of the client folders
makes one point of the union of their requests.
Exit codes: 0 done, 1 no request succeeded, 2 bad input,
130 interrupted (what was measured is written; a shard cut short is not merged without --allow-partial).
`;

/** Registers `dantinox load` on `program`. */
export function registerLoadCommand(program: Command, ctx: CommandContext): Command {
  return program
    .command('load')
    .summary('load an OpenAI-compatible server and measure TTFT, ITL, throughput and goodput')
    .description(
      'Sends a sweep of closed-loop (--concurrency) and/or open-loop (--rate) load points to an OpenAI-compatible server (/v1/completions or /v1/chat/completions) and writes a run folder: per point TTFT, time to second token, inter-token latency per token, TPOT, end-to-end latency (mean, p50, p90, p99), output tokens/s, requests/s, goodput under --slo, errors by kind, schedule lag, tokens per chunk and client vs server token counts.',
    )
    .argument('<base-url>', 'the API base URL, e.g. http://127.0.0.1:8080/v1 (a URL without a path gets /v1)')
    .addOption(new Option('--endpoint <name>', 'API endpoint').choices([...ENDPOINTS]).default('completions'))
    .option('--model <name>', "served model name sent in each request (and the run's model column)")
    .option(
      '--api-key-env <name>',
      'environment variable holding the API key (sent as a bearer token, never written)',
      'OPENAI_API_KEY',
    )
    .option(
      '--ca-file <path>',
      "PEM certificate of the private CA (or the self-signed certificate) of an https server, trusted besides Node's bundled CAs",
    )
    .option('--no-stream', 'ask for whole responses instead of a stream (no TTFT or ITL then)')
    .addOption(
      new Option('--timeout <duration>', 'time limit of one request')
        .argParser(parseDurationOption)
        .default(600_000, '600s'),
    )
    .option(
      '--concurrency <list>',
      'closed-loop sweep: requests in flight per point, e.g. 1,4,16 (inf: unbounded)',
      (v) => parseLoadList(v, true),
    )
    .option('--rate <list>', 'open-loop sweep: arrivals per second per point, e.g. 1,2,4,inf', (v) =>
      parseLoadList(v, false),
    )
    .option(
      '--burstiness <k>',
      'gamma shape of the arrival gaps (1: Poisson; < 1 burstier)',
      parseBurstiness,
      1,
    )
    .option(
      '--ramp <duration>',
      'ramp the rate (or concurrency) linearly from 0 at the start of each point',
      parseDurationOption,
    )
    .option('--duration <duration>', 'length of each sweep point, e.g. 60s', parseDurationOption)
    .option('--requests <n>', 'requests per sweep point', parsePositiveInt)
    .option(
      '--workers <n>',
      'worker threads that send the requests (default: one per 64 in flight, at most one per CPU; 1 sends from the main thread)',
      parsePositiveInt,
    )
    .option(
      '--warmup <window>',
      "requests sent before each point's measured ones and left out: a count (20) or a duration (10s) (default: the point's concurrency; 0 for none)",
      parseWindow,
    )
    .option(
      '--cooldown <window>',
      "requests sent after each point's measured ones and left out: a count or a duration",
      parseWindow,
    )
    .option('--input-tokens <n>', 'prompt tokens of synthetic and brown prompts', parsePositiveInt, 256)
    .option('--output-tokens <n>', 'tokens to generate per request', parsePositiveInt, 128)
    .option(
      '--prompts <source>',
      'synthetic (random common words), brown (Brown-corpus passages), or a JSONL file of {"prompt", "output_tokens"?}',
      'synthetic',
    )
    .option(
      '--trace <file>',
      'replay a trace at its times: a CSV with TIMESTAMP,ContextTokens,GeneratedTokens (Azure) or a .jsonl Mooncake trace (timestamp, input_length, output_length, hash_ids)',
    )
    .option(
      '--conversations <file.jsonl>',
      'replay multi-turn conversations (ShareGPT {"conversations": [{"from", "value"}]} or {"messages": [{"role", "content"}]} lines), each turn after the answer before it, with the history',
    )
    .option(
      '--turns <n>',
      'turns of each synthetic or brown conversation (default: 1, single requests)',
      parsePositiveInt,
    )
    .option(
      '--turn-delay <duration>',
      "time between an answer's end and the conversation's next turn",
      parseDurationOption,
    )
    .option(
      '--shared-prefix <tokens>',
      "tokens at the start of every prompt shared within its group (a prefix cache's share: --shared-prefix / --input-tokens)",
      parsePositiveInt,
    )
    .option('--prefix-groups <n>', 'groups of prompts each sharing one prefix (default: 1)', parsePositiveInt)
    .option('--tokenizer <path>', "the served model's tokenizer.json (file or folder); default: GPT-2 BPE")
    .option('--slo <list>', 'objectives of goodput, e.g. ttft=500ms,tpot=50ms,e2e=10s', parseSloOption)
    .option(
      '--find-max-goodput [axis]',
      'search the concurrency (or rate: --find-max-goodput rate) where goodput peaks under --slo, instead of sweeping',
    )
    .option(
      '--slo-target <fraction>',
      'share of requests that must meet --slo in the search',
      parseFraction,
      0.9,
    )
    .option('--no-ignore-eos', 'do not send ignore_eos and min_tokens (let the model stop early)')
    .option('--seed <n>', 'seed of prompts and arrivals', parseNonNegativeInt, 0)
    .option('-o, --out <dir>', 'run folder to write (default: results/<timestamp>)')
    .option(
      '--shard <i/n>',
      'measure only shard i of n (0-based) of the sweep points (points k with k mod n = i), into --out/shard-<i>-of-<n>; "dantinox merge" combines the shards',
    )
    .option(
      '--shards <n>',
      'number of shards when the index comes from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)',
      parsePositiveInt,
    )
    .option(
      '--resume',
      'continue the shard in its folder with the same URL and flags: completed points are kept, the others measured again (sharded loads only)',
    )
    .option(
      '--client <i/n>',
      'send only client i of n (0-based) of the one sweep point, the n clients started together by --start-at, into --out/client-<i>-of-<n>; "dantinox merge" makes one point of them',
    )
    .option(
      '--clients <n>',
      'number of clients when the index comes from JOB_COMPLETION_INDEX or a Slurm array (instead of --client i/n)',
      parsePositiveInt,
    )
    .option(
      '--start-at <time>',
      'start at this wall-clock time: ISO 8601 with a time zone (2026-12-06T10:00:00Z) or Unix seconds; the same for every client',
      parseStartAt,
    )
    .option('--force', 'replace a run already in --out')
    .option('--no-charts', 'skip charts/ and report.html')
    .option('-q, --quiet', 'no line per sweep point on stderr')
    .addHelpText('after', EXAMPLES)
    .action(async (baseUrl: string, options: LoadCliOptions) => {
      ctx.exitCode = await runLoadCommand(baseUrl, options, ctx);
    });
}

const ms = (v: number | undefined): string =>
  v === undefined || !Number.isFinite(v) ? '–' : `${v.toFixed(1)} ms`;

/** One line per measured sweep point. */
export function pointLine(cell: CellRecord): string {
  const m = cell.metrics;
  const errors = Object.entries(m)
    .filter(([k, v]) => k.startsWith('errors_') && v > 0)
    .map(([k, v]) => `${k.slice(7)} ${v}`);
  // ≈ marks a figure that rests on token counts the server did not confirm (see the point's self-checks).
  const guessed = m['tokens_exact'] === 0 ? '≈' : '';
  const split = guessed === '' && m['itl_exact'] === 0 ? '≈' : guessed;
  return [
    cell.cell.padEnd(26),
    `ok ${m['succeeded'] ?? 0}/${m['requests'] ?? 0}`,
    `ttft p50 ${ms(m['ttft_p50_ms'])}`,
    `itl p50 ${split}${ms(m['itl_p50_ms'])}`,
    `e2e p99 ${ms(m['e2e_p99_ms'])}`,
    `${guessed}${formatSignificant(m['output_tps'] ?? Number.NaN)} tok/s`,
    `goodput ${(m['goodput_rps'] ?? Number.NaN).toFixed(2)} req/s`,
    ...(errors.length > 0 ? [`errors: ${errors.join(', ')}`] : []),
  ].join('  ');
}

async function runLoadCommand(
  baseUrl: string,
  options: LoadCliOptions,
  ctx: CommandContext,
): Promise<ExitCode> {
  const { io } = ctx;
  const workload = loadWorkload(options);
  const apiKey = process.env[options.apiKeyEnv];
  if (apiKey === undefined && options.apiKeyEnv !== 'OPENAI_API_KEY')
    throw new DantinoxError('INVALID_OPTION', messages.loadApiKeyMissing(options.apiKeyEnv));
  const { dir: out, shard, client } = resolveLoadTarget({ ...options, env: process.env, now: io.now() });
  const interrupts = watchInterrupts({ stderr: io.stderr, underLauncher: false });
  try {
    const result = await runLoad({
      baseUrl,
      dir: out,
      cwd: io.cwd,
      force: options.force === true,
      ...(shard === undefined ? {} : { shard }),
      ...(client === undefined ? {} : { client }),
      ...(options.startAt === undefined ? {} : { startAtEpochMs: options.startAt }),
      resume: options.resume === true,
      endpoint: options.endpoint,
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(options.caFile === undefined ? {} : { caFile: options.caFile }),
      stream: options.stream,
      timeoutMs: options.timeout,
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(options.rate === undefined ? {} : { rate: options.rate }),
      burstiness: options.burstiness,
      ...(options.ramp === undefined ? {} : { rampMs: options.ramp }),
      ...(options.duration === undefined ? {} : { durationMs: options.duration }),
      ...(options.requests === undefined ? {} : { requests: options.requests }),
      ...(options.workers === undefined ? {} : { workers: options.workers }),
      ...(options.warmup === undefined ? {} : { warmup: options.warmup }),
      ...(options.cooldown === undefined ? {} : { cooldown: options.cooldown }),
      workload,
      ...(options.tokenizer === undefined ? {} : { tokenizer: options.tokenizer }),
      ...(options.turnDelay === undefined ? {} : { turnDelayMs: options.turnDelay }),
      ...(options.slo === undefined ? {} : { slo: options.slo }),
      exactLengths: options.ignoreEos,
      ...(options.findMaxGoodput === undefined
        ? {}
        : {
            findMaxGoodput: {
              axis: searchAxis(options.findMaxGoodput, options.rate),
              target: options.sloTarget,
            },
          }),
      seed: options.seed,
      charts: options.charts,
      signal: interrupts.signal,
      logger: createWriterLogger(io.stderr, options.quiet === true ? 'error' : 'warn'),
      hooks: {
        name: 'progress',
        onNote: (text) => void (options.quiet === true ? undefined : io.stderr.write(text)),
        onPoint: (cell) =>
          void (options.quiet === true ? undefined : io.stderr.write(`${pointLine(cell)}\n`)),
      },
      commandLine: ['dantinox', ...ctx.argv].join(' '),
    });
    const shown = relative(io.cwd, result.dir) || '.';
    for (const f of result.files) io.stdout.write(`${join(shown, f)}\n`);
    const warnings = formatNoiseWarnings(noiseWarnings([result.report]));
    if (warnings !== '') io.stderr.write(`${warnings}\n`);
    if (result.status === 'aborted') return ExitCode.interrupted;
    return result.status === 'failed' ? ExitCode.taskFailed : ExitCode.ok;
  } finally {
    interrupts.dispose();
  }
}
