import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunDirectory } from '../../src/benchmarking/run-directory.js';
import { byteTokenizerFiles } from '../../src/models/hf/hf-tokenizer-json.js';
import { compareRuns } from '../../src/runs/compare-runs.js';
import { runLoad, SERVING_TASK, sweepPoints } from '../../src/runs/run-load.js';
import { startMockServer } from '../serving/mock-openai-server.js';

const cwd = mkdtempSync(join(tmpdir(), 'dantinox-load-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** One load of 24 requests at concurrency 2 and 4 against a mock server with the given per-token delay. */
async function loadRun(dir: string, perTokenMs: number) {
  const server = await startMockServer({ ttftMs: 15, perTokenMs, tokensPerChunk: 2 });
  try {
    return await runLoad({
      baseUrl: server.url,
      dir,
      cwd,
      model: 'mock',
      concurrency: [2, 4],
      requests: 24,
      warmup: { requests: 2 },
      workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 12 },
      slo: { ttftMs: 500, tpotMs: 50 },
      charts: false,
    });
  } finally {
    await server.close();
  }
}

describe('runLoad', () => {
  it('sweeps the cross product of concurrency and rate', () => {
    expect(sweepPoints([1, 4], [2, Number.POSITIVE_INFINITY])).toEqual([
      { concurrency: 1, rate: 2 },
      { concurrency: 1, rate: Number.POSITIVE_INFINITY },
      { concurrency: 4, rate: 2 },
      { concurrency: 4, rate: Number.POSITIVE_INFINITY },
    ]);
    expect(sweepPoints(undefined, [3])).toEqual([{ concurrency: Number.POSITIVE_INFINITY, rate: 3 }]);
    expect(sweepPoints()).toEqual([{ concurrency: 1, rate: Number.POSITIVE_INFINITY }]);
  });

  it('writes a run folder that reads back, and compare finds a slower server regressed', async () => {
    const fast = await loadRun('fast', 2);
    const slow = await loadRun('slow', 12);
    expect([fast.status, slow.status]).toEqual(['completed', 'completed']);
    for (const f of ['results.csv', 'results.json', 'results.jsonl'])
      expect(existsSync(join(cwd, 'fast', f))).toBe(true);
    const again = RunDirectory.load(join(cwd, 'fast'));
    const row = again.results.find((r) => r.task === SERVING_TASK);
    expect(row?.cells?.map((c) => c.cell)).toEqual(['concurrency=2,rate=inf', 'concurrency=4,rate=inf']);
    const cell = row?.cells?.[0];
    // 24 measured requests; the 2 of the warm-up are sent before them and left out.
    expect(cell?.metrics['requests']).toBe(24);
    expect(cell?.metrics['excluded_requests']).toBe(2);
    expect(cell?.metrics['output_tokens']).toBe(24 * 12);
    expect(cell?.metrics['token_count_diff']).toBe(0);
    expect(cell?.metrics['tokens_per_chunk']).toBe(2);
    expect(cell?.metricSamples?.['itl_ms']).toHaveLength(24 * 10);
    const { comparisons } = compareRuns([[join(cwd, 'fast')], [join(cwd, 'slow')]], { cwd, noiseFloor: 0.2 });
    const rows = comparisons[0]?.rows ?? [];
    const tpot = rows.find((r) => r.cell === 'concurrency=2,rate=inf' && r.metric === 'tpot_ms');
    expect(tpot?.verdict).toBe('regressed');
    const itl = rows.find((r) => r.cell === 'concurrency=4,rate=inf' && r.metric === 'itl_p50_ms');
    expect(itl?.verdict).toBe('regressed');
    const tps = rows.find((r) => r.cell === 'concurrency=4,rate=inf' && r.metric === 'output_tps');
    expect(tps?.verdict).toBe('regressed');
  }, 60_000);

  it('sends the API key as a bearer token and writes it nowhere', async () => {
    const seen: string[] = [];
    const server = await startMockServer({ ttftMs: 1, perTokenMs: 1 });
    const { createServer, request } = await import('node:http');
    // A proxy in front of the mock that records the Authorization header.
    const proxy = createServer((req, res) => {
      seen.push(String(req.headers.authorization));
      const target = new URL(server.url);
      const up = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 500, r.headers);
          r.pipe(res);
        },
      );
      req.pipe(up);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const address = proxy.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      await runLoad({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        dir: 'keyed',
        cwd,
        apiKey: 'sk-do-not-write-me',
        requests: 2,
        workload: { kind: 'synthetic', inputTokens: 4, outputTokens: 2 },
      });
    } finally {
      proxy.close();
      await server.close();
    }
    // The two requests and the default warm-up of one (the concurrency), and before them the probes: /tokenize at
    // the root and under /v1 (the mock has neither), and one short streamed request asking for a running usage.
    expect(seen).toEqual(Array(6).fill('Bearer sk-do-not-write-me'));
    const { readdirSync, readFileSync } = await import('node:fs');
    const files = readdirSync(join(cwd, 'keyed'), { recursive: true, withFileTypes: true }).filter((f) =>
      f.isFile(),
    );
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const f of files)
      expect(readFileSync(join(f.parentPath, f.name), 'utf8')).not.toContain('sk-do-not-write-me');
  });

  it("counts with the server's usage, and says in one check that the tokenizer.json given counts otherwise", async () => {
    // A byte-level tokenizer: each mock token (" the", " of", …) is 3 or 4 tokens to it, 1 to the server.
    const folder = join(cwd, 'bytes-tokenizer');
    mkdirSync(folder, { recursive: true });
    const files = byteTokenizerFiles();
    writeFileSync(join(folder, 'tokenizer.json'), JSON.stringify(files.tokenizerJson));
    writeFileSync(join(folder, 'tokenizer_config.json'), JSON.stringify(files.tokenizerConfig));
    const server = await startMockServer({ ttftMs: 1, perTokenMs: 1, tokensPerChunk: 2 });
    try {
      const result = await runLoad({
        baseUrl: server.url,
        dir: 'bytes',
        cwd,
        tokenizer: 'bytes-tokenizer',
        requests: 3,
        workload: { kind: 'synthetic', inputTokens: 20, outputTokens: 4 },
        charts: false,
      });
      const cell = result.report.results[0]?.cells?.[0];
      // " the of and to" is 4 + 3 + 4 + 3 = 14 bytes; the server says 4 tokens, and its count is the one used.
      expect(cell?.metrics['output_tokens']).toBe(3 * 4);
      expect(cell?.metrics['client_tokens']).toBe(3 * 14);
      expect(cell?.metrics['server_tokens']).toBe(3 * 4);
      expect(cell?.metrics['token_count_diff']).toBe(3 * 10);
      expect(cell?.metrics['tokens_per_chunk']).toBe(2);
      expect(cell?.metrics['tokens_exact']).toBe(1);
      const counts = cell?.validation?.find((c) => c.name === 'token_counts');
      expect(counts).toMatchObject({ ok: false, value: 30 });
      expect(result.report.results[0]?.meta?.['tokenizer_check']).toBe('given');
      // The prompts were sized by the byte tokenizer: the server counted 10 tokens, not 20.
      expect(cell?.validation?.find((c) => c.name === 'prompt_tokens')?.ok).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('refuses a folder holding a run without force', async () => {
    await expect(loadRun('fast', 2)).rejects.toThrow(/--force/);
  });
});
