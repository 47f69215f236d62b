/**
 * `dantinox merge`: combines the shard folders of a matrix run (one per Kubernetes Job index or Slurm array
 * task) into one run folder: every variant exactly once, the combined results, charts and report.html. Shards of
 * `dantinox load` give one load run: every sweep point once, in sweep order, as an unsharded load writes it.
 *
 * @packageDocumentation
 */
import type { Command } from 'commander';
import { createWriterLogger } from '../../benchmarking/logger.js';
import { mergeRuns, planMergeRun } from '../../runs/index.js';
import { Visualizer } from '../../visualization/index.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';

/** Parsed options of `dantinox merge`. */
interface MergeCliOptions {
  readonly out: string;
  readonly allowPartial?: boolean;
  readonly force?: boolean;
  readonly charts: boolean;
  readonly verbose?: boolean;
}

const EXAMPLES = `
Examples:
  $ dantinox merge results/study --out results/study-merged          # every shard-<i>-of-<n> folder in it
  $ dantinox merge results/study/shard-0-of-2 results/study/shard-1-of-2 --out merged
  $ dantinox merge results/study --out partial --allow-partial       # a shard crashed: merge what exists
  $ dantinox merge results/load --out results/load-merged            # shards of "dantinox load … --shard i/n"
  $ dantinox merge results/c256 --out results/c256-merged            # clients of "dantinox load … --client i/n"

Every variant of the matrix must come from exactly one shard folder; a missing shard, an unfinished variant
(rerun its shard with --resume) or a folder of another matrix stops the merge with exit code 2, unless
--allow-partial (missing variants are then listed). Each variant keeps its own environment block (host, CPU).
An --out that already holds a run or a merge is refused (exit 2) unless --force, which removes that run first.
Shards of "dantinox load" (its sweep points are the variants) merge into one load run with every point in sweep
order, as one unsharded load writes it; shards of loads with other settings (URL, flags) are refused.
The client folders of one split sweep point ("dantinox load --client i/n --start-at t") merge into that point,
measured again from the union of their requests: percentiles of all of them, throughput over their span on the
wall clock, the point's self-checks run on the union. Clients of other loads or start times, a client given
twice and (without --allow-partial) a missing or unfinished client are refused.
`;

/** Registers `dantinox merge` on `program`. */
export function registerMergeCommand(program: Command, ctx: CommandContext): Command {
  return program
    .command('merge')
    .summary('combine shard or load-client folders into one run folder')
    .description(
      'Combines the shard folders written by "dantinox bench --shard i/n" or "dantinox load --shard i/n" (or under JOB_COMPLETION_INDEX / SLURM_ARRAY_TASK_ID) into one folder with every variant (every sweep point of a load), the combined results, charts/ and report.html, as one unsharded run would have written; the client folders of "dantinox load --client i/n" into their one sweep point, measured from the union of their requests.',
    )
    .argument('<dirs...>', 'shard (or client) folders, or the shared output folder that holds them')
    .requiredOption('-o, --out <dir>', 'folder to write the merged run into')
    .option('--allow-partial', 'merge what exists when shards or variants are missing (listed on stderr)')
    .option(
      '--force',
      'replace a run or merge already in --out (its results files, charts, report.html, matrix.json, run-<r>/ and variant folders)',
    )
    .option('--no-charts', 'skip charts/ and report.html')
    .option('--verbose', 'say why charts were skipped, and stack traces on errors')
    .addHelpText('after', EXAMPLES)
    .action(async (inputs: string[], options: MergeCliOptions) => {
      ctx.exitCode = await runMerge(inputs, options, ctx);
    });
}

async function runMerge(
  inputs: readonly string[],
  options: MergeCliOptions,
  ctx: CommandContext,
): Promise<ExitCode> {
  const { io } = ctx;
  const plan = planMergeRun({
    inputs,
    out: options.out,
    cwd: io.cwd,
    allowPartial: options.allowPartial === true,
    force: options.force === true,
    charts: options.charts,
    registry: Visualizer.defaultRegistry,
    logger: createWriterLogger(io.stderr, options.verbose === true ? 'debug' : 'warn'),
  });
  const result = await mergeRuns(plan, {
    hooks: { name: 'notes', onNote: (note) => void io.stderr.write(`note: ${note}`) },
  });
  const what = { load: 'sweep point(s)', matrix: 'variant(s)', clients: 'client(s) of one sweep point' }[
    result.kind
  ];
  io.stdout.write(
    `Merged ${result.merged.length} of ${result.total} ${what} from ${result.sources.length} folder(s) into ${options.out}\n  ${result.files.join('\n  ')}\n`,
  );
  for (const line of result.missing) io.stderr.write(`missing (--allow-partial): ${line}\n`);
  if (result.failedCharts.length > 0) {
    io.stderr.write(
      `Chart(s) failed to render: ${result.failedCharts.join(', ')} (see the warnings above).\n`,
    );
    return ExitCode.taskFailed;
  }
  return ExitCode.ok;
}
