import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { standardDecorators } from '../standard-decorators-plugin.js';

/**
 * `npm run mutation` (Stryker): the tests that can kill mutants of the code `stryker.config.json` mutates — the
 * unit and known-answer tests of those folders, without the end-to-end CLI, engine and browser tests, which add
 * minutes per mutant and check that things run rather than that they are right at the edges.
 * `DANTINOX_MUTATION_TESTS` (comma-separated globs) narrows them to one folder's own tests, for a score of that
 * folder by its own tests in minutes instead of hours: e.g.
 * `DANTINOX_MUTATION_TESTS='test/benchmarking/compare/*.test.ts' npx stryker run --mutate 'src/benchmarking/compare/*.ts'`.
 */
const only = process.env['DANTINOX_MUTATION_TESTS']?.split(',').filter((glob) => glob !== '');

export default defineConfig({
  plugins: [standardDecorators()],
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    setupFiles: ['test/setup.ts'],
    // One module cache for all the runs of a worker: Stryker switches mutants at run time (static mutants are
    // ignored), so re-importing every module for each mutant would only cost time.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    include: only ?? [
      'test/dtype.test.ts',
      'test/benchmarking/compare/*.test.ts',
      'test/benchmarking/history/*.test.ts',
      'test/benchmarking/matrix/*.test.ts',
      'test/benchmarking/tasks/eval-windows.test.ts',
      'test/benchmarking/tasks/kld-task.test.ts',
      'test/benchmarking/tasks/with-reference.test.ts',
      'test/benchmarking/tasks/perplexity-task.test.ts',
      'test/benchmarking/calibration.test.ts',
      'test/benchmarking/efficiency-columns.test.ts',
      'test/benchmarking/resource-checks.test.ts',
      'test/profiling/*.test.ts',
      'test/models/gguf/*.test.ts',
      'test/models/hf/onnx-quantization.test.ts',
      'test/models/onnx/quantize.test.ts',
      'test/models/onnx/dtypes.test.ts',
      'test/models/onnx/linear.test.ts',
      'test/runs/compare-runs.test.ts',
      'test/runs/record-history.test.ts',
      'test/training/weight-average.test.ts',
    ],
    // The gate's simulated false-positive rates: 11 s a run, and it would run for every mutant of the comparison.
    exclude: [...configDefaults.exclude, 'test/benchmarking/compare/error-rates.test.ts'],
  },
});
