/**
 * `writeComparison`: the files of a comparison in a folder — `comparison.md`, `comparison.json`, the compare chart
 * (SVG, PNG) and an HTML report — what `dantinox compare --out` writes.
 *
 * @packageDocumentation
 */
import { writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { comparisonRows, formatComparisons, type ReportComparison } from '../benchmarking/index.js';
import { DantinoxError } from '../errors.js';
import { makeDirectory } from '../make-directory.js';
import { messages } from '../messages.js';
import { type ChartRenderResult, Visualizer } from '../visualization/index.js';

/** What {@link writeComparison} wrote. */
export interface WrittenComparison {
  /** The folder (absolute). */
  readonly dir: string;
  /** Files written, relative to the folder. */
  readonly files: readonly string[];
  /** What became of the compare chart: `rendered`, or why it was not. */
  readonly chart: ChartRenderResult | undefined;
}

/**
 * Writes `comparison.md` and `comparison.json` of `comparisons` into `dir` (created; relative to `cwd`), then the
 * compare chart (`comparison-compare.svg` / `.png`) and its HTML report (`comparison-report.html`). A chart that
 * cannot be drawn (nothing to compare) is returned as such, not thrown.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when the folder or a text file cannot be written.
 */
export async function writeComparison(
  comparisons: readonly ReportComparison[],
  dir: string,
  cwd: string = process.cwd(),
): Promise<WrittenComparison> {
  const outDir = isAbsolute(dir) ? dir : resolve(cwd, dir);
  try {
    makeDirectory(outDir);
    await writeFile(join(outDir, 'comparison.md'), formatComparisons(comparisons, 'markdown'));
    await writeFile(join(outDir, 'comparison.json'), formatComparisons(comparisons, 'json'));
  } catch (cause) {
    throw new DantinoxError('IO', messages.cannotWrite(outDir, cause), { cause });
  }
  const results = await new Visualizer().render(comparisonRows(comparisons), {
    charts: ['compare'],
    outDir,
    formats: ['svg', 'png', 'html'],
    runName: 'comparison',
    overwrite: true,
    title: `dantinox compare: ${comparisons.map((c) => c.candidate.label).join(', ')} vs ${comparisons[0]?.baseline.label ?? ''}`,
  });
  const chart = results['compare'];
  const drawn =
    chart?.status === 'rendered' ? Object.values(chart.paths).map((p) => relative(outDir, p)) : [];
  return { dir: outDir, files: ['comparison.md', 'comparison.json', ...drawn], chart };
}
