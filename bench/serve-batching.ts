/**
 * What batching buys `dantinox serve`: generated tokens per second through the HTTP server on loopback, closed
 * loop, with prompts of the same token length (so concurrent requests can share a batch), at concurrency 1, at
 * concurrency C with `--max-batch 1` (queued, one at a time) and at concurrency C with `--max-batch C`. Prints the
 * ratios, the CPU model and the load average before and after.
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
  /** Mean rows per engine batch, from the server's `dantinox_batch_size` histogram. */
  readonly meanBatch: number;
}

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function measure(label: string, maxBatch: number, clients: number): Promise<Measured> {
  const model = await createModel(values.config as string, { seed: 0, threads: Number(values.threads) });
  const server = new OpenAiServer({ model, name: 'bench', maxBatch, maxQueue: clients });
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
    const metrics = server.metrics.registry.render();
    const sample = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
    // The warm-up request ran as one batch of 1 row.
    const meanBatch = (sample('dantinox_batch_size_sum') - 1) / (sample('dantinox_batch_size_count') - 1);
    return { label, tokens, seconds, tokensPerSecond: tokens / seconds, meanBatch };
  } finally {
    await server.shutdown(10_000);
    await model.dispose();
  }
}

const loadBefore = load();
const runs = [
  await measure('concurrency 1', 1, 1),
  await measure(`concurrency ${concurrency}, --max-batch 1`, 1, concurrency),
  await measure(`concurrency ${concurrency}, --max-batch ${concurrency}`, concurrency, concurrency),
];
console.log(
  `${values.config}: ${requests} requests of ${promptTokens} prompt tokens and ${maxTokens} generated tokens (greedy, ignore_eos), ${values.threads} threads`,
);
console.log(
  `CPU: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}; load average before ${loadBefore}, after ${load()}`,
);
for (const r of runs)
  console.log(
    `  ${r.label.padEnd(34)} ${r.tokensPerSecond.toFixed(1).padStart(8)} tok/s (${r.tokens} tokens in ${r.seconds.toFixed(2)} s, ${r.meanBatch.toFixed(2)} rows per batch)`,
  );
const [one, queued, batched] = runs as [Measured, Measured, Measured];
console.log(
  `batching gain at concurrency ${concurrency}: ×${(batched.tokensPerSecond / one.tokensPerSecond).toFixed(2)} vs concurrency 1, ×${(batched.tokensPerSecond / queued.tokensPerSecond).toFixed(2)} vs --max-batch 1`,
);
