/**
 * Vitest setup shared by every test file: property tests draw from one fixed fast-check seed, so a CI run is
 * reproducible; a failure prints its seed and path, and `FC_SEED=<n>` explores other seeds locally.
 */
import fc from 'fast-check';

fc.configureGlobal({ seed: Number(process.env['FC_SEED'] ?? 20261129) });

// Calibrations measured by tests go to a private cache, never the user's (~/.cache/dantinox).
process.env['DANTINOX_CACHE_DIR'] ??= new URL('./.output/cache', import.meta.url).pathname;
