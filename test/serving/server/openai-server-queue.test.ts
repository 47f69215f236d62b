/**
 * The server under concurrent requests on loopback: concurrent equal-length requests give the tokens of one at a
 * time, a full queue answers 429, a client that goes away cancels its generation, a shutdown answers 503 while it
 * finishes the requests in flight, and `/metrics` counts exactly what was served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Model } from '../../../src/models/index.js';
import {
  CompletionResponseSchema,
  ErrorBodySchema,
  STREAM_DONE,
} from '../../../src/serving/openai-protocol.js';
import { OpenAiServer } from '../../../src/serving/server/openai-server.js';
import { PROMETHEUS_CONTENT_TYPE } from '../../../src/serving/server/prometheus-metrics.js';
import { gated, greedyDecode, parseMetrics, sseData, tinyModel, until } from './tiny-server.js';

let model: Model;
beforeAll(async () => {
  model = await tinyModel();
});
afterAll(async () => {
  await model.dispose();
});

const complete = (url: string, body: object, signal?: AbortSignal): Promise<Response> =>
  fetch(`${url}/v1/completions`, {
    method: 'POST',
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });

async function withServer<T>(
  options: Partial<ConstructorParameters<typeof OpenAiServer>[0]>,
  run: (server: OpenAiServer, url: string) => Promise<T>,
): Promise<T> {
  const server = new OpenAiServer({ model, name: 'tiny', ...options });
  const url = await server.listen({ port: 0 });
  try {
    return await run(server, url);
  } finally {
    await server.shutdown(1000);
  }
}

describe('OpenAiServer under concurrent requests', () => {
  it('gives concurrent equal-length requests the tokens of one at a time, in shared batches', async () => {
    const prompts = [
      [72, 101, 108],
      [87, 111, 114],
      [1, 2, 3],
      [200, 150, 100],
    ];
    // The tiny built-in model batches continuously unless told otherwise.
    expect(await withServer({ batching: 'static' }, async (server) => server.scheduler.batching)).toBe(
      'static',
    );
    await withServer({ maxBatch: 4 }, async (server, url) => {
      expect(server.scheduler.batching).toBe('continuous');
      const bodies = await Promise.all(
        prompts.map(async (prompt, i) =>
          CompletionResponseSchema.parse(
            await (await complete(url, { prompt, max_tokens: 10, temperature: 1, seed: i })).json(),
          ),
        ),
      );
      const alone = await withServer({ maxBatch: 1 }, (_, single) =>
        Promise.all(
          prompts.map(async (prompt, i) =>
            CompletionResponseSchema.parse(
              await (await complete(single, { prompt, max_tokens: 10, temperature: 1, seed: i })).json(),
            ),
          ),
        ),
      );
      expect(bodies.map((b) => b.choices[0]?.text)).toEqual(alone.map((b) => b.choices[0]?.text));
      const metrics = parseMetrics(await (await fetch(`${url}/metrics`)).text());
      // Continuous batching observes the rows of each decode step: more than one on average when requests shared
      // steps.
      const rows =
        (metrics.get('dantinox_batch_size_sum') ?? 0) / (metrics.get('dantinox_batch_size_count') ?? 1);
      expect(rows).toBeGreaterThan(1);
      expect(metrics.get('dantinox_generation_tokens_total')).toBe(40);
      const greedy = CompletionResponseSchema.parse(
        await (await complete(url, { prompt: prompts[0], max_tokens: 5, temperature: 0 })).json(),
      );
      expect(greedy.choices[0]?.text).toBe(
        model.tokenizer?.decode(await greedyDecode(model, prompts[0] as number[], 5)),
      );
      expect(server.inFlight).toBe(0);
    });
  });

  it('answers 429 when the queue is full, and serves the queued requests', async () => {
    const gate = gated(model);
    gate.close();
    await withServer({ model: gate.model, maxBatch: 1, maxQueue: 1 }, async (server, url) => {
      const first = complete(url, { prompt: 'ab', max_tokens: 4 });
      await until(() => server.scheduler.running === 1, 'the first request to run');
      const second = complete(url, { prompt: 'cd', max_tokens: 4 });
      await until(() => server.scheduler.waiting === 1, 'the second request to wait');
      const third = await complete(url, { prompt: 'ef', max_tokens: 4 });
      expect(third.status).toBe(429);
      expect(ErrorBodySchema.parse(await third.json()).error.code).toBe('queue_full');
      gate.open();
      expect((await first).status).toBe(200);
      expect((await second).status).toBe(200);
      const metrics = parseMetrics(await (await fetch(`${url}/metrics`)).text());
      expect(metrics.get('dantinox_requests_total{endpoint="/v1/completions",status="429"}')).toBe(1);
      expect(metrics.get('dantinox_requests_total{endpoint="/v1/completions",status="200"}')).toBe(2);
    });
  });

  it('cancels the generation of a client that goes away', async () => {
    const gate = gated(model);
    await withServer({ model: gate.model }, async (server, url) => {
      gate.close();
      const controller = new AbortController();
      // The headers come before the first token; the generation is then held at its first decode step.
      const res = await complete(url, { prompt: 'ab', max_tokens: 100, stream: true }, controller.signal);
      expect(res.status).toBe(200);
      await until(() => gate.steps() === 1, 'the first decode step');
      controller.abort();
      await res.body?.cancel().catch(() => undefined);
      await until(() => server.inFlight === 1, 'the request to be in flight');
      await new Promise((r) => setTimeout(r, 50));
      gate.open();
      await until(() => server.inFlight === 0 && server.scheduler.running === 0, 'the generation to end');
      const metrics = parseMetrics(await (await fetch(`${url}/metrics`)).text());
      expect(metrics.get('dantinox_generation_tokens_total')).toBeLessThan(100); // max_tokens: cut short
    });
  });

  it('answers 503 while shutting down and finishes the requests in flight', async () => {
    const gate = gated(model);
    gate.close();
    const server = new OpenAiServer({ model: gate.model, name: 'tiny', maxBatch: 1 });
    const url = await server.listen({ port: 0 });
    const inFlight = complete(url, { prompt: 'ab', max_tokens: 6, temperature: 0 });
    const queued = complete(url, { prompt: 'abc', max_tokens: 3, temperature: 0 });
    await until(() => server.scheduler.waiting === 1, 'the second request to wait');
    const stopped = server.shutdown(60_000);
    const late = await complete(url, { prompt: 'x', max_tokens: 2 });
    expect(late.status).toBe(503);
    expect(ErrorBodySchema.parse(await late.json()).error.code).toBe('shutting_down');
    expect((await fetch(`${url}/health`)).status).toBe(503);
    gate.open();
    const whole = CompletionResponseSchema.parse(await (await inFlight).json());
    expect(whole.usage?.completion_tokens).toBe(6);
    expect((await queued).status).toBe(200);
    expect(await stopped).toBe(true);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });

  it('answers an engine failure with 500, or an error chunk and [DONE] once streaming', async () => {
    const failing: Model = {
      config: model.config,
      info: model.info,
      ...(model.tokenizer === undefined ? {} : { tokenizer: model.tokenizer }),
      forward: (t, s) => model.forward(t, s),
      prefill: (t, s) => model.prefill(t, s),
      decodeStep: (_, state) => {
        state.dispose();
        return Promise.reject(new Error('engine down'));
      },
      barrier: () => model.barrier(),
      numParameters: () => model.numParameters(),
      dispose: () => model.dispose(),
    };
    await withServer({ model: failing }, async (_, url) => {
      const whole = await complete(url, { prompt: 'ab', max_tokens: 4 });
      expect(whole.status).toBe(500);
      const body = ErrorBodySchema.parse(await whole.json());
      expect(body.error.code).toBe('engine_error');
      expect(body.error.message).toContain('engine down');
      const streamed = await complete(url, { prompt: 'ab', max_tokens: 4, stream: true });
      expect(streamed.status).toBe(200);
      const data = sseData(await streamed.text());
      expect(data.at(-1)).toBe(STREAM_DONE);
      expect(ErrorBodySchema.parse(JSON.parse(data.at(-2) as string)).error.code).toBe('engine_error');
    });
  });

  it('writes /metrics in the Prometheus text format, counting exactly what was served', async () => {
    await withServer({}, async (_, url) => {
      const read = async () => {
        const res = await fetch(`${url}/metrics`);
        expect(res.headers.get('content-type')).toBe(PROMETHEUS_CONTENT_TYPE);
        return { text: await res.text(), values: parseMetrics(await (await fetch(`${url}/metrics`)).text()) };
      };
      const before = (await read()).values;
      await complete(url, { prompt: 'Hello', max_tokens: 7, temperature: 0 });
      await complete(url, { prompt: 'Hi', max_tokens: 3, temperature: 0, stream: true }).then((r) =>
        r.text(),
      );
      await complete(url, { prompt: 'Hi', max_tokens: 0 }).then((r) => r.text());
      const { text, values: after } = await read();
      const moved = (name: string): number => (after.get(name) ?? 0) - (before.get(name) ?? 0);
      expect(moved('dantinox_requests_total{endpoint="/v1/completions",status="200"}')).toBe(2);
      expect(moved('dantinox_requests_total{endpoint="/v1/completions",status="400"}')).toBe(1);
      expect(moved('dantinox_prompt_tokens_total')).toBe(7);
      expect(moved('dantinox_generation_tokens_total')).toBe(10);
      expect(moved('dantinox_time_to_first_token_seconds_count')).toBe(2);
      expect(moved('dantinox_queue_time_seconds_count')).toBe(2);
      // One observation per decode step (continuous batching): 6 for 7 tokens, 2 for 3, each of one row.
      expect(moved('dantinox_batch_size_count')).toBe(8);
      expect(moved('dantinox_batch_size_bucket{le="1"}')).toBe(8);
      expect(moved('dantinox_request_duration_seconds_count')).toBe(3);
      expect(after.get('dantinox_requests_waiting')).toBe(0);
      expect(after.get('dantinox_requests_running')).toBe(0);
      for (const name of [
        'dantinox_requests_total',
        'dantinox_batch_size',
        'dantinox_time_to_first_token_seconds',
      ])
        expect(text).toMatch(new RegExp(`^# TYPE ${name} (counter|histogram)$`, 'm'));
      expect(text).toMatch(/^dantinox_queue_time_seconds_bucket\{le="\+Inf"\} \d+$/m);
    });
  });
});
