/**
 * Latency the load generator's client adds at concurrency 64: a streaming server in a child process (known TTFT,
 * known per-token delay) writes its own send time into every chunk (`t`, ms since the Unix epoch, from
 * `performance.timeOrigin + performance.now()`); the client's stamp of the same chunk, taken in the socket's
 * `data` handler, minus that send time is what the kernel and the client's event loop added. Prints the
 * percentiles of that delay, the measured TTFT against the configured one, and the load average. Claims nothing
 * else: a busy machine shows up in the load average and in the delay.
 *
 * What the client itself costs is printed apart from that delay: its event loop's delay during the load (Node's
 * `monitorEventLoopDelay`, 1 ms resolution: how late a callback of the client could run because the client was
 * busy) and its CPU time per chunk. `--pin` runs the server on CPU 1 and every thread of the client on CPU 0
 * (`taskset`), so that on a 2-core machine the two processes stop taking turns on the same core.
 *
 * Run: `npm run bench:serving-client [-- --pin]` (compiles with tsconfig.bench.json into dist-bench/, then runs
 * with node).
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { quantileSorted } from '../src/profiling/index.js';
import { OpenAiClient, type RawExchange, SseReader } from '../src/serving/index.js';

const CONCURRENCY = 64;
const REQUESTS = 256;
const TTFT_MS = 20;
const PER_TOKEN_MS = 10;
const TOKENS = 32;

/** The child's server: plain node:http, no dependency, streaming `TOKENS` chunks each stamped with its send time. */
const SERVER = `
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
const now = () => performance.timeOrigin + performance.now();
const wait = (ms) => new Promise((r) => setTimeout(r, ms));
const server = createServer(async (req, res) => {
  for await (const _ of req);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  await wait(${TTFT_MS});
  for (let i = 0; i < ${TOKENS}; i++) {
    if (i > 0) await wait(${PER_TOKEN_MS});
    res.write('data: ' + JSON.stringify({ choices: [{ index: 0, text: ' the' }], t: now() }) + '\\n\\n');
  }
  res.end('data: [DONE]\\n\\n');
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

const ms = (v: number): string => `${v.toFixed(3)} ms`;

async function main(): Promise<void> {
  const pin = process.argv.includes('--pin');
  const serverArgs = [process.execPath, '--input-type=module', '-e', SERVER];
  const child = pin
    ? spawn('taskset', ['-c', '1', ...serverArgs], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(serverArgs[0] as string, serverArgs.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  if (pin) execFileSync('taskset', ['-a', '-pc', '0', String(process.pid)], { stdio: 'ignore' });
  try {
    const port = await new Promise<string>((resolve) =>
      createInterface({ input: child.stdout }).once('line', resolve),
    );
    const client = new OpenAiClient({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      maxSockets: CONCURRENCY,
      timeoutMs: 60_000,
    });
    const exchanges: RawExchange[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < REQUESTS) {
        next++;
        exchanges.push(await client.send({ prompt: 'x', max_tokens: TOKENS, stream: true }));
      }
    };
    const load = loadavg();
    const loop = monitorEventLoopDelay({ resolution: 1 });
    const cpuBefore = process.cpuUsage();
    loop.enable();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    loop.disable();
    const cpu = process.cpuUsage(cpuBefore);
    client.close();
    const delays: number[] = [];
    const ttfts: number[] = [];
    for (const raw of exchanges) {
      if (raw.status !== 'complete') continue;
      const reader = new SseReader();
      const events = raw.chunks.flatMap((c, i) => reader.push(c, raw.chunkTimesMs[i] ?? raw.endedAtMs));
      const first = events[0];
      if (first !== undefined) ttfts.push(first.atMs - raw.sentAtMs);
      for (const e of events) {
        if (e.data === '[DONE]') continue;
        const sent = (JSON.parse(e.data) as { t: number }).t;
        delays.push(performance.timeOrigin + e.atMs - sent);
      }
    }
    delays.sort((a, b) => a - b);
    ttfts.sort((a, b) => a - b);
    const failed = exchanges.filter((e) => e.status !== 'complete').length;
    console.log(
      `serving client overhead: ${cpus()[0]?.model ?? 'unknown CPU'}, concurrency ${CONCURRENCY}, ${REQUESTS} requests × ${TOKENS} chunks (${failed} failed)${pin ? ', server pinned to CPU 1 and client to CPU 0' : ''}`,
    );
    console.log(
      `server send → client stamp, per chunk (n=${delays.length}): p50 ${ms(quantileSorted(delays, 0.5))}, p90 ${ms(quantileSorted(delays, 0.9))}, p99 ${ms(quantileSorted(delays, 0.99))}, max ${ms(delays.at(-1) ?? Number.NaN)}`,
    );
    const loopMs = (q: number): string => ms(loop.percentile(q) / 1e6);
    console.log(
      `the client's own event-loop delay during the load: p50 ${loopMs(50)}, p99 ${loopMs(99)}, max ${ms(loop.max / 1e6)} (1 ms resolution: includes the 1 ms timer period)`,
    );
    console.log(
      `the client's CPU time per chunk: ${ms((cpu.user + cpu.system) / 1000 / Math.max(1, delays.length))} (user + system over the load)`,
    );
    console.log(
      `TTFT (configured ${TTFT_MS} ms, includes the server's timer lateness): p50 ${ms(quantileSorted(ttfts, 0.5))}, p99 ${ms(quantileSorted(ttfts, 0.99))}`,
    );
    console.log(
      `load average at start: ${load.map((v) => v.toFixed(2)).join(' ')}; at end: ${loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}`,
    );
    console.log(
      'goal: p50 ≤ 0.5 ms and p99 ≤ 2 ms of added delay (compare with the numbers above; nothing is asserted)',
    );
  } finally {
    child.kill();
  }
}

await main();
