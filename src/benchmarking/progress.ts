/**
 * Progress display of a suite run: a live bar on a terminal (task, cell, ETA; `cli-progress`), one plain line
 * per cell otherwise, or nothing. Output goes to an injected {@link TextWriter}, never to the console.
 *
 * @packageDocumentation
 */
import cliProgress from 'cli-progress';
import type { TextWriter } from './logger.js';
import type { BenchmarkResult, CellRecord } from './task.js';

/** How progress is shown: `auto` = live bar on a TTY writer, plain lines otherwise. */
export type ProgressMode = 'auto' | 'plain' | 'every' | 'silent';

/** Receives the suite's progress events. */
export interface ProgressDisplay {
  /** A task starts (`index` is 0-based). */
  taskStart(task: string, index: number, total: number): void;
  /** The running task announced its number of cells. */
  plan(task: string, cells: number): void;
  /** A cell finished. */
  cell(cell: CellRecord): void;
  /** A task finished. */
  taskEnd(result: BenchmarkResult): void;
  /** The run ended: release the terminal. */
  stop(): void;
}

const fmt = (v: number): string =>
  Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3);

/** One-line description of a cell: status, then tok/s and mean latency when completed, else the reason. */
export function describeCell(cell: CellRecord): string {
  if (cell.status !== 'completed') return `${cell.status}: ${cell.error ?? ''}`;
  const m = cell.metrics;
  const parts: string[] = [];
  if (m['tps'] !== undefined) parts.push(`${fmt(m['tps'])} tok/s`);
  if (m['mean_ms'] !== undefined) parts.push(`mean ${fmt(m['mean_ms'])} ms`);
  if (m['gflops_per_s'] !== undefined) parts.push(`${fmt(m['gflops_per_s'])} GFLOP/s`);
  if (parts.length === 0) parts.push(...Object.entries(m).map(([k, v]) => `${k}=${fmt(v)}`));
  return parts.join(', ');
}

/** Nothing shown. */
export const silentProgress: ProgressDisplay = {
  taskStart: () => {},
  plan: () => {},
  cell: () => {},
  taskEnd: () => {},
  stop: () => {},
};

/** Completed cells of a task shown by plain progress: about one line per tenth of its planned cells. */
const PLAIN_LINES_PER_TASK = 10;

/**
 * One line per event, for logs and non-interactive terminals. A task with many cells (perplexity's batches) shows
 * about ten of its completed cells — each tenth of the way, and the last — while every failed or skipped cell gets
 * its line; with `everyCell` (`dantinox bench --verbose`) every cell gets its line.
 */
export function plainProgress(writer: TextWriter, everyCell = false): ProgressDisplay {
  let done = 0;
  let planned = 0;
  return {
    taskStart(task, index, total) {
      done = 0;
      planned = 0;
      writer.write(`[${index + 1}/${total}] ${task} …\n`);
    },
    plan(_task, cells) {
      planned = cells;
    },
    cell(cell) {
      done += 1;
      const step = (n: number): number => Math.floor((n * PLAIN_LINES_PER_TASK) / planned);
      const shown =
        everyCell ||
        cell.status !== 'completed' ||
        planned <= PLAIN_LINES_PER_TASK ||
        done === planned ||
        step(done) !== step(done - 1);
      if (!shown) return;
      const of = planned > 0 ? `${done}/${planned}` : `${done}`;
      writer.write(`  ${cell.task} ${cell.cell} (${of}): ${describeCell(cell)}\n`);
    },
    taskEnd(result) {
      const status = result.status === 'failed' ? `failed: ${result.error ?? ''}` : 'done';
      const secs = result.durationMs === undefined ? '' : ` in ${(result.durationMs / 1000).toFixed(1)} s`;
      writer.write(`  ${result.task} ${status}${secs}\n`);
    },
    stop() {},
  };
}

/** A live `cli-progress` bar per task (cells done / planned, current cell, ETA), on a TTY stream. */
export function liveProgress(stream: NodeJS.WritableStream): ProgressDisplay {
  let bar: cliProgress.SingleBar | undefined;
  const plain = plainProgress(stream as unknown as TextWriter);
  const end = (): void => {
    bar?.stop();
    bar = undefined;
  };
  return {
    taskStart(task, index, total) {
      end();
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: `[${index + 1}/${total}] ${task} {bar} {value}/{total} cells | {cell} | ETA {eta_formatted}`,
          hideCursor: true,
          clearOnComplete: false,
          etaBuffer: 4,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(1, 0, { cell: 'starting' });
    },
    plan(_task, cells) {
      bar?.setTotal(Math.max(1, cells));
    },
    cell(cell) {
      bar?.increment(1, { cell: `${cell.cell}: ${describeCell(cell)}` });
    },
    taskEnd(result) {
      end();
      if (result.status === 'failed') plain.taskEnd(result);
    },
    stop: end,
  };
}

/**
 * The display for `mode` on `writer` (`undefined` writer → silent): `auto` a live bar on a terminal and
 * {@link plainProgress} otherwise, `plain` always the latter, `every` the latter with a line for every cell.
 */
export function createProgress(mode: ProgressMode, writer: TextWriter | undefined): ProgressDisplay {
  if (mode === 'silent' || writer === undefined) return silentProgress;
  if (mode === 'every') return plainProgress(writer, true);
  const stream = writer as Partial<NodeJS.WriteStream>;
  if (mode === 'auto' && writer.isTTY === true && typeof stream.cursorTo === 'function') {
    return liveProgress(writer as NodeJS.WritableStream);
  }
  return plainProgress(writer);
}
