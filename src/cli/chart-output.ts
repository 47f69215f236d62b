/**
 * Helpers the chart-writing commands share (`bench`, `plot`, `report`): checking `--format` and printing what was rendered with the right exit code.
 *
 * @packageDocumentation
 */
import { relative } from 'node:path';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { CHART_FORMATS, type ChartFormat, type RenderResults } from '../visualization/index.js';
import type { CommandContext } from './command-context.js';
import { ExitCode } from './exit-code.js';

/**
 * Checks `--format` values.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for an unknown format.
 */
export function checkFormats(formats: readonly string[]): ChartFormat[] {
  for (const f of formats) {
    if (!(CHART_FORMATS as readonly string[]).includes(f)) {
      throw new DantinoxError('INVALID_OPTION', messages.unknownName('format', f, CHART_FORMATS));
    }
  }
  return formats as ChartFormat[];
}

/**
 * Prints the written files on stdout and the charts not drawn on stderr; returns the exit code: 1 when a chart
 * failed, 2 when an explicitly requested chart could not be drawn (or, with `requireChart`, nothing was drawn),
 * else 0.
 */
export function reportRenderResults(
  results: RenderResults,
  io: CommandContext['io'],
  options: {
    readonly explicit: boolean;
    readonly verbose: boolean;
    readonly cwd: string;
    readonly requireChart: boolean;
  },
): ExitCode {
  let rendered = 0;
  let failed = 0;
  const skipped: string[] = [];
  const paths = new Set<string>();
  for (const [chart, result] of Object.entries(results)) {
    if (result.status === 'rendered') {
      rendered += 1;
      for (const p of Object.values(result.paths)) paths.add(relative(options.cwd, p));
      continue;
    }
    if (result.status === 'failed') failed += 1;
    else skipped.push(chart);
    if (result.status === 'failed' || options.explicit || options.verbose) {
      io.stderr.write(`${messages.chartNotDrawn(chart, result.status, result.reason)}\n`);
    }
  }
  for (const p of paths) io.stdout.write(`${p}\n`);
  if (skipped.length > 0 && !options.explicit && !options.verbose) {
    io.stderr.write(`${messages.chartsWithoutData(skipped)}\n`);
  }
  if (failed > 0) return ExitCode.taskFailed;
  if ((options.requireChart && rendered === 0) || (options.explicit && skipped.length > 0))
    return ExitCode.usage;
  return ExitCode.ok;
}
