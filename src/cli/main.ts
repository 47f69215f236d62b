#!/usr/bin/env node
/**
 * The `dantinox` executable: runs the CLI on the process arguments and exits with its code. `bench` first
 * re-executes itself once with glibc malloc tuned for stable timings (see `malloc-tuning.ts`).
 *
 * @packageDocumentation
 */
import { fileURLToPath } from 'node:url';
import { processIo } from './cli-io.js';
import { attachToLauncher, needsMallocRespawn, respawnWithMallocTuning } from './malloc-tuning.js';
import { runCli } from './run-cli.js';

// A closed stdout (`dantinox --help | head -1`) is a normal end, not a crash; a closed stderr loses only notes.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
});
process.stderr.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});
attachToLauncher();
const argv = process.argv.slice(2);
process.exitCode = needsMallocRespawn(argv, process.env)
  ? await respawnWithMallocTuning(fileURLToPath(import.meta.url), argv)
  : await runCli(argv, processIo());
// The command is over and its files are written. A task given up as hung (see task-watchdog.ts) may have left a
// timer or socket behind that JavaScript cannot cancel; it must not keep the process alive, so exit a second later
// when something still holds the event loop (the unref'd timer never delays an exit that happens anyway).
setTimeout(() => process.exit(), 1000).unref();
