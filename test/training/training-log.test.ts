/** The log rows' formulas by hand, the files they are written to, and their truncation on resume. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelFlopsUtilisation } from '../../src/profiling/efficiency.js';
import {
  addStep,
  EMPTY_INTERVAL,
  logRow,
  readTrainingLog,
  TRAINING_LOG_FILES,
  TrainingLog,
} from '../../src/training/training-log.js';

const step = (n: number, loss: number, scored: number) => ({
  step: n,
  loss,
  lr: 1e-3 / n,
  gradNorm: n,
  tokens: 64,
  scored,
});
const ceilings = { source: 'calibrated' as const, gemmGflops: { fp32: 100 } };

describe('log rows', () => {
  it('train_loss is the scored-token-weighted mean; grad_norm the mean; tokens/s over the steps’ own time', () => {
    let interval = addStep(EMPTY_INTERVAL, step(1, 2, 10), 0.5);
    interval = addStep(interval, step(2, 4, 30), 1.5);
    const row = logRow(
      interval,
      step(2, 4, 30),
      640,
      { loss: 3.5, bitsPerByte: 1.25, tokens: 100 },
      { flopsPerToken: 1e6, ceilings },
    );
    expect(row).toEqual({
      step: 2,
      train_loss: (2 * 10 + 4 * 30) / 40,
      val_loss: 3.5,
      val_bits_per_byte: 1.25,
      lr: 5e-4,
      grad_norm: 1.5,
      tokens: 640,
      tokens_per_s: 128 / 2,
      mfu: (modelFlopsUtilisation(128 * 1e6, 2, 'fp32', ceilings) as { value: number }).value,
    });
    expect(row.mfu).toBeCloseTo((64 * 1e6) / 1e9 / 100, 12);
  });

  it('has no validation or mfu columns without a validation or a ceiling', () => {
    const row = logRow(addStep(EMPTY_INTERVAL, step(1, 2, 10), 1), step(1, 2, 10), 64, undefined, {
      flopsPerToken: 1e6,
      ceilings: undefined,
    });
    expect(Object.keys(row)).toEqual(['step', 'train_loss', 'lr', 'grad_norm', 'tokens', 'tokens_per_s']);
  });
});

describe('the log files', () => {
  it('get one JSON line and one CSV line per row, and keep the rows up to a resumed step', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dx-log-'));
    const log = TrainingLog.open(dir);
    log.append({ step: 10, train_loss: 3, lr: 0.001, grad_norm: 1, tokens: 100, tokens_per_s: 50 });
    log.append({
      step: 20,
      train_loss: 2.5,
      val_loss: 2.75,
      val_bits_per_byte: 4,
      lr: 0.0005,
      grad_norm: 0.5,
      tokens: 200,
      tokens_per_s: 60,
      mfu: 0.25,
    });
    log.append({ step: 30, train_loss: 2, lr: 0.0001, grad_norm: 0.25, tokens: 300, tokens_per_s: 70 });
    expect(readFileSync(join(dir, TRAINING_LOG_FILES.csv), 'utf8')).toBe(
      'step,train_loss,val_loss,val_bits_per_byte,lr,grad_norm,tokens,tokens_per_s,mfu\n' +
        '10,3,,,0.001,1,100,50,\n20,2.5,2.75,4,0.0005,0.5,200,60,0.25\n30,2,,,0.0001,0.25,300,70,\n',
    );
    const resumed = TrainingLog.open(dir, 25);
    expect(resumed.rows.map((r) => r.step)).toEqual([10, 20]);
    expect(readTrainingLog(join(dir, TRAINING_LOG_FILES.jsonl)).map((r) => r.step)).toEqual([10, 20]);
    expect(readFileSync(join(dir, TRAINING_LOG_FILES.csv), 'utf8').trim().split('\n')).toHaveLength(3);
    expect(TrainingLog.open(dir).rows).toEqual([]);
  });
});
