/**
 * The helper process of `spawner.ts`: runs each requested program to completion and sends back its standard output.
 * The programs get the environment without dantinox's malloc tuning (which the benchmark process re-executed itself
 * with), as a user would run them.
 */
import { execFileSync } from 'node:child_process';
import { MALLOC_TUNING } from '../src/cli/malloc-tuning.js';
import type { SpawnReply, SpawnRequest } from './spawner.js';

const env = { ...process.env };
for (const key of Object.keys(MALLOC_TUNING)) delete env[key];

process.on('message', ({ id, file, args }: SpawnRequest) => {
  let reply: SpawnReply;
  try {
    const stdout = execFileSync(file, args, { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'ignore'] });
    reply = { id, status: 'ok', stdout };
  } catch (cause) {
    reply = {
      id,
      status: 'failed',
      error: `${file} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
    };
  }
  process.send?.(reply);
});
process.on('disconnect', () => process.exit(0));
