/**
 * What batching buys `dantinox serve`: generated tokens per second through the HTTP server on loopback, closed
 * loop, with prompts of the same token length (so concurrent requests can share a batch even when batching is
 * static), at concurrency 1, at concurrency C with `--max-batch 1` (queued, one at a time), and at concurrency C
 * with `--max-batch C`, static batching and continuous batching (the built-in model's engine takes rows of
 * different lengths). Prints the ratios, the mean rows per batch (static) or per decode step (continuous), the CPU
 * model and the load average before and after.
 *
 *   npm run bench:serve-batching -- --config small --concurrency 8 --requests 32 --max-tokens 64
 *
 * Run it on a quiet machine (load average < 1.5): a busy one measures its neighbours.
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createModel } from '../src/models/index.js';
import { Rng } from '../src/rng.js';
import { OpenAiServer } from '../src/serving/server/openai-server.js';

const { values } = parseArgs({
  options: {
    config: { type: 'string', default: 'small' },
    concurrency: { type: 'string', default: '8' },
    requests: { type: 'string', default: '32' },
    'prompt-tokens': { type: 'string', default: '32' },
    'max-tokens': { type: 'string', default: '64' },
    threads: { type: 'string', default: '2' },
  },
});
const concurrency = Number(values.concurrency);
const requests = Number(values.requests);
const promptTokens = Number(values['prompt-tokens']);
const maxTokens = Number(values['max-tokens']);

interface Measured {
  readonly label: string;
  readonly tokens: number;
  readonly seconds: number;
  readonly tokensPerSecond: number;
  /**
   * Mean rows per engine batch (static batching) or per decode step (continuous batching), from the server's
   * `dantinox_batch_size` histogram, the warm-up request left out.
   */
  readonly meanBatch: number;
}

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function measure(
  label: string,
  maxBatch: number,
  clients: number,
  batching: 'static' | 'continuous',
): Promise<Measured> {
  const model = await createModel(values.config as string, { seed: 0, threads: Number(values.threads) });
  const server = new OpenAiServer({ model, name: 'bench', maxBatch, maxQueue: clients, batching });
  const sample = (name: string): number => {
    const metrics = server.metrics.registry.render();
    return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
  };
  const url = await server.listen({ port: 0 });
  const rng = new Rng(1);
  const prompt = (): number[] => Array.from(rng.integers(model.config.vocabSize, promptTokens));
  const ask = async (): Promise<number> => {
    const res = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ prompt: prompt(), max_tokens: maxTokens, temperature: 0, ignore_eos: true }),
    });
    const body = (await res.json()) as { usage: { completion_tokens: number } };
    return body.usage.completion_tokens;
  };
  try {
    await ask(); // warm-up: session and buffers of batch 1
    const warmUp = { sum: sample('dantinox_batch_size_sum'), count: sample('dantinox_batch_size_count') };
    let left = requests;
    let tokens = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (left > 0) {
          left--;
          const generated = await ask();
          tokens += generated;
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const meanBatch =
      (sample('dantinox_batch_size_sum') - warmUp.sum) / (sample('dantinox_batch_size_count') - warmUp.count);
    return { label, tokens, seconds, tokensPerSecond: tokens / seconds, meanBatch };
  } finally {
    await server.shutdown(10_000);
    await model.dispose();
  }
}

const loadBefore = load();
const runs = [
  await measure('concurrency 1', 1, 1, 'continuous'),
  await measure(`concurrency ${concurrency}, --max-batch 1`, 1, concurrency, 'continuous'),
  await measure(
    `concurrency ${concurrency}, --max-batch ${concurrency} static`,
    concurrency,
    concurrency,
    'static',
  ),
  await measure(
    `concurrency ${concurrency}, --max-batch ${concurrency} continuous`,
    concurrency,
    concurrency,
    'continuous',
  ),
];
console.log(
  `${values.config}: ${requests} requests of ${promptTokens} prompt tokens and ${maxTokens} generated tokens (greedy, ignore_eos), ${values.threads} threads`,
);
console.log(
  `CPU: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}; load average before ${loadBefore}, after ${load()}`,
);
for (const r of runs)
  console.log(
    `  ${r.label.padEnd(45)} ${r.tokensPerSecond.toFixed(1).padStart(8)} tok/s (${r.tokens} tokens in ${r.seconds.toFixed(2)} s, ${r.meanBatch.toFixed(2)} rows per batch or step)`,
  );
const [one, queued, statically, continuously] = runs as [Measured, Measured, Measured, Measured];
for (const [name, batched] of [
  ['static', statically],
  ['continuous', continuously],
] as const)
  console.log(
    `${name} batching gain at concurrency ${concurrency}: ×${(batched.tokensPerSecond / one.tokensPerSecond).toFixed(2)} vs concurrency 1, ×${(batched.tokensPerSecond / queued.tokensPerSecond).toFixed(2)} vs --max-batch 1`,
  );
console.log(
  `continuous ÷ static at concurrency ${concurrency}: ×${(continuously.tokensPerSecond / statically.tokensPerSecond).toFixed(2)}`,
);
