import { describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../../src/benchmarking/config.js';
import type { CellRecord } from '../../../src/benchmarking/task.js';
import { depthsThatFit } from '../../../src/benchmarking/tasks/depth-sweep.js';
import { LatencyTask } from '../../../src/benchmarking/tasks/latency-task.js';
import { messages } from '../../../src/messages.js';
import type { DecodeState, StepResult } from '../../../src/models/model.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { countFlops } from '../../../src/profiling/flops.js';
import { Rng } from '../../../src/rng.js';
import { contextFor, FakeModel } from '../fake-model.js';

/** Fake costs (ns): every call `1 ms + 10 µs · tokens` (FakeModel), plus these per token of depth. */
const DECODE_NS_PER_DEPTH = 2_000;
const PREFILL_NS_PER_DEPTH_TOKEN = 50; // × P × d

/** A fake model whose decode steps and prefills at depth cost more the deeper the cache is. */
class DepthFakeModel extends FakeModel {
  override async decodeStep(tokens: Int32Array, state: DecodeState): Promise<StepResult> {
    const out = await super.decodeStep(tokens, state);
    this.clock.advance(DECODE_NS_PER_DEPTH * state.length);
    return out;
  }

  async extend(tokens: Int32Array, seq: number, state: DecodeState): Promise<StepResult> {
    const out = await this.prefill(tokens, { batch: 1, seq });
    this.clock.advance(PREFILL_NS_PER_DEPTH_TOKEN * seq * state.length);
    return { logits: out.logits, state: { ...out.state, length: state.length + seq, dispose: () => {} } };
  }
}

const config = BenchmarkConfig.parse({
  seqLens: [16],
  depths: [0, 16, 32],
  nWarmup: 2,
  nMeasure: 4,
  minWarmupMs: 0,
  genTokens: 2,
});

async function run(
  model: FakeModel,
  cfg = config,
): Promise<{ row: Awaited<ReturnType<LatencyTask['run']>>; cells: CellRecord[] }> {
  const cells: CellRecord[] = [];
  const row = await new LatencyTask().run(
    new ARParadigm(model.config),
    model,
    cfg,
    new Rng(0),
    contextFor(model, cells),
  );
  return { row, cells };
}

describe('the latency task with --depths', () => {
  it('times decode steps at depth d without timing the cache fill, and fits the exact line', async () => {
    const model = new DepthFakeModel();
    const { row, cells } = await run(model);
    const n = config.nMeasure;
    // Timed steps run at contexts c0 … c0 + n − 1 (c0 = max(d, 1)): mean = 1.01 ms + 2 µs · (c0 + (n − 1)/2).
    const expected = (c0: number): number => 1.01 + (DECODE_NS_PER_DEPTH * (c0 + (n - 1) / 2)) / 1e6;
    expect(row.metrics['decode_ms_d0']).toBeCloseTo(expected(1), 9);
    expect(row.metrics['decode_ms_d16']).toBeCloseTo(expected(16), 9);
    expect(row.metrics['decode_ms_d32']).toBeCloseTo(expected(32), 9);
    expect(row.metrics['decode_tps_d32']).toBeCloseTo(1000 / expected(32), 6);
    expect(row.metrics['decode_depth_slope_us']).toBeCloseTo(DECODE_NS_PER_DEPTH / 1000, 9);
    expect(row.metrics['decode_depth_fit_r2']).toBeCloseTo(1, 12);
    // The cells carry the analytical cost at their depth.
    const cell = cells.find((c) => c.cell === 'decode@d32');
    expect(cell?.metrics['attn_gflop']).toBeCloseTo(
      countFlops(model.config, { seqLen: 1, pastLength: 32 }).attentionScores / 1e9,
      15,
    );
    expect(row.metrics['decode_attn_gflop_d32']).toBe(cell?.metrics['attn_gflop']);
  });

  it('times the prompt prefill on a cache of d tokens with extend, filled untimed before each call', async () => {
    const model = new DepthFakeModel();
    const { row, cells } = await run(model);
    const p = 16;
    const expected = (d: number): number => 1 + (10_000 * p + PREFILL_NS_PER_DEPTH_TOKEN * p * d) / 1e6;
    for (const d of [0, 16, 32]) expect(row.metrics[`prefill_ms_d${d}`]).toBeCloseTo(expected(d), 9);
    expect(row.metrics['prefill_depth_slope_us']).toBeCloseTo((PREFILL_NS_PER_DEPTH_TOKEN * p) / 1000, 9);
    // One untimed fill of 32 tokens before each of the 2 warm-up and 4 timed calls at depth 32.
    const fills = model.calls.filter((c) => c.kind === 'prefill' && c.seq === 32);
    expect(fills.length).toBeGreaterThanOrEqual(config.nWarmup + config.nMeasure);
    expect(cells.filter((c) => c.phase === 'prefill_depth').map((c) => c.cell)).toEqual([
      'prefill@16+d0',
      'prefill@16+d16',
      'prefill@16+d32',
    ]);
    // A prefill at depth counts the LM head over its last position only (the logits a generation reads).
    const at32 = cells.find((c) => c.cell === 'prefill@16+d32');
    const all = countFlops(model.config, { seqLen: p, pastLength: 32 });
    const headRow = 2 * model.config.dim * model.config.vocabSize;
    expect(at32?.metrics['gflop']).toBeCloseTo((all.total - all.lmHead + headRow) / 1e9, 15);
    expect(row.metrics['decode_kv_crossover_depth']).toBeUndefined(); // meta, not a metric
    expect(typeof row.meta?.['decode_kv_crossover_depth']).toBe('number');
  });

  it('says in one line which depths do not fit maxContext', async () => {
    const model = new DepthFakeModel(); // maxContext 64, prompt 16
    const warnings: string[] = [];
    const cells: CellRecord[] = [];
    const cfg = BenchmarkConfig.parse({ ...config, depths: [0, 40, 63, 64, 100] });
    const row = await new LatencyTask().run(new ARParadigm(model.config), model, cfg, new Rng(0), {
      ...contextFor(model, cells),
      logger: { log: (level, m) => void (level === 'warn' && warnings.push(m)) },
    });
    const note = messages.depthsSkipped('fake', [63, 64, 100], 64, 16, [63]);
    expect(row.meta?.['depths_skipped']).toBe(note);
    expect(warnings).toEqual([note]);
    expect(note).not.toContain('\n');
    expect(row.metrics['decode_ms_d63']).toBeGreaterThan(0);
    expect(row.metrics['prefill_ms_d63']).toBeUndefined();
    expect(row.metrics['decode_ms_d64']).toBeUndefined();
  });

  it('times only decode at depth (and prefill at depth 0) on a model without extend, and says why', async () => {
    const model = new FakeModel();
    const { row } = await run(model);
    expect(row.meta?.['depth_prefill']).toBe(messages.depthPrefillUnavailable('fake-engine 1.0'));
    expect(row.metrics['prefill_ms_d0']).toBeGreaterThan(0);
    expect(row.metrics['prefill_ms_d16']).toBeUndefined();
    expect(row.metrics['decode_ms_d16']).toBeGreaterThan(0);
    // An engine that cannot tell the KV bytes it holds gets no measured column (nor the prediction beside it).
    expect(row.metrics['decode_kv_held_mib_d16']).toBeUndefined();
    expect(row.metrics['decode_kv_predicted_mib_d16']).toBeUndefined();
  });
});

describe('depthsThatFit', () => {
  it('needs d + P positions for a prefill and d + 1 for a decode step (depth 0 decodes on one token)', () => {
    expect(depthsThatFit([0, 1, 100, 112, 113, 127, 128], 128, 16)).toEqual({
      prefill: [0, 1, 100, 112],
      decode: [0, 1, 100, 112, 113, 127],
      skipped: [128],
    });
  });
});

describe('BenchmarkConfig depths', () => {
  it('accepts an empty list and rejects negative, fractional or repeated depths', () => {
    expect(BenchmarkConfig.parse({}).depths).toEqual([]);
    expect(() => BenchmarkConfig.parse({ depths: [-1] })).toThrow(/depths/);
    expect(() => BenchmarkConfig.parse({ depths: [1.5] })).toThrow(/depths/);
    expect(() => BenchmarkConfig.parse({ depths: [0, 0] })).toThrow(/more than once/);
  });
});
