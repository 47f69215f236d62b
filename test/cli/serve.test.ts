/**
 * `dantinox serve` on the real binary: it prints its URL once listening on a free port, serves the tiny model, and
 * on SIGTERM answers new requests with 503 (or refuses them) while it finishes every request in flight, then
 * exits 0; bad flags are one clear line and exit 2.
 */
import { createServer } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { CompletionResponseSchema, STREAM_DONE } from '../../src/serving/openai-protocol.js';
import { sseData } from '../serving/server/tiny-server.js';
import { ensureBuilt, runCli } from './built-cli.js';
import { serve } from './serve-process.js';

beforeAll(() => {
  ensureBuilt();
});

describe('dantinox serve', () => {
  it('serves the tiny model on a free port and stops gracefully on SIGTERM, finishing the requests in flight', async () => {
    const served = await serve(['--max-batch', '1']);
    try {
      const health = await fetch(`${served.url}/health`);
      expect(health.status).toBe(200);
      // The built-in model on ONNX Runtime takes rows of different lengths.
      expect(served.stdout()).toContain('(model "tiny", continuous batching, --max-batch 1, --max-queue 64)');
      // Prompts of different lengths never share a batch: eight generations of ~100 tokens run one after another.
      const requests = Array.from({ length: 8 }, (_, i) =>
        fetch(`${served.url}/v1/completions`, {
          method: 'POST',
          body: JSON.stringify({ prompt: 'x'.repeat(10 + i), max_tokens: 100, stream: true }),
        }).then(async (res) => ({ status: res.status, body: await res.text() })),
      );
      // SIGTERM once at least two are accepted (one running, one waiting), polled on /metrics for at most 30 s.
      const deadline = Date.now() + 30_000;
      for (;;) {
        const metrics = await (await fetch(`${served.url}/metrics`)).text();
        if (Number(/^dantinox_requests_waiting (\d+)$/m.exec(metrics)?.[1] ?? 0) >= 1) break;
        if (Date.now() > deadline) throw new Error('no request waited within 30 s');
        await new Promise((r) => setTimeout(r, 5));
      }
      served.child.kill('SIGTERM');
      const answers = await Promise.all(requests);
      let finished = 0;
      for (const answer of answers) {
        // Accepted before the signal: finished in full. After it: 503 with the OpenAI error body.
        if (answer.status === 503) {
          expect(JSON.parse(answer.body).error.code).toBe('shutting_down');
          continue;
        }
        expect(answer.status).toBe(200);
        const data = sseData(answer.body);
        expect(data.at(-1)).toBe(STREAM_DONE);
        expect(JSON.parse(data.at(-2) as string).choices[0].finish_reason).toBe('length');
        finished++;
      }
      const inFlight = Number(/finishing (\d+) in flight/.exec(served.stderr())?.[1]);
      expect(inFlight).toBeGreaterThanOrEqual(2);
      expect(finished).toBeGreaterThanOrEqual(inFlight);
      expect(await served.exit).toBe(0);
      expect(served.stderr()).toMatch(/SIGTERM: no new requests; finishing \d+ in flight/);
      expect(served.stderr()).toContain('stopped after finishing every request in flight');
      await expect(fetch(`${served.url}/health`)).rejects.toThrow();
    } finally {
      served.child.kill('SIGKILL');
    }
  });

  it('answers a whole completion with usage and the served model name', async () => {
    const served = await serve(['--served-model-name', 'toy']);
    try {
      const res = await fetch(`${served.url}/v1/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'toy', prompt: 'Hello', max_tokens: 4, temperature: 0 }),
      });
      const body = CompletionResponseSchema.parse(await res.json());
      expect(body.model).toBe('toy');
      expect(body.usage).toEqual({ prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 });
      served.child.kill('SIGINT');
      expect(await served.exit).toBe(0);
    } finally {
      served.child.kill('SIGKILL');
    }
  });

  it.each([
    [['--port', '70000'], /--port.*70000.*TCP port from 0/],
    [['--max-batch', '0'], /--max-batch.*positive integer/],
    [['--max-queue', '0'], /--max-queue.*positive integer/],
    [['--batching', 'dynamic'], /--batching.*dynamic.*continuous, static/],
    [['--engine', 'vllm'], /--engine.*vllm.*ort, llama\.cpp, transformers\.js/],
    [['--config', 'tiny', '--model', 'x'], /--config.*--model|--model.*--config/],
  ])('refuses %j with one line and exit 2', async (args, pattern) => {
    const run = await runCli(['serve', ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(pattern);
    expect(run.stdout).toBe('');
  });

  it('says which address it cannot listen on, and exits 2', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const run = await runCli(['serve', '--config', 'tiny', '--port', String(port)]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`Cannot listen on 127.0.0.1:${port}`);
    } finally {
      blocker.close();
    }
  });
});
