/**
 * The latency's named parts on the real engine: the tiny preset traced on ONNX Runtime (profiler on), its
 * `session.run` spans inside the engine calls, the Identity session and the output copy measured, and the
 * `operators` row whose remainder is split into one row per part plus `unexplained`. No timing is asserted: only
 * that the rows appear, are finite and add up to the measured latency.
 */
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  identityChainGraph,
  measureOutputCopy,
  measureSessionOverhead,
} from '../../src/models/onnx/session-overhead.js';
import {
  LATENCY_PART_LABELS,
  LATENCY_PARTS,
  latencyPartNeeds,
  UNEXPLAINED_OP,
} from '../../src/profiling/latency-parts.js';
import { ENGINE_RUN_CAT } from '../../src/profiling/trace-recorder.js';
import { measureLatencyParts } from '../../src/runs/latency-parts-step.js';
import { LATENCY_PART_KEYS, operatorResult } from '../../src/runs/operator-result.js';
import { traceTinyLatency } from './traced-tiny.js';

describe('the latency parts of a traced tiny run', () => {
  it('splits each phase’s remainder into the named parts and the rest, summing to the latency', async () => {
    const { config, written } = await traceTinyLatency();
    const events = written.trace.traceEvents;
    // Every engine call has its session.run span inside it.
    const calls = events.filter((e) => e.cat?.startsWith('engine,'));
    const runs = events.filter((e) => e.cat === ENGINE_RUN_CAT);
    expect(runs.length).toBe(calls.length);
    for (const run of runs) {
      const call = calls.find((c) => c.args?.['call'] === run.args?.['call']);
      expect(call).toBeDefined();
      expect(run.ts).toBeGreaterThanOrEqual(call?.ts as number);
      expect(run.ts + (run.dur as number)).toBeLessThanOrEqual((call?.ts as number) + (call?.dur as number));
    }
    // tiny: a decode step fetches logits plus a key and a value per block, each output's bytes recorded.
    const needs = latencyPartNeeds(events);
    expect(needs.map((n) => n.phase)).toEqual(['prefill', 'decode']);
    for (const n of needs) {
      expect(n.kinds.reduce((s, k) => s + k.calls, 0)).toBe(n.calls);
      for (const k of n.kinds) {
        expect(k.outputBytes.length).toBe(k.fetches);
        expect(k.kernelsPerCall).toBeGreaterThan(k.fetches);
      }
    }
    const step = needs[1]?.kinds[0];
    expect(step?.fetches).toBe(1 + 2 * config.numBlocks);
    expect(step?.outputBytes[0]).toBe(config.vocabSize * 4); // one position's logits, batch 1
    const parts = await measureLatencyParts(events, { threads: 1 });
    const built = operatorResult({ trace: written.trace, parts });
    expect(built).toBeDefined();
    const { table, result } = built as NonNullable<typeof built>;
    for (const p of parts) {
      expect(p.missing).toEqual([]);
      for (const part of p.parts) expect(Number.isFinite(part.us) && part.us >= 0, part.part).toBe(true);
      const rows = table.rows.filter((r) => r.phase === p.phase);
      const labels = rows.filter((r) => r.category === 'remainder').map((r) => r.op);
      expect(labels).toEqual([...LATENCY_PARTS.map((x) => LATENCY_PART_LABELS[x]), UNEXPLAINED_OP]);
      // The rows still sum to the phase: shares to 1, µs to the latency of its calls.
      expect(rows.reduce((s, r) => s + r.share, 0)).toBeCloseTo(1, 9);
      expect(rows.reduce((s, r) => s + r.totalUs, 0) / p.calls).toBeCloseTo(p.latencyUs, 6);
      expect(p.kernelUs + p.parts.reduce((s, x) => s + x.us, 0) + p.unexplainedUs).toBeCloseTo(
        p.latencyUs,
        6,
      );
      for (const part of LATENCY_PARTS)
        expect(result.metrics[`operators_${p.phase}_${LATENCY_PART_KEYS[part]}_ms`]).toBeTypeOf('number');
      expect(result.metrics[`operators_${p.phase}_explained_fraction`]).toBeCloseTo(p.explainedFraction, 12);
      expect(result.meta?.[`operators_${p.phase}_explained_goal_met`]).toBe(p.goalMet);
    }
  });
});

describe('the part probes', () => {
  it('build an Identity graph of the asked counts and refuse impossible ones', () => {
    expect(identityChainGraph(5, 3, 2).byteLength).toBeGreaterThan(0);
    expect(() => identityChainGraph(1, 1, 2)).toThrow(/nodes ≥ outputs/);
    expect(() => identityChainGraph(3, 0, 1)).toThrow(/positive integer/);
  });
  it('time the Identity session and the copy as finite positive µs', async () => {
    const sessionUs = await measureSessionOverhead({
      nodes: 8,
      inputs: 3,
      outputs: 2,
      threads: 1,
      runs: 5,
      rounds: 3,
    });
    expect(Number.isFinite(sessionUs) && sessionUs > 0).toBe(true);
    const copyUs = measureOutputCopy([4096, 1024], { rounds: 3 });
    expect(Number.isFinite(copyUs) && copyUs >= 0).toBe(true);
  });
  it('time the Identity session with the profiler on, and leave no trace file behind', async () => {
    const before = new Set(readdirSync(tmpdir()));
    const options = { nodes: 8, inputs: 3, outputs: 2, threads: 1, runs: 5, rounds: 3, profile: true };
    const profiledUs = await measureSessionOverhead(options);
    expect(Number.isFinite(profiledUs) && profiledUs > 0).toBe(true);
    expect(readdirSync(tmpdir()).filter((f) => !before.has(f) && f.startsWith('dantinox-identity-'))).toEqual(
      [],
    );
  });
});
