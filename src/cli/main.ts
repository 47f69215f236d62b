#!/usr/bin/env node
/**
 * The `dantinox` executable: runs the CLI on the process arguments and exits with its code. `bench` first
 * re-executes itself once with glibc malloc tuned for stable timings (see `malloc-tuning.ts`).
 *
 * @packageDocumentation
 */
import { fileURLToPath } from 'node:url';
import { processIo } from './cli-io.js';
import { needsMallocRespawn, respawnWithMallocTuning } from './malloc-tuning.js';
import { runCli } from './run-cli.js';

const argv = process.argv.slice(2);
process.exitCode = needsMallocRespawn(argv, process.env)
  ? await respawnWithMallocTuning(fileURLToPath(import.meta.url), argv)
  : await runCli(argv, processIo());
