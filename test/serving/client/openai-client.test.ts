import { afterEach, describe, expect, it } from 'vitest';
import { Gpt2Tokenizer } from '../../../src/models/tokenizers/gpt2-tokenizer.js';
import { Rng } from '../../../src/rng.js';
import { runLoadPoint } from '../../../src/serving/client/load-generator.js';
import { OpenAiClient } from '../../../src/serving/client/openai-client.js';
import { tokenWorkload } from '../../../src/serving/client/workload.js';
import { type MockFault, type MockServer, startMockServer } from '../mock-openai-server.js';

const tokenizer = new Gpt2Tokenizer();
let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function load(
  mock: Parameters<typeof startMockServer>[0],
  opts: {
    requests?: number;
    endpoint?: 'completions' | 'chat';
    stream?: boolean;
    output?: number;
    timeoutMs?: number;
    continuousUsage?: boolean;
    serverCount?: (text: string) => Promise<number | undefined>;
  } = {},
) {
  server = await startMockServer(mock);
  const client = new OpenAiClient({
    baseUrl: server.url,
    endpoint: opts.endpoint ?? 'completions',
    maxSockets: 4,
    timeoutMs: opts.timeoutMs ?? 10_000,
  });
  try {
    return await runLoadPoint({
      client,
      point: { concurrency: 2, rate: Number.POSITIVE_INFINITY },
      workload: tokenWorkload({
        source: 'synthetic',
        inputTokens: 8,
        outputTokens: opts.output ?? 16,
        tokenizer,
        rng: new Rng(1),
        distinct: 2,
      }),
      tokenizer,
      rng: new Rng(2),
      requests: opts.requests ?? 4,
      stream: opts.stream ?? true,
      continuousUsage: opts.continuousUsage,
      serverCount: opts.serverCount,
    });
  } finally {
    client.close();
  }
}

describe('OpenAiClient + runLoadPoint against the mock server', () => {
  for (const perChunk of [1, 2, 4, 8]) {
    for (const endpoint of ['completions', 'chat'] as const) {
      it(`counts tokens exactly with ${perChunk} token(s) per chunk (${endpoint})`, async () => {
        const result = await load(
          { ttftMs: 5, perTokenMs: 1, tokensPerChunk: perChunk },
          { endpoint, output: 13 },
        );
        for (const r of result.records) {
          expect(r.status).toBe('ok');
          if (r.status !== 'ok') continue;
          expect(r.outputTokens).toBe(13);
          expect(r.serverTokens).toBe(13);
          expect(r.chunkTokens).toEqual(
            Array.from({ length: Math.ceil(13 / perChunk) }, (_, i) => Math.min(perChunk, 13 - i * perChunk)),
          );
          expect(r.itlMs).toHaveLength(13 - Math.min(perChunk, 13));
        }
      });
    }
  }

  // The defect this pins: a server whose tokens the client's tokenizer splits differently (` tok` is two GPT-2
  // tokens) used to be counted by the client — 64 tokens for 32, ITL halved.
  for (const perChunk of [1, 2, 4]) {
    for (const [word, clientPerToken] of [
      [' tok', 2],
      [' the', 1],
    ] as const) {
      it(`${perChunk} token(s) of "${word}" per chunk, usage reported: the server's 32 tokens, ITL = chunk gap / ${perChunk}`, async () => {
        const result = await load(
          { ttftMs: 5, perTokenMs: 2, tokensPerChunk: perChunk, tokenText: () => word },
          { output: 32, requests: 2 },
        );
        for (const r of result.records) {
          if (r.status !== 'ok') throw new Error(r.message);
          expect(r.outputTokens).toBe(32);
          expect(r.tokenSource).toBe('server');
          expect(r.clientTokens).toBe(32 * clientPerToken);
          expect(r.chunkTokens).toEqual(Array(32 / perChunk).fill(perChunk));
          // Each token's ITL is its chunk's gap since the chunk before, over the chunk's tokens.
          const gaps = r.chunkAtMs.slice(1).map((t, i) => (t - (r.chunkAtMs[i] ?? 0)) / perChunk);
          expect(r.itlMs).toEqual(gaps.flatMap((g) => Array(perChunk).fill(g)));
        }
      });
    }
    it(`${perChunk} token(s) of " tok" per chunk, no usage: the client's count, marked as the client's`, async () => {
      const result = await load(
        { ttftMs: 5, perTokenMs: 1, tokensPerChunk: perChunk, tokenText: () => ' tok', usage: false },
        { output: 8, requests: 2 },
      );
      for (const r of result.records) {
        if (r.status !== 'ok') throw new Error(r.message);
        expect([r.outputTokens, r.tokenSource, r.serverTokens]).toEqual([16, 'client', null]);
      }
    });
  }

  it("no usage, but the server's /tokenize: the server's count after the point", async () => {
    const asked: string[] = [];
    const result = await load(
      { ttftMs: 2, perTokenMs: 1, tokensPerChunk: 2, tokenText: () => ' tok', usage: false },
      {
        output: 6,
        requests: 3,
        serverCount: async (text) => {
          asked.push(text);
          return text.split(' tok').length - 1;
        },
      },
    );
    expect(asked).toEqual(Array(3).fill(' tok'.repeat(6)));
    for (const r of result.records)
      expect(r).toMatchObject({ status: 'ok', outputTokens: 6, clientTokens: 12, tokenSource: 'server' });
  });

  it('a running usage on every chunk (vLLM continuous_usage_stats): each chunk counted by the server', async () => {
    const result = await load(
      { ttftMs: 2, perTokenMs: 1, tokensPerChunk: 3, tokenText: () => ' tok', continuousUsage: true },
      { output: 8, continuousUsage: true },
    );
    for (const r of result.records)
      expect(r).toMatchObject({
        status: 'ok',
        outputTokens: 8,
        tokenSplit: 'server',
        chunkTokens: [3, 3, 2],
      });
  });

  it('a reasoning model: thinking streamed as reasoning_content, counted apart, TTFT at its first token', async () => {
    const result = await load(
      { ttftMs: 2, perTokenMs: 1, tokensPerChunk: 2, reasoningTokens: 5 },
      { output: 12, endpoint: 'chat' },
    );
    for (const r of result.records) {
      if (r.status !== 'ok') throw new Error(r.message);
      expect([r.outputTokens, r.reasoningTokens, r.tokenSplit]).toEqual([12, 5, 'tokenizer']);
      // Chunks of two tokens: the third carries the last thinking token and the first answer token.
      expect(r.chunkTokens).toEqual([2, 2, 1, 1, 2, 2, 2]);
      expect(r.ttftMs).toBe(r.chunkAtMs[0]);
      expect(r.ttfaMs).toBe(r.chunkAtMs[2]);
      expect(r.ttfaMs).toBeGreaterThan(r.ttftMs);
    }
  });

  it('a conversation sends each turn after the answer before it, with the history and the answers it got', async () => {
    const bodies: { messages?: { role: string; content: string }[] }[] = [];
    server = await startMockServer({
      ttftMs: 2,
      perTokenMs: 1,
      onBody: (b) => bodies.push(b as (typeof bodies)[0]),
    });
    const client = new OpenAiClient({ baseUrl: server.url, endpoint: 'chat', maxSockets: 2 });
    const turns = (n: number) =>
      Array.from({ length: n }, (_, k) => ({ prompt: `q${k}`, inputTokens: 1, outputTokens: 3 }));
    try {
      const result = await runLoadPoint({
        client,
        point: { concurrency: 2, rate: Number.POSITIVE_INFINITY },
        workload: {
          name: 'conversations',
          size: 1,
          timed: false,
          item: () => ({ prompt: 'q', inputTokens: 1, outputTokens: 3, followUps: turns(2) }),
        },
        tokenizer,
        rng: new Rng(2),
        requests: 2,
      });
      expect(result.records.map((r) => [r.index, r.turn, r.status])).toEqual([
        [0, 0, 'ok'],
        [0, 1, 'ok'],
        [0, 2, 'ok'],
        [1, 0, 'ok'],
        [1, 1, 'ok'],
        [1, 2, 'ok'],
      ]);
      // A turn goes out after the answer before it has ended.
      for (const index of [0, 1]) {
        const mine = result.records.filter((r) => r.index === index);
        for (let t = 1; t < mine.length; t++) {
          const [before, now] = [mine[t - 1], mine[t]];
          expect((now?.sentMs ?? 0) - ((before?.sentMs ?? 0) + (before?.e2eMs ?? 0))).toBeGreaterThanOrEqual(
            0,
          );
        }
      }
      // The last turn carries the conversation so far: every message and the three-token answer the mock gave.
      const answer = ' the of and';
      const last = bodies.filter((b) => (b.messages?.length ?? 0) === 5);
      expect(last).toHaveLength(2);
      expect(last[0]?.messages).toEqual([
        { role: 'user', content: 'q' },
        { role: 'assistant', content: answer },
        { role: 'user', content: 'q0' },
        { role: 'assistant', content: answer },
        { role: 'user', content: 'q1' },
      ]);
    } finally {
      client.close();
    }
  });

  it('measures TTFT and per-token ITL within bounds of the configured delays', async () => {
    // Generous bounds: timers fire late under load, never early (setTimeout may round down by < 1 ms).
    const result = await load({ ttftMs: 60, perTokenMs: 10, tokensPerChunk: 2 }, { output: 10 });
    for (const r of result.records) {
      if (r.status !== 'ok') throw new Error(r.message);
      expect(r.ttftMs).toBeGreaterThanOrEqual(58);
      expect(r.ttftMs).toBeLessThan(60 + 150);
      const meanItl = r.itlMs.reduce((a, b) => a + b, 0) / r.itlMs.length;
      expect(meanItl).toBeGreaterThanOrEqual(9);
      expect(meanItl).toBeLessThan(10 + 40);
      expect(r.tpotMs).toBeGreaterThan(7);
    }
  });

  it('reads whole (not streamed) responses: tokens counted, no TTFT', async () => {
    const result = await load({ ttftMs: 5, perTokenMs: 1 }, { stream: false, output: 7, endpoint: 'chat' });
    for (const r of result.records) {
      expect(r.status).toBe('ok');
      if (r.status === 'ok') {
        expect(r.outputTokens).toBe(7);
        expect(r.ttftMs).toBeNaN();
      }
    }
  });

  const faults: [string, MockFault, string, number | undefined][] = [
    ['an HTTP 503', { kind: 'http', status: 503 }, 'http', 503],
    ['a broken stream', { kind: 'break', afterTokens: 3 }, 'broken-stream', 200],
    ['an event: error', { kind: 'event-error', afterTokens: 2 }, 'stream-error', 200],
    ['an error chunk', { kind: 'error-chunk', afterTokens: 2 }, 'stream-error', 200],
  ];
  for (const [what, fault, kind, status] of faults) {
    it(`classifies ${what}`, async () => {
      const result = await load({ ttftMs: 2, perTokenMs: 1, fault: (n) => (n === 1 ? fault : undefined) });
      const failed = result.records.filter((r) => r.status === 'failed');
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ kind, httpStatus: status });
    });
  }

  it('classifies a stall as a timeout', async () => {
    const result = await load(
      { ttftMs: 2, perTokenMs: 1, fault: (n) => (n === 0 ? { kind: 'stall' } : undefined) },
      { timeoutMs: 1500 },
    );
    expect(
      result.records.filter((r) => r.status === 'failed').map((r) => r.status === 'failed' && r.kind),
    ).toEqual(['timeout']);
  });

  it('sends a request again on a fresh socket when the server had closed the kept-alive one (llama-server)', async () => {
    const result = await load(
      { ttftMs: 2, perTokenMs: 1, oneRequestPerConnection: true },
      { requests: 12, output: 4 },
    );
    expect(result.records.map((r) => r.status)).toEqual(Array(12).fill('ok'));
  });

  it('classifies a refused connection', async () => {
    server = await startMockServer();
    const url = server.url;
    await server.close();
    server = undefined;
    const client = new OpenAiClient({ baseUrl: url });
    const result = await runLoadPoint({
      client,
      point: { concurrency: 1, rate: Number.POSITIVE_INFINITY },
      workload: tokenWorkload({
        source: 'synthetic',
        inputTokens: 4,
        outputTokens: 4,
        tokenizer,
        rng: new Rng(1),
        distinct: 1,
      }),
      tokenizer,
      rng: new Rng(2),
      requests: 1,
    });
    client.close();
    expect(result.records[0]).toMatchObject({ status: 'failed', kind: 'connection' });
  });
});
