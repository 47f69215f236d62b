/**
 * The matrix axes one by one: the value each accepts and its canonical spelling, what each refuses and the message,
 * and the part a value gives a variant id (known answers, including the edges of the id-safe rewrite).
 */
import { describe, expect, it } from 'vitest';
import {
  MATRIX_AXIS_NAMES,
  type MatrixAxisName,
  matrixAxis,
} from '../../../src/benchmarking/matrix/matrix-axes.js';
import { DTYPE_NAMES } from '../../../src/dtype.js';
import { DantinoxError } from '../../../src/errors.js';
import { messages } from '../../../src/messages.js';
import { ENGINE_NAMES } from '../../../src/models/engines/engine-name.js';
import { TARGET_NAMES } from '../../../src/models/engines/target-name.js';

/** Checks `value` on axis `name`, expecting `INVALID_OPTION` with `message`. */
function refused(name: MatrixAxisName, value: string, message: string): void {
  let error: unknown;
  try {
    matrixAxis(name).check(value);
  } catch (e) {
    error = e;
  }
  expect(error, `${name} ${value}`).toBeInstanceOf(DantinoxError);
  expect((error as DantinoxError).code).toBe('INVALID_OPTION');
  expect((error as Error).message).toBe(message);
}

describe('matrixAxis', () => {
  it('finds every axis by its name, in canonical order', () => {
    expect(MATRIX_AXIS_NAMES).toEqual([
      'config',
      'model',
      'engine',
      'target',
      'dtype',
      'threads',
      'paradigm',
    ]);
    for (const name of MATRIX_AXIS_NAMES) expect(matrixAxis(name).name).toBe(name);
    expect(matrixAxis('threads').flag).toBe('--threads');
  });
});

describe('axis values', () => {
  it('takes any config or model as given (checked where the model is resolved)', () => {
    expect(matrixAxis('config').check('configs/My Model.yaml')).toBe('configs/My Model.yaml');
    expect(matrixAxis('model').check('models/a')).toBe('models/a');
  });

  it('takes only the known engines, targets and paradigms, each as spelled', () => {
    for (const engine of ENGINE_NAMES) expect(matrixAxis('engine').check(engine)).toBe(engine);
    for (const target of TARGET_NAMES) expect(matrixAxis('target').check(target)).toBe(target);
    expect(matrixAxis('paradigm').check('diffusion')).toBe('diffusion');
    refused('engine', 'onnx', messages.matrixBadValue('--engine', 'onnx', ENGINE_NAMES));
    refused('engine', 'ORT', messages.matrixBadValue('--engine', 'ORT', ENGINE_NAMES));
    refused('target', 'deno', messages.matrixBadValue('--target', 'deno', TARGET_NAMES));
    refused('paradigm', 'mlm', messages.matrixBadValue('--paradigm', 'mlm', ['ar', 'diffusion']));
  });

  it('spells a dtype canonically (case, aliases) and names --dtype when it refuses one', () => {
    expect(matrixAxis('dtype').check('Q8')).toBe('q8');
    expect(matrixAxis('dtype').check('float16')).toBe('fp16');
    refused('dtype', 'fp64', messages.unknownName('--dtype', 'fp64', DTYPE_NAMES));
  });

  it('takes threads as a positive integer, canonical, and refuses 0, signs, fractions, exponents and unsafe integers', () => {
    const threads = matrixAxis('threads');
    expect(threads.check('1')).toBe('1');
    expect(threads.check('02')).toBe('2');
    expect(threads.check(' 12 ')).toBe('12');
    expect(threads.check('9007199254740991')).toBe('9007199254740991');
    const bad = (value: string) =>
      refused('threads', value, messages.matrixBadValue('--threads', value, ['a positive integer']));
    for (const value of [
      '0',
      '00',
      '-1',
      '+1',
      '1.5',
      '2.0',
      '1e1',
      '0x10',
      'two',
      '',
      ' ',
      '9007199254740993',
    ])
      bad(value);
  });
});

describe('axis id parts', () => {
  it('names a config or model by its file or folder name, without a YAML/JSON extension', () => {
    const part = matrixAxis('config').idPart;
    expect(part('tiny')).toBe('tiny');
    expect(part('configs/small.yaml')).toBe('small');
    expect(part('configs/small.yml')).toBe('small');
    expect(part('configs/Big.JSON')).toBe('Big');
    expect(part('configs/model.json.bak')).toBe('model.json.bak');
    expect(matrixAxis('model').idPart('models/phi-2/')).toBe('phi_2');
    expect(matrixAxis('model').idPart('models/Qwen 0.5B//')).toBe('Qwen_0.5B');
    // A Windows path on POSIX: backslashes are not separators, but a trailing one is dropped before the extension.
    expect(matrixAxis('config').idPart('c:\\cfg\\small.yaml\\\\')).toBe('c_cfg_small');
  });

  it('keeps letters, digits, dots and underscores; any other run becomes one underscore, none at either end', () => {
    const part = matrixAxis('engine').idPart;
    expect(part('llama.cpp')).toBe('llama.cpp');
    expect(part('transformers.js')).toBe('transformers.js');
    expect(part('a b/c')).toBe('a_b_c');
    expect(part('a  --  b')).toBe('a_b');
    expect(part('--x--')).toBe('x');
    expect(part('__x__')).toBe('x');
    expect(part('x_y')).toBe('x_y');
    expect(part('***')).toBe('_');
    expect(matrixAxis('dtype').idPart('q8')).toBe('q8');
    expect(matrixAxis('target').idPart('node')).toBe('node');
    expect(matrixAxis('paradigm').idPart('ar')).toBe('ar');
  });

  it('prefixes threads with t', () => {
    expect(matrixAxis('threads').idPart('2')).toBe('t2');
    expect(matrixAxis('threads').idPart('16')).toBe('t16');
  });
});
