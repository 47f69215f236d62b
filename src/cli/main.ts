#!/usr/bin/env node
/**
 * The `dantinox` executable: runs the CLI on the process arguments and exits with its code.
 *
 * @packageDocumentation
 */
import { processIo } from './cli-io.js';
import { runCli } from './run-cli.js';

process.exitCode = await runCli(process.argv.slice(2), processIo());
