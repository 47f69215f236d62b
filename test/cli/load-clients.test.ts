/**
 * One sweep point from two client processes: two real `dantinox load --client i/2 --start-at t` child processes
 * against one loopback mock server, merged, agree with the same point sent by one process — the same requests (the
 * same indices, planned times of the same seeded schedule, output tokens), percentiles that are those of the union of
 * the clients' requests, throughput over the union's span on the wall clock — and the merged point reads like any
 * load (compare, history). Every bad input is one line naming its flag.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseCsv } from '../../src/benchmarking/csv.js';
import { RunDirectory } from '../../src/benchmarking/run-directory.js';
import type { CellRecord } from '../../src/benchmarking/task.js';
import { ExitCode } from '../../src/cli/index.js';
import { messages } from '../../src/messages.js';
import { quantileSorted } from '../../src/profiling/index.js';
import { readLoadClientManifest } from '../../src/runs/load-client-manifest.js';
import { runLoad } from '../../src/runs/run-load.js';
import { CLIENT_FLAGS } from '../../src/scheduler-index.js';
import { type RequestLine, readRequestLines } from '../../src/serving/client/request-rows.js';
import { type MockServer, startMockServer } from '../serving/mock-openai-server.js';
import { type CliRun, ensureBuilt, ROOT, runCli, runProcess } from './built-cli.js';
import { runCliInProcess } from './capture-io.js';
import { dantinoxOnPath, runSlurmArray } from './slurm-array.js';

const cwd = mkdtempSync(join(tmpdir(), 'dantinox-load-clients-'));
let server: MockServer;
beforeAll(async () => {
  server = await startMockServer({ ttftMs: 4, perTokenMs: 1, tokensPerChunk: 2 });
});
afterAll(async () => {
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
});

const cli = (args: string[]): Promise<CliRun> => runCliInProcess(args, cwd);

/** An open-loop point: 24 requests at 40 req/s, at most 8 in flight, 2 warm-up requests. */
const POINT = [
  '--rate',
  '40',
  '--concurrency',
  '8',
  '--requests',
  '24',
  '--warmup',
  '2',
  '--input-tokens',
  '8',
  '--output-tokens',
  '8',
  '--model',
  'mock',
];
const ID = 'concurrency=8,rate=40';

const cellOf = (dir: string): CellRecord | undefined =>
  RunDirectory.load(join(cwd, dir)).results[0]?.cells?.find((c) => c.cell === ID);
const requestsOf = (dir: string): RequestLine[] => readRequestLines(join(cwd, dir, 'requests.jsonl'));
/** Linear-interpolation percentile of the ms values, rounded to 1 µs as the samples are. */
const percentile = (values: readonly number[], q: number): number =>
  quantileSorted(
    values.map((v) => Math.round(v * 1000) / 1000).sort((a, b) => a - b),
    q,
  );

describe('dantinox load --client i/n and merge', () => {
  it('two client processes merged agree with one process: same requests, union percentiles, union span', async () => {
    ensureBuilt();
    // Far enough ahead for both processes to start on a busy machine; both get the same instant.
    const startAt = String((Date.now() + 8000) / 1000);
    const clients = await Promise.all(
      [0, 1].map((i) =>
        runCli(
          ['load', server.url, ...POINT, '--out', 'clients', '--client', `${i}/2`, '--start-at', startAt],
          {
            cwd,
          },
        ),
      ),
    );
    for (const c of clients) expect(c.stderr.split('\n')[0]).toContain(ID);
    expect(clients.map((c) => c.code)).toEqual([0, 0]);
    expect(readLoadClientManifest(join(cwd, 'clients/client-1-of-2'))).toMatchObject({
      client: { index: 1, count: 2, source: '--client' },
      point: { id: ID, concurrency: 8, rate: 40 },
      scheduled: true,
      slots: 4,
      startAtEpochMs: Number(startAt) * 1000,
    });
    // A client draws no chart: the merge does.
    expect(existsSync(join(cwd, 'clients/client-0-of-2/charts'))).toBe(false);
    const single = await cli(['load', server.url, ...POINT, '--out', 'single', '--no-charts']);
    expect(single.code).toBe(ExitCode.ok);
    const merge = await cli(['merge', 'clients', '--out', 'merged']);
    expect(merge.stderr).toBe('');
    expect(merge.code).toBe(ExitCode.ok);
    expect(merge.stdout).toContain('Merged 2 of 2 client(s) of one sweep point from 2 folder(s) into merged');

    // The same requests: every index once, each client every other one, on the single process's schedule.
    const merged = requestsOf('merged');
    const one = requestsOf('single');
    expect(merged.map((r) => r.index)).toEqual(one.map((r) => r.index));
    // 24 measured after 2 warm-up requests: 26, every other one client 0's.
    expect(requestsOf('clients/client-0-of-2').map((r) => r.index)).toEqual([
      0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24,
    ]);
    expect(merged.map((r) => r.plannedMs)).toEqual(one.map((r) => r.plannedMs));
    expect(merged.map((r) => r.measured)).toEqual(one.map((r) => r.measured));
    const tokens = (rs: readonly RequestLine[]) => rs.map((r) => (r.status === 'ok' ? r.outputTokens : -1));
    expect(tokens(merged)).toEqual(tokens(one));
    const cell = cellOf('merged');
    const alone = cellOf('single');
    for (const key of ['requests', 'succeeded', 'output_tokens', 'server_tokens'])
      expect(cell?.metrics[key], key).toBe(alone?.metrics[key]);

    // Percentiles of the union of the clients' own records, computed here.
    const union = [...requestsOf('clients/client-0-of-2'), ...requestsOf('clients/client-1-of-2')];
    const ok = union.filter((r) => r.measured && r.status === 'ok');
    const ttft = ok.map((r) => (r.status === 'ok' ? r.ttftMs : Number.NaN));
    const itl = ok.flatMap((r) => (r.status === 'ok' ? r.itlMs : []));
    const e2e = ok.map((r) => r.e2eMs);
    expect(cell?.metrics['ttft_p50_ms']).toBeCloseTo(percentile(ttft, 0.5), 9);
    expect(cell?.metrics['ttft_p99_ms']).toBeCloseTo(percentile(ttft, 0.99), 9);
    expect(cell?.metrics['itl_p90_ms']).toBeCloseTo(percentile(itl, 0.9), 9);
    expect(cell?.metrics['e2e_p99_ms']).toBeCloseTo(percentile(e2e, 0.99), 9);
    expect(cell?.metricSamples?.['ttft_ms']).toHaveLength(ok.length);
    // Throughput over the union's span on the wall clock: each client's start plus its records' times.
    // (Times from the earliest start, as ms since the epoch alone hold only about 0.2 µs.)
    const measured = union.filter((r) => r.measured);
    const base = Math.min(...union.map((r) => r.originEpochMs));
    const first = Math.min(...measured.map((r) => r.originEpochMs - base + r.sentMs));
    const last = Math.max(...measured.map((r) => r.originEpochMs - base + r.sentMs + r.e2eMs));
    const outputTokens = ok.reduce((n, r) => n + (r.status === 'ok' ? r.outputTokens : 0), 0);
    expect(cell?.metrics['output_tps']).toBeCloseTo(outputTokens / ((last - first) / 1000), 6);
    expect(cell?.metrics['requests_per_s']).toBeCloseTo(ok.length / ((last - first) / 1000), 6);
    // The self-checks ran on the union.
    const checks = cell?.validation ?? [];
    expect(checks.map((c) => c.name)).toEqual(
      expect.arrayContaining(['e2e_parts', 'throughput_recomputed', 'rate_achieved']),
    );
    expect(checks.find((c) => c.name === 'throughput_recomputed')?.ok).toBe(true);
    expect(checks.find((c) => c.name === 'e2e_parts')?.ok).toBe(true);

    // One load run: a row for its point (with the number of clients), the four charts, compare and history.
    const table = parseCsv(readFileSync(join(cwd, 'merged/results.csv'), 'utf8'));
    expect(table.rows.map((r) => r[table.header.indexOf('cell')])).toEqual([ID]);
    expect(table.rows[0]?.[table.header.indexOf('clients')]).toBe('2');
    expect(existsSync(join(cwd, 'merged/charts/mock-serving_timeline.svg'))).toBe(true);
    const compare = await cli(['compare', 'single', 'merged', '--noise-floor', '500%']);
    expect([ExitCode.ok, ExitCode.regression]).toContain(compare.code);
    expect(compare.stdout).toContain(ID);
    const history = await cli(['history', 'add', 'merged', 'merged/results.csv', '--history', 'h.duckdb']);
    expect(history.stderr).toBe('');
    expect(history.code).toBe(ExitCode.ok);
  }, 90_000);

  it('a closed-loop point over 2 clients: 3 slots dealt 2 and 1, the requests with them', async () => {
    const startAtEpochMs = Date.now() + 300;
    const settings = {
      baseUrl: server.url,
      cwd,
      model: 'mock',
      concurrency: [3],
      requests: 9,
      workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 4 },
      startAtEpochMs,
    } as const;
    const runs = await Promise.all(
      [0, 1].map((index) =>
        runLoad({
          ...settings,
          dir: `closed/client-${index}-of-2`,
          client: { index, count: 2, source: '--client' },
        }),
      ),
    );
    expect(runs.map((r) => r.status)).toEqual(['completed', 'completed']);
    // 9 measured after the default warm-up of 3 (the concurrency): 12, by slot (k mod 3) 0 and 2 to client 0.
    expect(requestsOf('closed/client-0-of-2').map((r) => r.index)).toEqual([0, 2, 3, 5, 6, 8, 9, 11]);
    expect(requestsOf('closed/client-1-of-2').map((r) => r.index)).toEqual([1, 4, 7, 10]);
    expect(readLoadClientManifest(join(cwd, 'closed/client-0-of-2')).slots).toBe(2);
    const merge = await cli(['merge', 'closed', '--out', 'closed-merged', '--no-charts']);
    expect(merge.code).toBe(ExitCode.ok);
    expect(requestsOf('closed-merged').map((r) => r.index)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(requestsOf('closed-merged').map((r) => r.measured)).toEqual(
      Array.from({ length: 12 }, (_, i) => i >= 3),
    );
    expect(requestsOf('closed-merged').every((r) => r.originEpochMs === startAtEpochMs)).toBe(true);
  });

  it('refuses bad input in one line naming the flag', async () => {
    const load = (...extra: string[]) => cli(['load', server.url, ...POINT, '--out', 'bad', ...extra]);
    const soon = String(Math.floor(Date.now() / 1000) + 600);
    const cases: [string[], string][] = [
      [['--client', '2/2', '--start-at', soon], messages.badShard('2/2', CLIENT_FLAGS)],
      [['--client', '0/2'], messages.loadClientNeedsStartAt('--client')],
      [
        ['--client', '0/2', '--start-at', soon, '--shard', '0/2'],
        messages.loadClientWithShard('--client', '--shard'),
      ],
      [
        ['--client', '0/2', '--start-at', soon, '--rate', '10,20'],
        messages.loadClientOnePoint('--client', ['concurrency=8,rate=10', 'concurrency=8,rate=20']),
      ],
      [['--client', '8/9', '--start-at', soon], messages.loadClientNoSlot(8, 8, 9)],
      [['--clients', '2', '--start-at', soon], messages.shardsWithoutIndex(2, CLIENT_FLAGS)],
    ];
    for (const [extra, message] of cases) {
      const run = await load(...extra);
      expect(run.code, extra.join(' ')).toBe(ExitCode.usage);
      expect(run.stderr, extra.join(' ')).toBe(`error: ${message}\n`);
    }
    const past = await load('--client', '0/2', '--start-at', '2020-01-01T00:00:00Z');
    expect(past.code).toBe(ExitCode.usage);
    expect(past.stderr.split('\n')).toHaveLength(2);
    expect(past.stderr).toMatch(/^error: --start-at 2020-01-01T00:00:00\.000Z is [\d.]+ s in the past/);
    const zoneless = await load('--start-at', '2030-01-01T00:00:00');
    expect(zoneless.code).toBe(ExitCode.usage);
    expect(zoneless.stderr).toContain(messages.loadBadStartAt('2030-01-01T00:00:00'));
    expect(existsSync(join(cwd, 'bad'))).toBe(false);
  });

  it('merge refuses clients of other loads, twice the same client, a missing one, and shards with clients', async () => {
    const startAtEpochMs = Date.now() + 300;
    const client = (dir: string, index: number, seed = 0) =>
      runLoad({
        baseUrl: server.url,
        cwd,
        dir,
        model: 'mock',
        concurrency: [2],
        requests: 4,
        seed,
        workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 2 },
        startAtEpochMs,
        client: { index, count: 2, source: '--client' },
        charts: false,
      });
    await Promise.all([client('other/client-0-of-2', 0), client('other/client-1-of-2', 1, 7)]);
    const differ = await cli(['merge', 'other', '--out', 'other-merged']);
    expect(differ.code).toBe(ExitCode.usage);
    expect(differ.stderr).toBe(
      `error: ${messages.loadShardsDiffer(join(cwd, 'other/client-0-of-2'), join(cwd, 'other/client-1-of-2'), '--seed', '0', '7', CLIENT_FLAGS)}\n`,
    );
    const missing = await cli(['merge', 'other/client-0-of-2', '--out', 'half']);
    expect(missing.code).toBe(ExitCode.usage);
    expect(missing.stderr).toBe(
      `error: ${messages.mergeIncomplete([messages.clientsMissing([1], 2)], CLIENT_FLAGS)}\n`,
    );
    const partial = await cli([
      'merge',
      'other/client-0-of-2',
      '--out',
      'half',
      '--allow-partial',
      '--no-charts',
    ]);
    expect(partial.code).toBe(ExitCode.ok);
    expect(partial.stderr).toContain('missing (--allow-partial): missing client folder(s) client-1-of-2');
    expect(RunDirectory.load(join(cwd, 'half')).results[0]?.meta?.['interrupted']).toBe(
      messages.loadClientsInterrupted(1),
    );
    const twice = await cli(['merge', 'other/client-0-of-2', 'other/client-0-of-2', '--out', 'twice']);
    expect(twice.stderr).toBe(
      `error: ${messages.duplicateClient(0, [join(cwd, 'other/client-0-of-2'), join(cwd, 'other/client-0-of-2')])}\n`,
    );
    await runLoad({
      baseUrl: server.url,
      cwd,
      dir: 'shards/shard-0-of-1',
      concurrency: [1],
      requests: 2,
      workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 2 },
      shard: { index: 0, count: 1, source: '--shard' },
    });
    const mixed = await cli(['merge', 'shards', 'other', '--out', 'mixed']);
    expect(mixed.stderr).toBe(
      `error: ${messages.mergeShardsAndClients(join(cwd, 'shards'), join(cwd, 'other'))}\n`,
    );
  });

  it('takes the client index from a Kubernetes Indexed Job with --clients', async () => {
    const before = process.env['JOB_COMPLETION_INDEX'];
    process.env['JOB_COMPLETION_INDEX'] = '1';
    try {
      const startAt = new Date(Date.now() + 300).toISOString();
      const run = await cli([
        'load',
        server.url,
        '--concurrency',
        '2',
        '--requests',
        '2',
        '--out',
        'k8s',
        '--clients',
        '2',
        '--start-at',
        startAt,
        '--quiet',
      ]);
      expect(run.code, run.stderr).toBe(ExitCode.ok);
      expect(readLoadClientManifest(join(cwd, 'k8s/client-1-of-2')).client).toEqual({
        index: 1,
        count: 2,
        source: 'JOB_COMPLETION_INDEX',
      });
    } finally {
      if (before === undefined) delete process.env['JOB_COMPLETION_INDEX'];
      else process.env['JOB_COMPLETION_INDEX'] = before;
    }
  });
});

/** The sizes of the docs' point scaled down to a test's (4 in flight, 16 requests, 2 warm-up), its server the mock. */
const SCALED: Readonly<Record<string, string>> = {
  '--concurrency': '4',
  '--requests': '16',
  '--warmup': '2',
};

/** A command line of the docs with {@link SCALED}'s sizes, the mock's URL and `--start-at` at `startAt`. */
const scaledDown = (args: readonly string[], url: string, startAt: string): string[] =>
  args.map((a, i) => {
    const flag = args[i - 1] ?? '';
    if (SCALED[flag] !== undefined) return SCALED[flag] as string;
    if (flag === '--start-at') return startAt;
    return a === 'http://llm-server:8000/v1' ? url : a;
  });

describe('the Kubernetes and Slurm forms of docs/ (their commands, scaled down, with the scheduler variables)', () => {
  // biome-ignore lint/suspicious/noExplicitAny: the shape of a Kubernetes manifest is checked by the assertions
  type Manifest = Record<string, any>;
  /** The Job of a docs/kubernetes file, and its container's command with /results on the test's folder. */
  const jobOf = (file: string): { job: Manifest; command: string[] } => {
    const docs = parseAllDocuments(readFileSync(join(ROOT, 'docs/kubernetes', file), 'utf8')).map(
      (d) => d.toJS() as Manifest,
    );
    const job = docs.find((d) => d['kind'] === 'Job') ?? {};
    const command = (job['spec']['template']['spec']['containers'][0]['command'] as string[]).map((a) =>
      a.replace(/^\/results/, join(cwd, 'k8s-results')),
    );
    return { job, command };
  };

  it('the Indexed Job: every pod a client from JOB_COMPLETION_INDEX, the merge Job one point of them', async () => {
    ensureBuilt();
    const { job, command: asWritten } = jobOf('dantinox-load-clients.yaml');
    const completions = Number(job['spec']['completions']);
    expect(job['spec']['parallelism']).toBe(completions);
    expect(asWritten.at(-1)).toBe('START_AT');
    const command = scaledDown(asWritten, server.url, new Date(Date.now() + 15_000).toISOString());
    expect(command.slice(0, 2)).toEqual(['dantinox', 'load']);
    expect(command[command.indexOf('--clients') + 1]).toBe(String(completions));
    const pods = await Promise.all(
      Array.from({ length: completions }, (_, i) =>
        runCli(command.slice(1), { cwd, env: { JOB_COMPLETION_INDEX: String(i) } }),
      ),
    );
    for (const pod of pods) expect(pod.code, pod.stderr).toBe(0);
    const merge = await runCli(jobOf('dantinox-load-merge.yaml').command.slice(1), { cwd });
    expect(merge.code, merge.stderr).toBe(0);
    expect(merge.stdout).toContain(`Merged ${completions} of ${completions} client(s) of one sweep point`);
    const merged = readRequestLines(join(cwd, 'k8s-results/c256-merged/requests.jsonl'));
    // 16 measured after 2 warm-up requests.
    expect(merged.map((r) => r.index)).toEqual(Array.from({ length: 18 }, (_, i) => i));
    expect(merged.map((r) => r.measured)).toEqual(Array.from({ length: 18 }, (_, i) => i >= 2));
  }, 120_000);

  it('the Slurm array: every task a client from SLURM_ARRAY_TASK_ID, then the merge script', async () => {
    ensureBuilt();
    const dir = join(cwd, 'slurm');
    const path = dantinoxOnPath(dir);
    const script = join(ROOT, 'docs/slurm/dantinox-load-clients.sbatch');
    const scaled = Object.entries(SCALED).reduce(
      (text, [flag, value]) => text.replace(new RegExp(`${flag} \\d+`), `${flag} ${value}`),
      readFileSync(script, 'utf8'),
    );
    writeFileSync(join(dir, 'clients.sbatch'), scaled);
    const env = {
      PATH: path,
      RESULTS: join(dir, 'results'),
      SERVER: server.url,
      START_AT: String(Math.floor(Date.now() / 1000) + 15),
    };
    const tasks = await runSlurmArray(script, dir, env, join(dir, 'clients.sbatch'));
    for (const t of tasks) expect(t.code, t.stderr).toBe(0);
    const merge = await runProcess('bash', [join(ROOT, 'docs/slurm/dantinox-load-merge.sbatch')], {
      cwd: dir,
      env,
    });
    expect(merge.code, merge.stderr).toBe(0);
    expect(readRequestLines(join(dir, 'results/c256-merged/requests.jsonl'))).toHaveLength(18);
    // Without START_AT the script stops before dantinox runs, saying how to submit it.
    const unset = await runProcess('bash', [join(ROOT, 'docs/slurm/dantinox-load-clients.sbatch')], {
      cwd: dir,
      env: { PATH: env.PATH, SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_TASK_COUNT: '4' },
    });
    expect(unset.code).not.toBe(0);
    expect(unset.stderr).toContain('START_AT');
  }, 120_000);

  it('names only flags that exist', async () => {
    const help = (await cli(['load', '--help'])).stdout + (await cli(['merge', '--help'])).stdout;
    const files = [
      'kubernetes/dantinox-load-clients.yaml',
      'kubernetes/dantinox-load-merge.yaml',
      'slurm/dantinox-load-clients.sbatch',
      'slurm/dantinox-load-merge.sbatch',
    ];
    for (const file of files) {
      const lines = readFileSync(join(ROOT, 'docs', file), 'utf8').split('\n');
      const commands = lines.filter((l) => /^\s*(- )?(dantinox\b|--)/.test(l));
      expect(commands.length, file).toBeGreaterThan(0);
      for (const flag of commands.join(' ').match(/--[a-z][a-z-]*/g) ?? [])
        expect(help, `${file}: ${flag}`).toContain(flag);
    }
  });
});
