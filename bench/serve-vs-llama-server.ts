/**
 * `dantinox load` against a server nobody here wrote: llama.cpp's own `llama-server`, built from the source release
 * node-llama-cpp ships (see llama-cpp-build.ts), serving a GGUF that dantinox exported, and `dantinox serve` on the
 * same model and dtype, loaded with the same workload (exact prompt and output lengths, streamed) at each
 * concurrency, the two servers interleaved round by round. Two things come out:
 *
 * - the cross-check: the client's TTFT against the prefill time each server reports in `timings` (what is left is
 *   queueing, HTTP and the client), and the client's time per output token against the server's own;
 * - both servers' numbers side by side (TTFT, TPOT, output tokens/s) and their ratio.
 *
 *   npm run bench:serve -- --config small --dtype fp32 --concurrency 1,4 --requests 24 --rounds 2
 *
 * Run it on a quiet machine (load average < 1.5): the servers and the client share the cores.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { CellRecord } from '../src/benchmarking/task.js';
import { exportGguf } from '../src/models/gguf/gguf-export.js';
import { createModel } from '../src/models/index.js';
import { runLoad } from '../src/runs/run-load.js';
import { buildLlamaCpp } from './llama-cpp-build.js';

const { values } = parseArgs({
  options: {
    config: { type: 'string', default: 'small' },
    dtype: { type: 'string', default: 'fp32' },
    concurrency: { type: 'string', default: '1,4' },
    requests: { type: 'string', default: '24' },
    'input-tokens': { type: 'string', default: '128' },
    'output-tokens': { type: 'string', default: '64' },
    threads: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '2' },
  },
});
const concurrency = (values.concurrency as string).split(',').map(Number);
const threads = String(values.threads);
const maxConcurrency = Math.max(...concurrency);
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** A free loopback port. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject()));
    });
  });
}

/** Polls `url` until it answers 200 (a server loading its model answers 503), within 120 s. */
async function ready(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${log()}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no answer from ${url} within 120 s:\n${log()}`);
}

interface Running {
  readonly name: string;
  readonly baseUrl: string;
  stop(): Promise<void>;
}

async function start(name: string, command: string, args: string[]): Promise<Running> {
  const port = await freePort();
  const child = spawn(command, [...args, '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (b: Buffer) => {
    log = (log + b.toString()).slice(-4000);
  });
  child.stderr?.on('data', (b: Buffer) => {
    log = (log + b.toString()).slice(-4000);
  });
  await ready(`http://127.0.0.1:${port}/health`, child, () => log);
  return {
    name,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    stop: () =>
      new Promise((resolve) => {
        child.once('close', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

interface Point {
  readonly server: string;
  readonly round: number;
  readonly concurrency: number;
  readonly metrics: Readonly<Record<string, number>>;
}

async function measure(server: Running, round: number, dir: string): Promise<Point[]> {
  const result = await runLoad({
    baseUrl: server.baseUrl,
    dir: join(dir, `${server.name}-round${round}`),
    model: server.name,
    concurrency,
    requests: Number(values.requests),
    warmup: { requests: 2 },
    workload: {
      kind: 'synthetic',
      inputTokens: Number(values['input-tokens']),
      outputTokens: Number(values['output-tokens']),
    },
    charts: false,
    seed: round,
  });
  const cells: readonly CellRecord[] = result.report.results[0]?.cells ?? [];
  for (const cell of cells) {
    const kinds = Object.entries(cell.metrics).filter(([k, n]) => k.startsWith('errors_') && n > 0);
    if (kinds.length > 0)
      console.log(
        `  ${server.name} ${cell.cell}: failed ${kinds.map(([k, n]) => `${n} ${k.slice(7)}`).join(', ')}`,
      );
  }
  return cells.map((c) => ({
    server: server.name,
    round,
    concurrency: c.metrics['concurrency'] ?? 0,
    metrics: c.metrics,
  }));
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length / 2;
  return s.length % 2 === 1 ? (s[Math.floor(m)] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

async function main(): Promise<void> {
  const { binDir, commit } = buildLlamaCpp(['llama-server']);
  const dir = mkdtempSync(join(tmpdir(), 'dantinox-bench-serve-'));
  const dtype = values.dtype as 'fp32' | 'q8' | 'q4';
  try {
    const model = await createModel(values.config as string, { seed: 0 });
    const gguf = join(dir, `${values.config}-${dtype}.gguf`);
    exportGguf(model, gguf, { dtype });
    await model.dispose();
    const ctx = String(
      maxConcurrency * (Number(values['input-tokens']) + Number(values['output-tokens']) + 16),
    );
    const servers: Record<string, () => Promise<Running>> = {
      'llama-server': () =>
        start('llama-server', join(binDir, 'llama-server'), [
          ...['-m', gguf, '--host', '127.0.0.1', '-t', threads, '-tb', threads],
          ...['-c', ctx, '-np', String(maxConcurrency), '--no-webui'],
        ]),
      'dantinox-serve': () =>
        start('dantinox-serve', process.execPath, [
          join(process.cwd(), 'dist', 'cli', 'main.js'),
          ...['serve', '--config', values.config as string, '--dtype', dtype, '--threads', threads],
          ...['--max-batch', String(maxConcurrency), '--served-model-name', 'dantinox-serve'],
        ]),
    };
    console.log(
      `CPU: ${cpus()[0]?.model} ×${cpus().length}; llama.cpp ${commit.slice(0, 12)}; ${values.config} ${dtype}, ` +
        `${values['input-tokens']} → ${values['output-tokens']} tokens, ${values.requests} requests per point, ` +
        `${threads} threads; load average before: ${load()}`,
    );
    const points: Point[] = [];
    for (let round = 1; round <= Number(values.rounds); round++)
      for (const [name, launch] of Object.entries(servers)) {
        const server = await launch();
        try {
          points.push(...(await measure(server, round, dir)));
        } finally {
          await server.stop();
        }
        console.log(`  round ${round}: ${name} measured (load average ${load()})`);
      }
    const f = (v: number | undefined, d = 1): string =>
      v === undefined || Number.isNaN(v) ? '—' : v.toFixed(d);
    const of = (server: string, c: number, key: string): number =>
      median(
        points.filter((p) => p.server === server && p.concurrency === c).map((p) => p.metrics[key] ?? NaN),
      );
    console.log('\nserver          conc  TTFT p50  TPOT mean  tok/s   token diff  (medians over rounds, ms)');
    for (const c of concurrency)
      for (const s of Object.keys(servers))
        console.log(
          `${s.padEnd(15)} ${String(c).padStart(4)}  ${f(of(s, c, 'ttft_p50_ms')).padStart(8)}  ` +
            `${f(of(s, c, 'tpot_ms'), 2).padStart(9)}  ${f(of(s, c, 'output_tps')).padStart(6)}  ` +
            `${f(of(s, c, 'token_count_diff'), 0).padStart(10)}`,
        );
    console.log(
      '\ncross-check against the timings each server reports with each response (ms, medians over rounds):',
    );
    console.log(
      'server          conc  client TTFT  server prefill  TTFT outside prefill  client TPOT  server TPOT  client/server TPOT',
    );
    for (const c of concurrency)
      for (const s of Object.keys(servers)) {
        const g = (k: string) => of(s, c, k);
        console.log(
          `${s.padEnd(15)} ${String(c).padStart(4)}  ${f(g('ttft_ms'), 2).padStart(11)}  ` +
            `${f(g('server_prompt_ms'), 2).padStart(14)}  ${f(g('ttft_outside_prompt_ms'), 2).padStart(20)}  ` +
            `${f(g('tpot_ms'), 2).padStart(11)}  ${f(g('server_tpot_ms'), 2).padStart(11)}  ` +
            `${f(g('tpot_ms') / g('server_tpot_ms'), 3).padStart(18)}`,
        );
      }
    console.log('\ndantinox serve ÷ llama-server (medians over rounds):');
    for (const c of concurrency) {
      const r = (k: string) => of('dantinox-serve', c, k) / of('llama-server', c, k);
      console.log(
        `  concurrency ${c}: output tok/s ×${f(r('output_tps'), 2)}, TTFT p50 ×${f(r('ttft_p50_ms'), 2)}, ` +
          `TPOT ×${f(r('tpot_ms'), 2)}`,
      );
    }
    console.log(`load average after: ${load()}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
