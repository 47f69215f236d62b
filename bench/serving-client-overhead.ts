/**
 * What the load generator's client adds, and whether it keeps a schedule — the targets of `dantinox load`'s client,
 * measured against servers on loopback in a child process:
 *
 * 0. **CPU per chunk** of the transport: Node's HTTP client against the load generator's raw-socket one, the same
 *    64 streams from the batching server below, each run twice (the first warms the JIT up); the ratio is the claim.
 * 1. **Added delay** at concurrency 64 and 256: a server that decodes like a batching one (every 10 ms one chunk to
 *    every running stream, 32 chunks after a 20 ms first token) writes its send time into each chunk (`t`, ms on
 *    `process.hrtime`, the one monotonic clock that client and server processes share on Linux); the client's stamp of that chunk (in the socket's `data` handler, before any parsing) minus
 *    it is what the kernel and the client added. Sent with one event loop and with the default number of worker
 *    threads (`--workers`). Targets: p99 ≤ 2 ms at 64, ≤ 5 ms at 256.
 * 2. **Schedule kept** at 2,000 requests/s: an open-loop Poisson load of 20,000 requests to a server that answers at
 *    once (one chunk, then `[DONE]`). Targets: the achieved send rate within 1% of the asked one, lateness
 *    (send − planned) p99 ≤ 2 ms.
 *
 * Prints every figure with its target, the CPU and the load average at start and end; asserts nothing. `--pin`
 * runs the server on CPU 1 and the client on CPU 0 (`taskset`).
 *
 * Run: `npm run bench:serving-client [-- --pin]` (compiles with tsconfig.bench.json into dist-bench/, then runs
 * with node).
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { quantileSorted } from '../src/profiling/index.js';
import { Rng } from '../src/rng.js';
import { type LanePlan, runLane, runLaneWorkers } from '../src/serving/client/load-lanes.js';
import {
  bodyPieces,
  defaultWorkers,
  monotonicMs,
  OpenAiClient,
  runLoadPoint,
  type SentRequest,
  SseReader,
} from '../src/serving/index.js';

const TTFT_MS = 20;
const STEP_MS = 10;
const TOKENS = 32;

/** A batching server: one timer for all streams, one chunk to each every STEP_MS, each stamped with its send time. */
const BATCHING_SERVER = `
import { createServer } from 'node:http';
const now = () => Number(process.hrtime.bigint()) / 1e6;
const running = new Set();
setInterval(() => {
  for (const s of running) {
    if (now() < s.firstAt) continue;
    s.res.write('data: ' + JSON.stringify({ choices: [{ index: 0, text: ' the' }], t: now() }) + '\\n\\n');
    s.res.socket?.uncork(); // res.write corks until the next tick: without this, the stamp precedes the send by the whole batch
    if (++s.sent === ${TOKENS}) { running.delete(s); s.res.end('data: [DONE]\\n\\n'); }
  }
}, ${STEP_MS});
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    running.add({ res, sent: 0, firstAt: now() + ${TTFT_MS - STEP_MS} });
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/** A server that answers every request at once: one chunk, then [DONE]. */
const INSTANT_SERVER = `
import { createServer } from 'node:http';
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end('data: {"choices":[{"index":0,"text":" the"}]}\\n\\ndata: [DONE]\\n\\n');
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/** CPU time (ms) a process has used so far, user and system, from /proc (Linux's clock ticks are 10 ms). */
const processCpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return 10 * (Number(fields[11]) + Number(fields[12]));
};

const ms = (v: number): string => `${v.toFixed(3)} ms`;
const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');
const pin = process.argv.includes('--pin');

async function startServer(source: string): Promise<{ url: string; pid: number; stop: () => void }> {
  const args = [process.execPath, '--input-type=module', '-e', source];
  const child = pin
    ? spawn('taskset', ['-c', '1', ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(args[0] as string, args.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout }).once('line', resolve),
  );
  return { url: `http://127.0.0.1:${port}/v1`, pid: child.pid ?? 0, stop: () => child.kill() };
}

/** Part 1: the added delay per chunk of a closed loop of `concurrency` streams, sent by `workers` event loops. */
async function addedDelay(url: string, concurrency: number, workers: number): Promise<number[]> {
  const requests = 4 * concurrency;
  const options = { baseUrl: url, endpoint: 'completions' as const, timeoutMs: 60_000 };
  const client = new OpenAiClient({ ...options, maxSockets: concurrency });
  const body = { prompt: 'x', max_tokens: TOKENS, stream: true };
  const plan: LanePlan = {
    requests: [client.prepare(body).bytes],
    total: requests,
    durationMs: Number.POSITIVE_INFINITY,
    concurrency,
    originMs: monotonicMs() + (workers > 1 ? 300 : 0),
  };
  let sent: readonly SentRequest[];
  try {
    sent =
      workers > 1
        ? (await runLaneWorkers(options, plan, workers)).sent
        : (await runLane(client, plan, 0, 1)).sent;
  } finally {
    client.close();
  }
  const delays: number[] = [];
  for (const { raw } of sent) {
    if (raw.status !== 'complete') continue;
    const reader = new SseReader();
    for (const piece of bodyPieces(raw.reads).pieces)
      for (const event of reader.push(piece.bytes, piece.atMs))
        if (event.data !== '[DONE]') delays.push(event.atMs - (JSON.parse(event.data) as { t: number }).t);
  }
  return delays.sort((a, b) => a - b);
}

/** Part 0: CPU time per received chunk of 4 × 64 requests over 64 streams, by Node's HTTP client or ours. */
async function cpuPerChunk(url: string, transport: 'node:http' | 'raw'): Promise<number> {
  const concurrency = 64;
  const body = JSON.stringify({ prompt: 'x', max_tokens: TOKENS, stream: true });
  const target = new URL(`${url}/completions`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const client = new OpenAiClient({ baseUrl: url, maxSockets: concurrency });
  let chunks = 0;
  const viaNode = (): Promise<void> =>
    new Promise((resolve) => {
      const req = http.request(
        target,
        { method: 'POST', agent, headers: { 'content-length': body.length } },
        (res) => {
          res.on('data', () => {
            monotonicMs();
            chunks++;
          });
          res.on('end', resolve);
        },
      );
      req.end(body);
    });
  const viaRaw = async (): Promise<void> => {
    const raw = await client.send(JSON.parse(body) as object);
    chunks += raw.reads.length;
  };
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next++ < 4 * concurrency) await (transport === 'raw' ? viaRaw() : viaNode());
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, lane));
  const used = process.cpuUsage(before);
  agent.destroy();
  client.close();
  return (used.user + used.system) / chunks;
}

/** Part 2: an open-loop Poisson load at `rate` requests/s; the achieved rate and the lateness of the sends. */
async function schedule(url: string, rate: number, requests: number) {
  const client = new OpenAiClient({ baseUrl: url, maxSockets: 256, timeoutMs: 60_000 });
  const workload = {
    name: 'one word',
    size: 1,
    timed: false,
    item: () => ({ prompt: 'x', inputTokens: 1, outputTokens: 1 }),
  };
  try {
    const result = await runLoadPoint({
      client,
      point: { concurrency: Number.POSITIVE_INFINITY, rate },
      workload,
      tokenizer: { encode: (t: string) => [...t].map(() => 0) },
      rng: new Rng(1),
      requests,
    });
    const sends = result.records.map((r) => r.sentMs).sort((a, b) => a - b);
    const planned = result.records.map((r) => r.plannedMs).sort((a, b) => a - b);
    const span = (xs: number[]): number => (xs.at(-1) ?? 0) - (xs[0] ?? 0);
    const late = result.records.map((r) => r.sentMs - r.plannedMs - r.queueMs).sort((a, b) => a - b);
    return {
      achieved: ((sends.length - 1) * 1000) / span(sends),
      plannedRate: ((planned.length - 1) * 1000) / span(planned),
      late,
      failed: result.records.filter((r) => r.status !== 'ok').length,
    };
  } finally {
    client.close();
  }
}

async function main(): Promise<void> {
  if (pin) execFileSync('taskset', ['-a', '-pc', '0', String(process.pid)], { stdio: 'ignore' });
  const load = loadavg();
  console.log(
    `serving client: ${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} CPUs, Node ${process.version}${pin ? ', server on CPU 1 and client on CPU 0' : ''}`,
  );
  const batching = await startServer(BATCHING_SERVER);
  try {
    const cpu: Record<string, number> = {};
    for (const round of [0, 1])
      for (const transport of ['node:http', 'raw'] as const) {
        const us = await cpuPerChunk(batching.url, transport);
        if (round === 1) cpu[transport] = us;
      }
    console.log(
      `client CPU per chunk, 64 streams (second of two runs): node:http ${(cpu['node:http'] ?? Number.NaN).toFixed(1)} µs, raw sockets ${(cpu['raw'] ?? Number.NaN).toFixed(1)} µs — node:http ÷ raw ${((cpu['node:http'] ?? Number.NaN) / (cpu['raw'] ?? Number.NaN)).toFixed(2)}`,
    );
    for (const [concurrency, target] of [
      [64, 2],
      [256, 5],
    ] as const) {
      for (const workers of [...new Set([1, defaultWorkers(concurrency, availableParallelism())])]) {
        const wallStart = monotonicMs();
        const serverStart = processCpuMs(batching.pid);
        const clientStart = process.cpuUsage();
        const gcPauses: number[] = [];
        const gc = new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) gcPauses.push(entry.duration);
        });
        gc.observe({ entryTypes: ['gc'] });
        const d = await addedDelay(batching.url, concurrency, workers);
        gc.disconnect();
        const wall = monotonicMs() - wallStart;
        const client = process.cpuUsage(clientStart);
        const cores = (cpuMs: number): string => (cpuMs / wall).toFixed(2);
        const p99 = quantileSorted(d, 0.99);
        console.log(
          `added delay, concurrency ${concurrency}, ${workers} event loop(s), ${d.length} chunks: p50 ${ms(quantileSorted(d, 0.5))}, p90 ${ms(quantileSorted(d, 0.9))}, p99 ${ms(p99)}, max ${ms(d.at(-1) ?? Number.NaN)} — target p99 ≤ ${target} ms: ${verdict(p99 <= target)}; cores busy: client ${cores((client.user + client.system) / 1000)}, server ${cores(processCpuMs(batching.pid) - serverStart)}; main thread's GC: ${gcPauses.length} pauses, longest ${ms(Math.max(0, ...gcPauses))}`,
        );
      }
    }
  } finally {
    batching.stop();
  }
  const instant = await startServer(INSTANT_SERVER);
  try {
    const rate = 2000;
    const s = await schedule(instant.url, rate, 20_000);
    const gap = s.achieved / rate - 1;
    const p99 = quantileSorted(s.late, 0.99);
    console.log(
      `open loop at ${rate} req/s, 20,000 requests (${s.failed} failed): sent at ${s.achieved.toFixed(1)} req/s (${(100 * gap).toFixed(2)}% from the asked rate; the seeded schedule itself planned ${s.plannedRate.toFixed(1)}) — target within 1%: ${verdict(Math.abs(gap) <= 0.01)}`,
    );
    console.log(
      `lateness (send − planned): p50 ${ms(quantileSorted(s.late, 0.5))}, p99 ${ms(p99)}, max ${ms(s.late.at(-1) ?? Number.NaN)} — target p99 ≤ 2 ms: ${verdict(p99 <= 2)}`,
    );
  } finally {
    instant.stop();
  }
  console.log(
    `load average at start: ${load.map((v) => v.toFixed(2)).join(' ')}; at end: ${loadavg()
      .map((v) => v.toFixed(2))
      .join(' ')} (figures from a machine whose 1-minute load exceeded 1.5 are not figures)`,
  );
}

await main();
