import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MALLOC_TUNING,
  NO_RESPAWN_ENV,
  needsMallocRespawn,
  respawnWithMallocTuning,
} from '../../src/cli/malloc-tuning.js';
import { messages } from '../../src/messages.js';

describe('needsMallocRespawn', () => {
  it('re-executes only bench on Linux when the glibc variables are missing', () => {
    expect(needsMallocRespawn(['bench'], {}, 'linux')).toBe(true);
    expect(needsMallocRespawn(['bench', '--config', 'tiny'], { ...MALLOC_TUNING }, 'linux')).toBe(false);
    expect(needsMallocRespawn(['flops'], {}, 'linux')).toBe(false);
    expect(needsMallocRespawn(['calibrate'], {}, 'linux')).toBe(true);
    expect(needsMallocRespawn(['bench', '--help'], {}, 'linux')).toBe(false);
    expect(needsMallocRespawn(['bench'], {}, 'darwin')).toBe(false);
    expect(needsMallocRespawn(['bench'], { [NO_RESPAWN_ENV]: '1' }, 'linux')).toBe(false);
  });
});

describe('respawnWithMallocTuning', () => {
  it('kills a worker that has not stopped when the grace after a SIGTERM ends, exit 143', async () => {
    // A worker whose main thread is held: it takes the SIGTERM (its handler never runs) and stays busy for 20 s
    // (not forever, so that a launcher that fails this test leaves no process behind).
    const script = join(mkdtempSync(join(tmpdir(), 'dantinox-launcher-')), 'held.mjs');
    writeFileSync(
      script,
      "process.on('SIGTERM', () => {});\nconst end = Date.now() + 20_000;\nwhile (Date.now() < end) {}\n",
    );
    const err: string[] = [];
    const before = new Set(process.listeners('SIGTERM'));
    const exit = respawnWithMallocTuning(script, [], {
      stderr: { write: (s: string) => err.push(s) },
      termGraceMs: 300,
    });
    // The launcher's own handler, called as the signal would call it (a real SIGTERM would reach the test runner).
    const onTerm = process.listeners('SIGTERM').find((l) => !before.has(l));
    expect(onTerm).toBeDefined();
    await new Promise((r) => setTimeout(r, 500)); // the worker has installed its handler
    const sent = Date.now();
    (onTerm as (signal: NodeJS.Signals) => void)('SIGTERM');
    expect(await exit).toBe(143);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(300);
    expect(Date.now() - sent).toBeLessThan(10_000);
    expect(err.join('')).toBe(`\n${messages.termGraceOver(300, undefined)}\n`);
  });
});
