import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import {
  formatTimeBreakdown,
  OP_CATEGORIES,
  OP_CATEGORY_TABLE,
  opCategory,
  parseOrtProfile,
  timeBreakdown,
} from '../../src/profiling/op-time-breakdown.js';
import { fixture } from '../visualization/golden.js';

const trace: unknown = JSON.parse(readFileSync(fixture('ort-profile-small.json'), 'utf8'));

describe('parseOrtProfile', () => {
  it('splits the kernel time of the hand-written trace by model_run and operator type', () => {
    const runs = parseOrtProfile(trace);
    expect(runs).toEqual([
      {
        runMs: 1,
        opMs: {
          MatMul: 0.3,
          FusedMatMul: 0.1,
          Softmax: 0.05,
          GroupQueryAttention: 0.15,
          SkipSimplifiedLayerNormalization: 0.08,
          Reshape: 0.12,
        },
      },
      { runMs: 0.5, opMs: { MatMulNBits: 0.2, LayerNormalization: 0.04, Gather: 0.06 } },
    ]);
  });

  it('accepts { traceEvents } and refuses what is not a trace of a run', () => {
    expect(parseOrtProfile({ traceEvents: trace })).toEqual(parseOrtProfile(trace));
    expect(() => parseOrtProfile({})).toThrow(DantinoxError);
    expect(() =>
      parseOrtProfile([{ cat: 'Session', name: 'session_initialization', ts: 0, dur: 1 }]),
    ).toThrow(/no model_run event/);
  });
});

describe('timeBreakdown', () => {
  it('sums the operator types into the frozen categories (known answer)', () => {
    const [prefill, decode] = parseOrtProfile(trace).map(timeBreakdown);
    expect(prefill?.runMs).toBe(1);
    expect(prefill?.kernelMs).toBeCloseTo(0.8, 12);
    expect(prefill?.categoryMs.matmul).toBeCloseTo(0.4, 12);
    expect(prefill?.categoryMs.attention).toBeCloseTo(0.15, 12);
    expect(prefill?.categoryMs.norm).toBeCloseTo(0.08, 12);
    expect(prefill?.categoryMs.softmax).toBeCloseTo(0.05, 12);
    expect(prefill?.categoryMs.other).toBeCloseTo(0.12, 12);
    expect(decode?.categoryMs).toEqual({ matmul: 0.2, attention: 0, norm: 0.04, softmax: 0, other: 0.06 });
  });

  it('maps unknown operator types to other; the table is frozen', () => {
    expect(opCategory('Erf')).toBe('other');
    expect(opCategory('toString')).toBe('other');
    expect(opCategory('DynamicQuantizeMatMul')).toBe('matmul');
    expect(Object.isFrozen(OP_CATEGORY_TABLE)).toBe(true);
    expect(new Set(Object.values(OP_CATEGORY_TABLE))).toEqual(
      new Set(OP_CATEGORIES.filter((c) => c !== 'other')),
    );
  });

  it('formats a table with ms and shares of the kernel time', () => {
    const [prefill, decode] = parseOrtProfile(trace).map(timeBreakdown);
    const text = formatTimeBreakdown([
      { label: 'tiny · prefill', breakdown: prefill! },
      { label: 'tiny · decode', breakdown: decode! },
    ]);
    const lines = text.split('\n');
    expect(lines[0]?.trim().split(/\s+/)).toEqual([...OP_CATEGORIES, 'kernels', 'run']);
    expect(lines[1]).toContain('0.40 ms (50%)');
    expect(lines[1]).toContain('0.12 ms (15%)');
    expect(lines[2]).toContain('0.20 ms (67%)');
    expect(lines[2]).toMatch(/0\.30 ms\s+0\.50 ms$/);
  });
});
