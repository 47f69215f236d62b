import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { standardDecorators } from '../standard-decorators-plugin.js';

/**
 * `npm run mutation` (Stryker): the tests that can kill mutants of the code `stryker.config.json` mutates — the
 * unit and known-answer tests of those folders, without the end-to-end CLI, engine and browser tests, which add
 * minutes per mutant and check that things run rather than that they are right at the edges.
 */
export default defineConfig({
  plugins: [standardDecorators()],
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    setupFiles: ['test/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    include: [
      'test/dtype.test.ts',
      'test/benchmarking/compare/*.test.ts',
      'test/benchmarking/history/*.test.ts',
      'test/benchmarking/matrix/*.test.ts',
      'test/benchmarking/tasks/kld-task.test.ts',
      'test/benchmarking/tasks/perplexity-task.test.ts',
      'test/benchmarking/calibration.test.ts',
      'test/benchmarking/efficiency-columns.test.ts',
      'test/benchmarking/resource-checks.test.ts',
      'test/profiling/*.test.ts',
      'test/models/gguf/*.test.ts',
      'test/models/onnx/quantize.test.ts',
      'test/models/onnx/dtypes.test.ts',
      'test/models/onnx/linear.test.ts',
      'test/runs/compare-runs.test.ts',
      'test/runs/record-history.test.ts',
    ],
    // The gate's simulated false-positive rates: 11 s a run, and it would run for every mutant of the comparison.
    exclude: [...configDefaults.exclude, 'test/benchmarking/compare/error-rates.test.ts'],
  },
});
