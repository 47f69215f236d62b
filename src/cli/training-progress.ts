/**
 * The progress of `dantinox train` on stderr: a live bar on a terminal (step, loss, tokens/s, ETA), otherwise one
 * line per log row; notes (tokenizing, calibrating, resuming) as they come.
 *
 * @packageDocumentation
 */
import cliProgress from 'cli-progress';
import { formatSignificant } from '../number-format.js';
import type { TrainingHooks } from '../runs/index.js';
import type { TrainingLogRow } from '../training/index.js';
import type { CliWriter } from './cli-io.js';

/** `90 s`, `12 min`, `1 h 05 min`. */
export function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds)) return '–';
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  const h = Math.floor(seconds / 3600);
  return `${h} h ${String(Math.round((seconds - h * 3600) / 60)).padStart(2, '0')} min`;
}

/** One line of a log row: step, losses, learning rate, throughput, MFU and the time left. */
export function rowLine(row: TrainingLogRow, steps: number, etaSeconds: number): string {
  const parts = [
    `step ${String(row.step).padStart(String(steps).length)}/${steps}`,
    `train_loss ${row.train_loss.toFixed(4)}`,
    ...(row.val_loss === undefined ? [] : [`val_loss ${row.val_loss.toFixed(4)}`]),
    ...(row.val_bits_per_byte === undefined ? [] : [`val_bpb ${row.val_bits_per_byte.toFixed(3)}`]),
    `lr ${row.lr.toExponential(2)}`,
    `${formatSignificant(row.tokens_per_s)} tok/s`,
    ...(row.mfu === undefined ? [] : [`mfu ${row.mfu.toFixed(3)}`]),
    `ETA ${formatEta(etaSeconds)}`,
  ];
  return parts.join('  ');
}

/** Training hooks that show progress on `writer` (nothing but notes when `quiet`), and `stop()` to end the bar. */
export function trainingProgress(writer: CliWriter, quiet: boolean): TrainingHooks & { stop(): void } {
  let steps = 0;
  let secondsPerStep = Number.NaN;
  let step = 0;
  let bar: cliProgress.SingleBar | undefined;
  const live =
    writer.isTTY === true && typeof (writer as Partial<NodeJS.WriteStream>).cursorTo === 'function';
  const eta = (): number => (steps - step) * secondsPerStep;
  return {
    name: 'progress',
    onNote: (text) => {
      if (bar === undefined) writer.write(text);
    },
    onStart: (start) => {
      steps = start.options.steps;
      step = start.step;
      writer.write(
        `Training on ${start.tokens.train.toLocaleString('en-US')} tokens (held out: ${start.tokens.heldOut.toLocaleString('en-US')}), ${start.tokenizer}, ${start.engine}, ${start.threads} threads, from step ${start.step} of ${steps}.\n`,
      );
      if (quiet || !live) return;
      bar = new cliProgress.SingleBar(
        {
          stream: writer as NodeJS.WritableStream,
          format: 'step {value}/{total} {bar} loss {loss} | {tps} tok/s | ETA {left}',
          hideCursor: true,
          clearOnComplete: false,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(steps, step, { loss: '–', tps: '–', left: '–' });
    },
    onStep: (record, perStep) => {
      step = record.step;
      secondsPerStep = perStep;
      bar?.update(record.step, {
        loss: record.loss.toFixed(4),
        tps: formatSignificant(record.tokens / perStep),
        left: formatEta(eta()),
      });
    },
    onRow: (row) => {
      if (quiet) return;
      if (bar === undefined) writer.write(`${rowLine(row, steps, eta())}\n`);
      else if (row.val_loss !== undefined)
        bar.update({ loss: `${row.train_loss.toFixed(4)} (val ${row.val_loss.toFixed(4)})` });
    },
    stop: () => {
      bar?.stop();
      bar = undefined;
    },
  };
}
