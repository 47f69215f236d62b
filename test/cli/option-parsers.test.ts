import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseCalibrationMs } from '../../src/cli/option-parsers.js';
import { CALIBRATION_MS_RANGE } from '../../src/runs/calibration-step.js';

describe('parseCalibrationMs (--calibration-ms)', () => {
  it('accepts an integer from 500 to 600,000 ms, both bounds included', () => {
    expect(CALIBRATION_MS_RANGE).toEqual({ min: 500, max: 600_000 });
    expect(parseCalibrationMs('500')).toBe(500);
    expect(parseCalibrationMs('20000')).toBe(20_000);
    expect(parseCalibrationMs('600000')).toBe(600_000);
  });

  it('refuses one below, one above, fractions and words, naming the range and an example', () => {
    for (const bad of ['499', '600001', '2000.5', 'fast', '-1', '']) {
      expect(() => parseCalibrationMs(bad)).toThrow(InvalidArgumentError);
    }
    expect(() => parseCalibrationMs('600001')).toThrow(/an integer from 500 to 600000 \(ms\).*20000/);
  });
});
