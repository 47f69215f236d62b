import { defineConfig } from 'vitest/config';
import { standardDecorators } from './test/standard-decorators-plugin.js';

export default defineConfig({
  // Vite 8's oxc transform does not lower TC39 standard decorators (only legacy ones); see the plugin.
  plugins: [standardDecorators()],
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
