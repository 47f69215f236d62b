import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** `npm run mutation:planted`: the planted-defect check (test/mutation/mutation.check.ts), one mutation after another. */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/mutation/*.check.ts'],
    testTimeout: 900_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
