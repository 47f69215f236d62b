/**
 * `dantinox merge`: combines the shard folders of a matrix run (one per Kubernetes Job index or Slurm array
 * task) into one run folder: every variant exactly once, the combined results, charts and report.html. Shards of
 * `dantinox load` give one load run: every sweep point once, in sweep order, as an unsharded load writes it.
 *
 * @packageDocumentation
 */
import { cpSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { createMatrixManifest, writeMatrixManifest } from '../../benchmarking/matrix/matrix-manifest.js';
import { MatrixReport, readVariantRun, variantDir } from '../../benchmarking/matrix/matrix-report.js';
import { findMatrixFolders, type MergePlan, planMerge } from '../../benchmarking/matrix/plan-merge.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { acquireRunLock, claimRunDir, prepareOutputDir } from '../../runs/index.js';
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

Every variant of the matrix must come from exactly one shard folder; a missing shard, an unfinished variant
(rerun its shard with --resume) or a folder of another matrix stops the merge with exit code 2, unless
--allow-partial (missing variants are then listed). Each variant keeps its own environment block (host, CPU).
An --out that already holds a run or a merge is refused (exit 2) unless --force, which removes that run first.
Shards of "dantinox load" (its sweep points are the variants) merge into one load run with every point in sweep
order, as one unsharded load writes it; shards of loads with other settings (URL, flags) are refused.
`;

/** Registers `dantinox merge` on `program`. */
export function registerMergeCommand(program: Command, ctx: CommandContext): Command {
  return program
    .command('merge')
    .summary('combine the shard folders of a matrix run into one run folder')
    .description(
      'Combines the shard folders written by "dantinox bench --shard i/n" or "dantinox load --shard i/n" (or under JOB_COMPLETION_INDEX / SLURM_ARRAY_TASK_ID) into one folder with every variant (every sweep point of a load), the combined results, charts/ and report.html, as one unsharded run would have written.',
    )
    .argument('<dirs...>', 'shard folders, or the shared output folder that holds them')
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
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(io.cwd, p));
  const out = abs(options.out);
  const folders = findMatrixFolders(inputs.map(abs));
  if (folders.some((f) => f === out || relative(f, out) === ''))
    throw new DantinoxError('INVALID_OPTION', messages.mergeIntoSource(options.out));
  const plan = planMerge(folders, { allowPartial: options.allowPartial === true });
  const dir = prepareOutputDir(options.out, io.cwd);
  // The folder's lock first, as bench takes it: no other process writes it while it is cleared and merged into.
  const lock = acquireRunLock(dir, options.out);
  try {
    claimRunDir(options.out, io.cwd, options.force === true);
    return await writeMerge(plan, dir, options, ctx);
  } finally {
    lock.release();
  }
}

/** Copies the planned variants into `dir` (claimed), then writes the combined results, charts and report. */
async function writeMerge(
  plan: MergePlan,
  dir: string,
  options: MergeCliOptions,
  ctx: CommandContext,
): Promise<ExitCode> {
  const { io } = ctx;
  if (plan.manifest.command === 'load') return writeLoadMerge(plan, dir, options, ctx);
  for (const { variant, dir: from } of plan.variants)
    cpSync(variantDir(from, variant.id), variantDir(dir, variant.id), { recursive: true });
  const { manifest } = plan;
  const merged = plan.variants.map((v) => v.variant);
  writeMatrixManifest(
    dir,
    createMatrixManifest(
      manifest,
      manifest.variants,
      null,
      merged,
      plan.sources.map((s) => relative(dir, s.dir)),
    ),
  );
  const combined = MatrixReport.fromDirectory(dir, merged, (note) => io.stderr.write(`note: ${note}\n`));
  const files = [...combined.save(dir), 'matrix.json'];
  let failedCharts: string[] = [];
  if (options.charts) {
    const [{ createWriterLogger, RunDirectory }, { writeMatrixCharts }] = await Promise.all([
      import('../../benchmarking/index.js'),
      import('../../runs/index.js'),
    ]);
    const logger = createWriterLogger(io.stderr, options.verbose === true ? 'debug' : 'warn');
    const written = await writeMatrixCharts(
      combined,
      new RunDirectory(dir),
      { logger, registry: Visualizer.defaultRegistry },
      `${merged.length} variant(s) merged from ${plan.sources.length} shard folder(s)`,
    );
    files.push(...written.files);
    failedCharts = written.failedCharts;
  }
  io.stdout.write(
    `Merged ${merged.length} of ${manifest.variants.length} variant(s) from ${plan.sources.length} folder(s) into ${options.out}\n  ${files.join('\n  ')}\n`,
  );
  for (const line of plan.missing) io.stderr.write(`missing (--allow-partial): ${line}\n`);
  if (failedCharts.length > 0) {
    io.stderr.write(`Chart(s) failed to render: ${failedCharts.join(', ')} (see the warnings above).\n`);
    return ExitCode.taskFailed;
  }
  return ExitCode.ok;
}

/** Writes the sweep points of load shards (planned) into `dir` (claimed) as one load run. */
async function writeLoadMerge(
  plan: MergePlan,
  dir: string,
  options: MergeCliOptions,
  ctx: CommandContext,
): Promise<ExitCode> {
  const { io } = ctx;
  const [{ createWriterLogger, RunDirectory }, { mergedLoadReport, writeMergedLoad }, { readRequestLines }] =
    await Promise.all([
      import('../../benchmarking/index.js'),
      import('../../runs/index.js'),
      import('../../serving/index.js'),
    ]);
  const points = plan.variants.flatMap(({ variant, dir: from, state }) => {
    const run = readVariantRun(from, variant.id);
    if (run?.note !== undefined) io.stderr.write(`note: ${run.note}\n`);
    return run === undefined ? [] : [{ report: run.report, unfinished: state === 'unfinished' }];
  });
  const requests = plan.variants.flatMap(({ variant, dir: from }) =>
    readRequestLines(new RunDirectory(variantDir(from, variant.id)).requestsJsonlPath),
  );
  const written = await writeMergedLoad(mergedLoadReport(points), dir, {
    requests,
    charts: options.charts,
    logger: createWriterLogger(io.stderr, options.verbose === true ? 'debug' : 'warn'),
  });
  io.stdout.write(
    `Merged ${points.length} of ${plan.manifest.variants.length} sweep point(s) from ${plan.sources.length} folder(s) into ${options.out}\n  ${written.files.join('\n  ')}\n`,
  );
  for (const line of plan.missing) io.stderr.write(`missing (--allow-partial): ${line}\n`);
  if (written.failedCharts.length > 0) {
    io.stderr.write(
      `Chart(s) failed to render: ${written.failedCharts.join(', ')} (see the warnings above).\n`,
    );
    return ExitCode.taskFailed;
  }
  return ExitCode.ok;
}
