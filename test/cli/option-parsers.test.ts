import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { choiceList, integerInRange, parseCalibrationMs } from '../../src/cli/option-parsers.js';
import { messages } from '../../src/messages.js';
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

describe('integerInRange (--vocab-size)', () => {
  const parse = integerInRange(257, 1_048_576, '4096');

  it('accepts both bounds and what lies between', () => {
    expect(parse('257')).toBe(257);
    expect(parse(' 4096 ')).toBe(4096);
    expect(parse('1048576')).toBe(1_048_576);
  });

  it('refuses one below, one above, fractions, signs and words, naming the range and an example', () => {
    for (const bad of ['256', '1048577', '300.5', '-300', '+300', 'big', ''])
      expect(() => parse(bad), bad).toThrow(InvalidArgumentError);
    expect(() => parse('256')).toThrow(messages.badCliValue('256', 'an integer from 257 to 1048576', '4096'));
  });
});

describe('choiceList (--orders, --smoothing)', () => {
  const orders = choiceList([1, 2, 3] as const, '1,2,3');

  it('returns the values in the order given, numbers as numbers', () => {
    expect(orders('3,1')).toEqual([3, 1]);
    expect(orders(' 2 ')).toEqual([2]);
    expect(choiceList(['add-k', 'kneser-ney'] as const, 'add-k')('kneser-ney,add-k')).toEqual([
      'kneser-ney',
      'add-k',
    ]);
  });

  it('refuses an unknown value, a repeated one and an empty entry', () => {
    for (const bad of ['4', '1,1', '1,,2', '', 'one'])
      expect(() => orders(bad), bad).toThrow(InvalidArgumentError);
    expect(() => orders('2,4')).toThrow(
      messages.badCliValue('2,4', 'a comma-separated list of 1, 2, 3, each once', '1,2,3'),
    );
  });
});
