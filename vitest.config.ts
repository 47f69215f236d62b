import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { standardDecorators } from './test/standard-decorators-plugin.js';

/**
 * Files that need a fresh module cache or process: they mock modules (`vi.mock` has no effect on a module an earlier
 * file of the same process already imported), measure their own process's CPU time beside other processes' (the
 * busy-machine test: sessions left by earlier files would take CPU from its hogs), or drive the CLI, engines (the
 * models' and the trainer's), browsers and child processes, whose global state (signal handlers, loaded native
 * bindings, environment variables) must not reach the next file.
 */
const ISOLATED = [
  'test/cli/**/*.test.ts',
  'test/docs/**/*.test.ts',
  'test/fuzz/**/*.test.ts',
  'test/models/**/*.test.ts',
  'test/training/**/*.test.ts',
  'test/benchmarking/tasks/eval-windows.test.ts',
  'test/benchmarking/busy-machine.test.ts',
];

/** Settings of both projects. */
const shared = {
  setupFiles: ['test/setup.ts'],
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
};

export default defineConfig({
  // Vite 8's oxc transform does not lower TC39 standard decorators (only legacy ones); see the plugin.
  plugins: [standardDecorators()],
  test: {
    // One test file per logical CPU, not vitest's default of one fewer: most of the slow files wait — on the CLI's
    // child processes, mock servers' timers, Chromium — so on 2 cores one worker left a core idle much of the time.
    // Measured on a 2-vCPU AMD Zen 5, the whole suite: 872 s with one worker, 597 s with two (1,026 CPU-seconds).
    maxWorkers: availableParallelism(),
    projects: [
      {
        extends: true,
        test: { ...shared, name: 'isolated', include: ISOLATED },
      },
      {
        // The library's unit and known-answer tests share one process and module cache: a new process and fresh
        // imports per file cost more than the tests themselves (about half of these folders' time).
        extends: true,
        test: {
          ...shared,
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: ISOLATED,
          isolate: false,
        },
      },
    ],
  },
});
