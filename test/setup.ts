/**
 * Vitest setup shared by every test file: property tests draw from one fixed fast-check seed, so a CI run is
 * reproducible; a failure prints its seed and path, and `FC_SEED=<n>` explores other seeds locally.
 */
import fc from 'fast-check';

fc.configureGlobal({ seed: Number(process.env['FC_SEED'] ?? 20261129) });
