/**
 * Meaningful one-line defects the test suite must catch (`npm run mutation:planted`). Each names the exact text it
 * replaces (which must occur once, so a mutation that no longer applies fails loudly instead of passing) and
 * the test files that must then fail. A mutation with `replace: null` deletes the file (a golden file).
 */

/** One mutation of a copy of the repository. */
export interface Mutation {
  /** Short id, shown in the report. */
  readonly id: string;
  /** What a user would get wrong if it shipped. */
  readonly defect: string;
  /** Repository-relative file to change. */
  readonly file: string;
  /** Exact text to replace (must occur exactly once); ignored when deleting. */
  readonly find: string;
  /** Replacement text, or `null` to delete the file. */
  readonly replace: string | null;
  /** Test files that must fail with the mutation applied. */
  readonly tests: readonly string[];
}

/** The mutations, each caught by the tests it lists. */
export const MUTATIONS: readonly Mutation[] = [
  {
    id: 'latency-decode-without-cache',
    defect: "the latency task's timed decode steps run a cache-less one-token forward",
    file: 'src/benchmarking/tasks/latency-task.ts',
    find: 'state = (await model.decodeStep(stepIds, state as DecodeState)).state;',
    replace: 'await model.forward(stepIds, { batch: 1, seq: 1 });',
    tests: ['test/benchmarking/tasks/latency-task.test.ts'],
  },
  {
    id: 'throughput-zero-inputs',
    defect: 'throughput feeds all-zero token ids instead of random ones from the task rng',
    file: 'src/benchmarking/tasks/throughput-task.ts',
    find: 'const tokens = rng.integers(vocabSize, batch * seq);',
    replace: 'const tokens = new Int32Array(batch * seq);',
    tests: ['test/benchmarking/tasks/throughput-task.test.ts'],
  },
  {
    id: 'throughput-peak-is-last',
    defect: 'peak_tps reports the last completed cell instead of the fastest',
    file: 'src/benchmarking/tasks/throughput-task.ts',
    find: "completed.reduce((a, b) => ((b.metrics['tps'] ?? 0) > (a.metrics['tps'] ?? 0) ? b : a));",
    replace: 'completed.reduce((_a, b) => b);',
    tests: ['test/benchmarking/tasks/throughput-task.test.ts', 'test/benchmarking/real-models.test.ts'],
  },
  {
    id: 'flops-attention-scores-halved',
    defect: 'attention scores count only one of QKᵀ and AV',
    file: 'src/profiling/flops.ts',
    find: 'const scores = 2 * 2 * o.batchSize',
    replace: 'const scores = 2 * o.batchSize',
    tests: ['test/profiling/flops.test.ts'],
  },
  {
    id: 'quantile-no-interpolation',
    defect: 'percentiles take the lower order statistic instead of interpolating',
    file: 'src/profiling/statistics.ts',
    find: 'return a + (h - lo) * (b - a);',
    replace: 'return a;',
    tests: ['test/profiling/statistics.test.ts'],
  },
  {
    id: 'ring-buffer-never-wraps',
    defect: 'the latency window keeps overwriting its last slot once full',
    file: 'src/profiling/latency-tracker.ts',
    find: 'this.#next = this.#next + 1 === this.window ? 0 : this.#next + 1;',
    replace: 'this.#next = this.#next + 1 === this.window ? this.#next : this.#next + 1;',
    tests: ['test/profiling/latency-tracker.test.ts'],
  },
  {
    id: 'csv-no-quoting',
    defect: 'CSV fields with commas or quotes are written unquoted',
    file: 'src/benchmarking/csv.ts',
    find: String.raw`return /[",\n\r]|^\s|\s$/.test(text)`,
    replace: String.raw`return /[\n\r]/.test(text)`,
    tests: ['test/benchmarking/report.test.ts'],
  },
  {
    id: 'bits-per-token-log10',
    defect: 'bits per token divide the loss by ln 10 instead of ln 2',
    file: 'src/benchmarking/tasks/perplexity-task.ts',
    find: 'bits_per_token: evalLoss / Math.LN2,',
    replace: 'bits_per_token: evalLoss / Math.LN10,',
    tests: ['test/benchmarking/tasks/perplexity-task.test.ts'],
  },
  {
    id: 'pareto-x-direction-flipped',
    defect: 'the Pareto chart treats lower throughput as better',
    file: 'src/visualization/charts/pareto-chart.ts',
    find: "(isLowerBetter(xColumn) ? 'min' : 'max')",
    replace: "(isLowerBetter(xColumn) ? 'max' : 'min')",
    tests: ['test/visualization/charts.test.ts'],
  },
  {
    id: 'kv-positions-off-by-one',
    defect: 'decode steps get position ids one behind the cache length',
    file: 'src/models/engines/ort/position-ids.ts',
    find: 'positions[t] = BigInt(pastLength + t);',
    replace: 'positions[t] = BigInt(Math.max(0, pastLength + t - 1));',
    tests: ['test/models/onnx/onnx-model.test.ts'],
  },
  {
    id: 'attention-not-causal',
    defect: 'the ONNX attention mask lets a token see the tokens after it',
    file: 'src/models/onnx/attention-mask.ts',
    find: 'if (config.causal && delta < 0) return false;',
    replace: 'if (config.causal && delta < -1) return false;',
    tests: ['test/models/onnx/onnx-model.test.ts'],
  },
  {
    id: 'golden-helper-creates-missing',
    defect:
      'the golden helper writes a missing golden file and then passes (the defect this check was made for)',
    file: 'test/golden.ts',
    find: 'if (updating(env)) {',
    replace: 'if (updating(env) || !existsSync(path)) {',
    tests: ['test/golden.test.ts'],
  },
  {
    id: 'readme-snippet-wrong-option',
    defect: 'a README example passes an option the API does not have',
    file: 'README.md',
    find: 'countDecodeFlops(small, { context: 511 });',
    replace: 'countDecodeFlops(small, { contextLength: 511 });',
    tests: ['test/docs/readme.test.ts'],
  },
  {
    id: 'golden-spec-deleted',
    defect: 'a golden chart spec is missing (a helper that recreates it would hide any change)',
    file: 'test/golden/visualization/pareto-multi.vl.json',
    find: '',
    replace: null,
    tests: ['test/visualization/charts.test.ts'],
  },
  {
    id: 'golden-csv-deleted',
    defect: 'the golden CSV of the fake-model run is missing',
    file: 'test/golden/benchmarking/fake-default-suite.csv',
    find: '',
    replace: null,
    tests: ['test/benchmarking/report.test.ts'],
  },
  {
    id: 'compare-welch-df-pooled',
    defect:
      "Welch's t-test uses the pooled degrees of freedom, overstating significance with unequal spreads",
    file: 'src/profiling/run-level-tests.ts',
    find: 'df = denominator > 0 ? ((wb + wc) * (wb + wc)) / denominator : nb + nc - 2;',
    replace: 'df = nb + nc - 2;',
    tests: ['test/profiling/run-level-tests.test.ts'],
  },
  {
    id: 'compare-runs-needed-one-sample',
    defect:
      'the runs-per-side estimate uses the one-sample formula and asks for half the runs a comparison needs',
    file: 'src/profiling/run-level-tests.ts',
    find: 'const n = Math.ceil((2 * z * z * input.spread',
    replace: 'const n = Math.ceil((z * z * input.spread',
    tests: ['test/profiling/run-level-tests.test.ts'],
  },
  {
    id: 'compare-single-run-by-threshold',
    defect: 'one run per side without a noise floor is judged by the change alone, so drift fails the gate',
    file: 'src/benchmarking/compare/judge-metric.ts',
    find: '  if (settings.noiseFloor !== null && single) {',
    replace: '  if (single) {',
    tests: ['test/benchmarking/compare/judge-metric.test.ts'],
  },
  {
    id: 'compare-floor-not-widened',
    defect:
      "with a noise floor, the per-call interval alone decides: within-run noise is taken for the runs' drift",
    file: 'src/benchmarking/compare/judge-metric.ts',
    find: 'calls === undefined ? [change - floor, change + floor] : [calls.ci[0] - floor, calls.ci[1] + floor];',
    replace: 'calls === undefined ? [change - floor, change + floor] : [calls.ci[0], calls.ci[1]];',
    tests: ['test/benchmarking/compare/judge-metric.test.ts'],
  },
  {
    id: 'compare-first-run-only',
    defect: 'a side of several runs is judged on its first run only',
    file: 'src/benchmarking/compare/compare-reports.ts',
    find: 'this.#baseValues = new ValueIndex(baseRuns);',
    replace: 'this.#baseValues = new ValueIndex(baseRuns.slice(0, 1));',
    tests: ['test/benchmarking/compare/compare-reports.test.ts'],
  },
  {
    id: 'latency-no-generation-samples',
    defect:
      'TTFT, TPOT and E2E lose their per-generation samples, so a comparison cannot judge them from samples',
    file: 'src/benchmarking/tasks/latency-task.ts',
    find: 'metricSamples: generationSamples({ ttft_ms: ttft, tpot_ms: tpot, e2e_ms: e2e }),',
    replace: '',
    tests: ['test/benchmarking/tasks/latency-task.test.ts'],
  },
  {
    id: 'mfu-against-fp32-always',
    defect: "MFU of a quantized model is taken against the fp32 GEMM ceiling instead of its own dtype's",
    file: 'src/benchmarking/efficiency-columns.ts',
    find: 'const dtype = ceilingDtype(model.info.dtype);',
    replace: "const dtype = 'fp32';",
    tests: ['test/benchmarking/efficiency-columns.test.ts'],
  },
  {
    id: 'fdr-bound-strict',
    defect: 'the Benjamini–Hochberg step drops a p-value exactly at its bound k·α/m',
    file: 'src/benchmarking/compare/familywise.ts',
    find: 'if (row.pValue <= ((k + 1) * alpha) / m) kept = k + 1;',
    replace: 'if (row.pValue < ((k + 1) * alpha) / m) kept = k + 1;',
    tests: ['test/benchmarking/compare/familywise.test.ts'],
  },
  {
    id: 'identity-ignores-threads',
    defect: 'a run at 2 threads is compared with one at 1 thread as if they were one variant',
    file: 'src/benchmarking/variant-identity.ts',
    find: "  'engine',\n  'threads',\n] as const;",
    replace: "  'engine',\n] as const;",
    tests: ['test/benchmarking/compare/compare-reports.test.ts', 'test/runs/record-history.test.ts'],
  },
  {
    id: 'theoretical-peak-below-measured',
    defect: 'a theoretical peak equal to the measured ceiling is dropped (the boundary of "never below")',
    file: 'src/benchmarking/calibration.ts',
    find: 'peak >= ceiling) return theory;',
    replace: 'peak > ceiling) return theory;',
    tests: ['test/benchmarking/calibration.test.ts'],
  },
  {
    id: 'summary-sd-population',
    defect: "the summary's spread divides by n instead of n − 1 (too small for the few calls of a cell)",
    file: 'src/profiling/statistics.ts',
    find: 'std: n < 2 ? Number.NaN : Math.sqrt(squares / (n - 1)),',
    replace: 'std: n < 2 ? Number.NaN : Math.sqrt(squares / n),',
    tests: ['test/benchmarking/summary-table.test.ts'],
  },
  {
    id: 'noise-tail-at-limit',
    defect: 'a cell whose p99 is just under 3× its median is flagged (the boundary of the tail warning)',
    file: 'src/benchmarking/noise-warnings.ts',
    find: 'ratio > TAIL_RATIO_LIMIT)) return [];',
    replace: 'ratio >= TAIL_RATIO_LIMIT - 0.01)) return [];',
    tests: ['test/benchmarking/noise-warnings.test.ts'],
  },
  {
    id: 'noise-siblings-gap-only',
    defect: 'two measurements of one computation disagree whenever they are 25% apart, whatever their spread',
    file: 'src/benchmarking/noise-warnings.ts',
    find: 'ms / mf - 1 > SIBLING_GAP_LIMIT && ms - mf > SIBLING_SE_LIMIT * se)',
    replace: 'ms / mf - 1 > SIBLING_GAP_LIMIT)',
    tests: ['test/benchmarking/noise-warnings.test.ts'],
  },
  {
    id: 'others-cpus-include-own',
    defect:
      "the CPUs of other processes include the run's own CPU time (every run on all cores is called busy)",
    file: 'src/benchmarking/environment.ts',
    find: '(end.machineBusyS - start.machineBusyS - (end.ownS - start.ownS)) / wall',
    replace: '(end.machineBusyS - start.machineBusyS) / wall',
    tests: ['test/benchmarking/environment.test.ts'],
  },
  {
    id: 'others-load-own-threads',
    defect: "the load at a run's end counts the run's own threads as other processes",
    file: 'src/benchmarking/environment.ts',
    find: 'return Math.max(start, (end ?? 0) - ownThreads);',
    replace: 'return Math.max(start, end ?? 0);',
    tests: ['test/benchmarking/noise-warnings.test.ts'],
  },
  {
    id: 'busy-calibration-reused',
    defect: 'a calibration measured on a busy machine is reused for good, even once the machine is idle',
    file: 'src/benchmarking/calibration.ts',
    find: 'if (cached !== undefined && (busy === undefined || !idleNow))',
    replace: 'if (cached !== undefined)',
    tests: ['test/benchmarking/calibration.test.ts'],
  },
  {
    id: 'compare-warnings-across-sides',
    defect:
      "compare checks the baseline and candidate against each other for noise, calling a real change the machine's",
    file: 'src/runs/compare-runs.ts',
    find: 'const warnings = loaded.flatMap((side) => noiseWarnings(side.runs.map((r) => r.report)));',
    replace: 'const warnings = noiseWarnings(loaded.flatMap((side) => side.runs.map((r) => r.report)));',
    tests: ['test/runs/compare-runs.test.ts'],
  },
  {
    id: 'kld-p99-is-p95',
    defect: 'the kld_p99 column is the 95th percentile of the per-position KL',
    file: 'src/benchmarking/tasks/kld-task.ts',
    find: 'kld_p99: quantileSorted(sorted, 0.99),',
    replace: 'kld_p99: quantileSorted(sorted, 0.95),',
    tests: ['test/benchmarking/tasks/kld-task.test.ts'],
  },
  {
    id: 'argmax-ties-last',
    defect: 'greedy decoding picks the last of equal maxima',
    file: 'src/models/paradigms/sampling.ts',
    find: '    if (v > bestValue) {',
    replace: '    if (v >= bestValue) {',
    tests: ['test/models/paradigms/sampling.test.ts'],
  },
  {
    id: 'scorer-argmax-ties-last',
    defect: "the logit scorer's ArgMax (top-1 agreement) takes the last of equal maxima",
    file: 'src/models/onnx/logit-scorer.ts',
    find: 'const argmax = { axis: { int: -1 }, keepdims: { int: 0 } };',
    replace: 'const argmax = { axis: { int: -1 }, keepdims: { int: 0 }, select_last_index: { int: 1 } };',
    tests: ['test/models/onnx/logit-scorer.test.ts'],
  },
  {
    id: 'tps-lower-is-better',
    defect: "a cell's tokens per second is judged lower-is-better",
    file: 'src/benchmarking/compare/cell-metrics.ts',
    find: "description: 'Σ tokens / Σ seconds over the timed calls.',\n    higherIsBetter: true,",
    replace: "description: 'Σ tokens / Σ seconds over the timed calls.',\n    higherIsBetter: false,",
    tests: ['test/benchmarking/compare/cell-metrics.test.ts'],
  },
  {
    id: 'mbu-moe-all-experts',
    defect: 'MBU of a mixture-of-experts model counts every expert as read by each call',
    file: 'src/profiling/efficiency.ts',
    find: 'return footprint.activeWeightBytes + batch * context * footprint.kvBytesPerToken;',
    replace: 'return footprint.weightBytes + batch * context * footprint.kvBytesPerToken;',
    tests: ['test/profiling/efficiency.test.ts'],
  },
  {
    id: 'ci-one-sided-tail',
    defect: 'a run-level t interval uses the one-sided quantile (a 90% interval called 95%)',
    file: 'src/profiling/run-level-tests.ts',
    find: 'const half = studentTQuantile((1 + confidence) / 2, df) * se;',
    replace: 'const half = studentTQuantile(confidence, df) * se;',
    tests: ['test/profiling/run-level-tests.test.ts'],
  },
  {
    id: 'q4-rounds-down',
    defect: '4-bit quantization truncates instead of rounding',
    file: 'src/models/onnx/quantize.ts',
    find: 'const q0 = clamp4(Math.round((column[j] as number) * inv) + zp);',
    replace: 'const q0 = clamp4(Math.floor((column[j] as number) * inv) + zp);',
    tests: ['test/models/onnx/quantize.test.ts'],
  },
];
