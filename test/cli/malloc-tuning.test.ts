import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
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
    // It writes `ready` once its handler is installed: a fixed wait lost that race on a loaded machine (the signal
    // then killed a worker still starting, at once).
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-launcher-'));
    const script = join(dir, 'held.mjs');
    const ready = join(dir, 'ready');
    writeFileSync(
      script,
      `import { writeFileSync } from 'node:fs';\nprocess.on('SIGTERM', () => {});\nwriteFileSync(${JSON.stringify(ready)}, '');\n` +
        'const end = Date.now() + 20_000;\nwhile (Date.now() < end) {}\n',
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
    while (!existsSync(ready)) await new Promise((r) => setTimeout(r, 20));
    const sent = Date.now();
    (onTerm as (signal: NodeJS.Signals) => void)('SIGTERM');
    expect(await exit).toBe(143);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(300);
    expect(Date.now() - sent).toBeLessThan(10_000);
    expect(err.join('')).toBe(`\n${messages.termGraceOver(300, undefined)}\n`);
  });

  it('after a SIGKILL names the stream holding the cells, or says none was written yet', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-launcher-'));
    // A worker that tells its launcher where its cells go, then dies as the out-of-memory killer would end it.
    const script = join(dir, 'killed.mjs');
    writeFileSync(
      script,
      "process.send({ cellsDir: process.argv[2] }, () => process.kill(process.pid, 'SIGKILL'));\n",
    );
    const killedIn = async (cellsDir: string): Promise<string> => {
      const err: string[] = [];
      expect(
        await respawnWithMallocTuning(script, [cellsDir], { stderr: { write: (s: string) => err.push(s) } }),
      ).toBe(137);
      return err.join('');
    };
    const measured = join(dir, 'variant-a');
    mkdirSync(measured);
    writeFileSync(join(measured, 'results.jsonl'), '{"type":"start"}\n');
    expect(await killedIn(measured)).toContain(`The cells measured so far are in ${measured}/results.jsonl;`);
    // The variant's folder is named before its model is built: a kill then leaves no stream to name.
    const notStarted = join(dir, 'variant-b');
    const notice = await killedIn(notStarted);
    expect(notice).toContain(`No cell had been written to ${notStarted} yet (no results.jsonl there)`);
    expect(notice).not.toContain('renders them');
  });
});
