/**
 * The training log: one row every `logEvery` steps (and at each validation and the last step), appended as the
 * run goes to `train-log.jsonl` and `train-log.csv` in the run folder, so a crash loses nothing logged. The
 * `training_curve` chart draws it.
 *
 * @packageDocumentation
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { type Ceilings, modelFlopsUtilisation } from '../profiling/efficiency.js';
import type { StepRecord, ValidationRecord } from './trainer.js';

/** Columns of the log, in order. */
export const TRAINING_LOG_COLUMNS = [
  'step',
  'train_loss',
  'val_loss',
  'val_bits_per_byte',
  'lr',
  'grad_norm',
  'tokens',
  'tokens_per_s',
  'mfu',
] as const;

/** File names of the log in the run folder. */
export const TRAINING_LOG_FILES = Object.freeze({
  /** One JSON object per row. */
  jsonl: 'train-log.jsonl',
  /** The same rows as CSV, header first. */
  csv: 'train-log.csv',
});

/**
 * One row of the log: `step` (updates done), `train_loss` (mean loss of the steps since the previous row, weighted
 * by their scored tokens, nats), `val_loss` and `val_bits_per_byte` (held-out, at validation rows), `lr` (of the
 * row's last step), `grad_norm` (mean global norm before clipping), `tokens` (trained so far), `tokens_per_s`
 * (tokens of the row's steps ÷ their time, validation and checkpoints excluded) and `mfu` (the training FLOPs of
 * those tokens — `countTrainingFlops`, 3 × the forward pass's — per second ÷ the calibrated fp32 GEMM ceiling).
 */
export type TrainingLogRow = {
  /** Updates done. */
  readonly step: number;
  /** Mean training loss of the row's steps, nats per scored token. */
  readonly train_loss: number;
  /** Held-out loss, nats per scored token (validation rows only). */
  readonly val_loss?: number;
  /** Held-out bits per byte (validation rows of ar models only). */
  readonly val_bits_per_byte?: number;
  /** Learning rate of the row's last step. */
  readonly lr: number;
  /** Mean global gradient norm (before clipping) of the row's steps. */
  readonly grad_norm: number;
  /** Tokens trained so far. */
  readonly tokens: number;
  /** Tokens per second of the row's steps. */
  readonly tokens_per_s: number;
  /** Model FLOP utilisation of the row's steps (absent without a calibrated ceiling). */
  readonly mfu?: number;
};

const rowSchema: z.ZodType<TrainingLogRow> = z.object({
  step: z.number().int().positive(),
  train_loss: z.number(),
  val_loss: z.exactOptional(z.number()),
  val_bits_per_byte: z.exactOptional(z.number()),
  lr: z.number(),
  grad_norm: z.number(),
  tokens: z.number(),
  tokens_per_s: z.number(),
  mfu: z.exactOptional(z.number()),
});

const cell = (v: number | undefined): string => (v === undefined ? '' : String(v));

/** The log files of a run folder, written row by row. */
export class TrainingLog {
  readonly #jsonl: string;
  readonly #csv: string;
  readonly #rows: TrainingLogRow[];

  private constructor(dir: string, rows: TrainingLogRow[]) {
    this.#jsonl = join(dir, TRAINING_LOG_FILES.jsonl);
    this.#csv = join(dir, TRAINING_LOG_FILES.csv);
    this.#rows = rows;
    writeFileSync(this.#jsonl, rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
    writeFileSync(this.#csv, `${TRAINING_LOG_COLUMNS.join(',')}\n${rows.map(csvLine).join('')}`);
  }

  /**
   * Starts the log of the run folder `dir`: empty, or (resuming at step `keepThrough`) its rows up to that step,
   * both files rewritten from them.
   *
   * @throws {@link dantinox!DantinoxError} `IO` when the folder's JSONL log cannot be read.
   */
  static open(dir: string, keepThrough?: number): TrainingLog {
    const kept =
      keepThrough === undefined
        ? []
        : readTrainingLog(join(dir, TRAINING_LOG_FILES.jsonl)).filter((r) => r.step <= keepThrough);
    return new TrainingLog(dir, kept);
  }

  /** Appends `row` to both files. */
  append(row: TrainingLogRow): void {
    this.#rows.push(row);
    appendFileSync(this.#jsonl, `${JSON.stringify(row)}\n`);
    appendFileSync(this.#csv, csvLine(row));
  }

  /** The rows so far. */
  get rows(): readonly TrainingLogRow[] {
    return this.#rows;
  }
}

function csvLine(row: TrainingLogRow): string {
  return `${TRAINING_LOG_COLUMNS.map((c) => cell(row[c])).join(',')}\n`;
}

/**
 * The rows of a `train-log.jsonl` (none when the file does not exist).
 *
 * @throws {@link dantinox!DantinoxError} `IO` for a line that is not a log row.
 */
export function readTrainingLog(path: string): TrainingLogRow[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line, i) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (cause) {
        throw new DantinoxError('IO', messages.malformedFile(`${path}:${i + 1}`, 'JSON', cause), { cause });
      }
      const row = rowSchema.safeParse(parsed);
      if (!row.success)
        throw new DantinoxError(
          'IO',
          messages.malformedFile(`${path}:${i + 1}`, 'training log row', row.error),
        );
      return row.data;
    });
}

/** The sums of the steps since the last row: what a checkpoint stores so that the next row is the same. */
export interface LogInterval {
  /** Steps. */
  readonly steps: number;
  /** Σ loss × scored tokens. */
  readonly lossSum: number;
  /** Σ scored tokens. */
  readonly scored: number;
  /** Σ gradient norms. */
  readonly gradNormSum: number;
  /** Σ tokens run. */
  readonly tokens: number;
  /** Σ step time, seconds. */
  readonly seconds: number;
}

/** An empty interval. */
export const EMPTY_INTERVAL: LogInterval = Object.freeze({
  steps: 0,
  lossSum: 0,
  scored: 0,
  gradNormSum: 0,
  tokens: 0,
  seconds: 0,
});

/** `interval` with one more step of `seconds`. */
export function addStep(interval: LogInterval, record: StepRecord, seconds: number): LogInterval {
  return {
    steps: interval.steps + 1,
    lossSum: interval.lossSum + record.loss * record.scored,
    scored: interval.scored + record.scored,
    gradNormSum: interval.gradNormSum + record.gradNorm,
    tokens: interval.tokens + record.tokens,
    seconds: interval.seconds + seconds,
  };
}

/**
 * The log row closing `interval` at `record`'s step: `tokensTrained` tokens so far, `flopsPerToken` training FLOPs
 * per token and the machine's `ceilings` (`mfu` is `modelFlopsUtilisation` of the interval against the fp32 GEMM
 * ceiling, as `bench` computes it; absent without ceilings).
 */
export function logRow(
  interval: LogInterval,
  record: StepRecord,
  tokensTrained: number,
  validation: ValidationRecord | undefined,
  efficiency: { readonly flopsPerToken: number; readonly ceilings: Ceilings | undefined },
): TrainingLogRow {
  const tokensPerS = interval.seconds > 0 ? interval.tokens / interval.seconds : 0;
  const mfu = modelFlopsUtilisation(
    interval.tokens * efficiency.flopsPerToken,
    interval.seconds,
    'fp32',
    efficiency.ceilings,
  );
  return {
    step: record.step,
    train_loss: interval.lossSum / interval.scored,
    ...(validation === undefined ? {} : { val_loss: validation.loss }),
    ...(validation?.bitsPerByte === undefined ? {} : { val_bits_per_byte: validation.bitsPerByte }),
    lr: record.lr,
    grad_norm: interval.gradNormSum / interval.steps,
    tokens: tokensTrained,
    tokens_per_s: tokensPerS,
    ...('value' in mfu ? { mfu: mfu.value } : {}),
  };
}
