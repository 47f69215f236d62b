import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRequestLines } from '../../src/serving/client/request-rows.js';
import { type MockServer, startMockServer } from '../serving/mock-openai-server.js';
import { ensureBuilt, runCli } from './built-cli.js';

const cwd = mkdtempSync(join(tmpdir(), 'dantinox-load-workers-'));
let server: MockServer;
beforeAll(async () => {
  ensureBuilt();
  server = await startMockServer({ ttftMs: 5, perTokenMs: 1, tokensPerChunk: 2 });
});
afterAll(async () => {
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
});

describe('dantinox load --workers (the built package: worker threads need compiled code)', () => {
  it('two worker threads send every request of a closed and an open-loop point once, never before its time', async () => {
    const run = await runCli(
      [
        'load',
        server.url,
        '--workers',
        '2',
        '--concurrency',
        '4',
        '--rate',
        'inf,200',
        '--requests',
        '24',
        '--input-tokens',
        '8',
        '--output-tokens',
        '6',
        '--out',
        'w',
        '--no-charts',
      ],
      { cwd },
    );
    expect(run.code, run.stderr).toBe(0);
    const requests = readRequestLines(join(cwd, 'w', 'requests.jsonl'));
    for (const point of ['concurrency=4,rate=inf', 'concurrency=4,rate=200']) {
      const mine = requests.filter((r) => r.point === point);
      // The default warm-up (as many requests as the concurrency, 4) comes first, on top of the 24 measured.
      expect(mine.map((r) => r.index)).toEqual(Array.from({ length: 28 }, (_, i) => i));
      expect(mine.map((r) => r.measured)).toEqual(Array.from({ length: 28 }, (_, i) => i >= 4));
      for (const r of mine) {
        expect(r).toMatchObject({ status: 'ok', outputTokens: 6, tokenSource: 'server' });
        // The clock shared by the threads: a send is never before its planned time (queue time apart).
        expect(r.sentMs - r.plannedMs - r.queueMs).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it('--workers 0 is refused in one line naming the flag', async () => {
    const run = await runCli(['load', server.url, '--workers', '0', '--requests', '1'], { cwd });
    expect(run.code).toBe(2);
    // The error line, then the usual pointer to --help.
    expect(run.stderr.split('\n')[0]).toContain("option '--workers <n>' argument '0' is invalid");
    expect(run.stdout).toBe('');
  });
});
