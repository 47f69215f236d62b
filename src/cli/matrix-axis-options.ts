/**
 * The matrix axis flags of `dantinox bench` (`--config a,b`, `--threads 1,2`…), one per row of the axes table.
 *
 * @packageDocumentation
 */
import { type Command, Option } from 'commander';
import { MATRIX_AXES, MATRIX_AXIS_NAMES } from '../benchmarking/matrix/matrix-axes.js';
import type { AxisFlags } from '../runs/index.js';
import { parseNameList } from './option-parsers.js';

/**
 * Adds one `--<axis> <list>` option per matrix axis to `command` (from the axes table, so a new axis gets its
 * flag without touching the command).
 */
export function addMatrixAxisOptions(command: Command): Command {
  for (const axis of MATRIX_AXES) {
    const flags = `${'short' in axis ? `${axis.short}, ` : ''}${axis.flag} <list>`;
    const option = new Option(
      flags,
      `${axis.description}; a comma-separated list runs one variant per value`,
    );
    command.addOption(option.argParser((value: string) => parseNameList(value)));
  }
  return command;
}

/** The axis flags present in parsed commander options. */
export function axisFlags(options: Readonly<Record<string, unknown>>): AxisFlags {
  const out: Record<string, readonly string[]> = {};
  for (const name of MATRIX_AXIS_NAMES) {
    const value = options[name];
    if (Array.isArray(value)) out[name] = value as string[];
  }
  return out;
}
