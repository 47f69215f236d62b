/**
 * One decode step's attention over a KV cache in ONNX Runtime, two ways, on one layer of the 124 M llama shape
 * (12 heads of 64): the fused contrib operator `com.microsoft.GroupQueryAttention` (new key and value written into
 * a cache buffer shared by its past and present, BNSH) against the least a graph of plain operators does
 * (`FusedMatMul` q·Kᵀ/√d over the cache, `Softmax`, `MatMul` by V; no concatenation, no mask). Both are first checked
 * against a JavaScript reference (max |Δ| printed); then interleaved rounds with alternating order time a call of
 * each and of an `Identity` graph (the cost of a `run` call itself), and the script prints the medians and the
 * ratio of the two attention costs with the call's cost taken out.
 *
 * Run: `npm run bench:attention [-- --depths 64,512 --capacity 1024 --rounds 8 --calls 200]` (not in CI).
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { fillUniform } from '../src/models/calibration/probe-graphs.js';
import { loadOrt } from '../src/models/engines/ort/index.js';
import { GRAPH_OPSET, MS_DOMAIN, onnx } from '../src/models/onnx/graph-builder.js';
import { quantileSorted } from '../src/profiling/index.js';

const { values: args } = parseArgs({
  options: {
    depths: { type: 'string', default: '64,512' },
    rounds: { type: 'string', default: '8' },
    calls: { type: 'string', default: '200' },
    threads: { type: 'string', default: '2' },
    capacity: { type: 'string', default: '1024' },
  },
});
const HEADS = 12;
const HEAD_SIZE = 64;
const HIDDEN = HEADS * HEAD_SIZE;
/** Positions of the shared cache buffer (its past and present are both this long; ≥ every depth + 1). */
const CAPACITY = Number(args.capacity);
const depths = args.depths.split(',').map(Number);
const rounds = Number(args.rounds);
const calls = Number(args.calls);
const threads = Number(args.threads);

const INT = onnx.AttributeProto.AttributeType.INT;
const FLOAT = onnx.AttributeProto.AttributeType.FLOAT;
const FLOAT32 = 1;
const INT32 = 6;

const valueInfo = (
  name: string,
  elemType: number,
  dims: readonly (number | string)[],
): onnx.IValueInfoProto => ({
  name,
  type: {
    tensorType: {
      elemType,
      shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) },
    },
  },
});

function encode(
  nodes: onnx.INodeProto[],
  inputs: onnx.IValueInfoProto[],
  outputs: onnx.IValueInfoProto[],
): Uint8Array {
  const model = onnx.ModelProto.create({
    irVersion: 10,
    opsetImport: [
      { domain: '', version: GRAPH_OPSET },
      { domain: MS_DOMAIN, version: 1 },
    ],
    graph: { name: 'attention', node: nodes, input: inputs, output: outputs },
  });
  return onnx.ModelProto.encode(model).finish();
}

const gqaGraph = (): Uint8Array =>
  encode(
    [
      {
        opType: 'GroupQueryAttention',
        domain: MS_DOMAIN,
        name: 'gqa',
        input: ['q', 'k', 'v', 'past_key', 'past_value', 'seqlens_k', 'total_seq'],
        output: ['out', 'present_key', 'present_value'],
        attribute: [
          { name: 'num_heads', type: INT, i: HEADS },
          { name: 'kv_num_heads', type: INT, i: HEADS },
        ],
      },
    ],
    [
      valueInfo('q', FLOAT32, [1, 1, HIDDEN]),
      valueInfo('k', FLOAT32, [1, 1, HIDDEN]),
      valueInfo('v', FLOAT32, [1, 1, HIDDEN]),
      valueInfo('past_key', FLOAT32, [1, HEADS, 'P', HEAD_SIZE]),
      valueInfo('past_value', FLOAT32, [1, HEADS, 'P', HEAD_SIZE]),
      valueInfo('seqlens_k', INT32, [1]),
      valueInfo('total_seq', INT32, []),
    ],
    [
      valueInfo('out', FLOAT32, [1, 1, HIDDEN]),
      valueInfo('present_key', FLOAT32, [1, HEADS, 'T', HEAD_SIZE]),
      valueInfo('present_value', FLOAT32, [1, HEADS, 'T', HEAD_SIZE]),
    ],
  );

const plainGraph = (positions: number): Uint8Array =>
  encode(
    [
      {
        opType: 'FusedMatMul',
        domain: MS_DOMAIN,
        name: 'scores',
        input: ['q', 'K'],
        output: ['s'],
        attribute: [
          { name: 'transB', type: INT, i: 1 },
          { name: 'alpha', type: FLOAT, f: 1 / Math.sqrt(HEAD_SIZE) },
        ],
      },
      {
        opType: 'Softmax',
        domain: '',
        name: 'p',
        input: ['s'],
        output: ['p'],
        attribute: [{ name: 'axis', type: INT, i: -1 }],
      },
      { opType: 'MatMul', domain: '', name: 'values', input: ['p', 'V'], output: ['out'] },
    ],
    [
      valueInfo('q', FLOAT32, [1, HEADS, 1, HEAD_SIZE]),
      valueInfo('K', FLOAT32, [1, HEADS, positions, HEAD_SIZE]),
      valueInfo('V', FLOAT32, [1, HEADS, positions, HEAD_SIZE]),
    ],
    [valueInfo('out', FLOAT32, [1, HEADS, 1, HEAD_SIZE])],
  );

const identityGraph = (): Uint8Array =>
  encode(
    [{ opType: 'Identity', domain: '', name: 'i', input: ['q'], output: ['out'] }],
    [valueInfo('q', FLOAT32, [1, 1, HIDDEN])],
    [valueInfo('out', FLOAT32, [1, 1, HIDDEN])],
  );

/** softmax(q·Kᵀ/√d)·V per head over `past` cached positions (head-major `[H, past, d]`) and the new key/value. */
function reference(
  q: Float32Array,
  k: Float32Array,
  v: Float32Array,
  pk: Float32Array,
  pv: Float32Array,
  past: number,
): Float32Array {
  const out = new Float32Array(HIDDEN);
  for (let h = 0; h < HEADS; h++) {
    const key = (t: number, j: number): number =>
      (t < past ? pk[(h * past + t) * HEAD_SIZE + j] : k[h * HEAD_SIZE + j]) as number;
    const value = (t: number, j: number): number =>
      (t < past ? pv[(h * past + t) * HEAD_SIZE + j] : v[h * HEAD_SIZE + j]) as number;
    const scores = Array.from({ length: past + 1 }, (_, t) => {
      let dot = 0;
      for (let j = 0; j < HEAD_SIZE; j++) dot += (q[h * HEAD_SIZE + j] as number) * key(t, j);
      return dot / Math.sqrt(HEAD_SIZE);
    });
    const max = Math.max(...scores);
    const weights = scores.map((s) => Math.exp(s - max));
    const sum = weights.reduce((a, b) => a + b, 0);
    for (let j = 0; j < HEAD_SIZE; j++) {
      let o = 0;
      for (let t = 0; t <= past; t++) o += ((weights[t] as number) / sum) * value(t, j);
      out[h * HEAD_SIZE + j] = o;
    }
  }
  return out;
}

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs((a[i] as number) - (b[i] as number)));
  return d;
};

const ort = await loadOrt();
const sessionOptions: InferenceSession.SessionOptions = {
  executionProviders: ['cpu'],
  intraOpNumThreads: threads,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
};
const tensor = (data: Float32Array | Int32Array, dims: number[]): Tensor =>
  data instanceof Int32Array ? new ort.Tensor('int32', data, dims) : new ort.Tensor('float32', data, dims);

/** Median µs of `calls` runs after 20 untimed ones. */
async function timeRuns(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    await run();
    samples.push((performance.now() - t0) * 1000);
  }
  return quantileSorted(
    samples.sort((a, b) => a - b),
    0.5,
  );
}

console.log(
  `bench:attention — ${cpus()[0]?.model ?? 'CPU'}, ${cpus().length} logical CPUs, ${threads} threads`,
);
console.log(
  `load average at start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const gqa = await ort.InferenceSession.create(gqaGraph(), sessionOptions);
const identity = await ort.InferenceSession.create(identityGraph(), sessionOptions);
for (const past of depths) {
  const q = fillUniform(new Float32Array(HIDDEN), 1, 1);
  const k = fillUniform(new Float32Array(HIDDEN), 1, 2);
  const v = fillUniform(new Float32Array(HIDDEN), 1, 3);
  const pk = fillUniform(new Float32Array(HEADS * past * HEAD_SIZE), 1, 4);
  const pv = fillUniform(new Float32Array(HEADS * past * HEAD_SIZE), 1, 5);
  const expected = reference(q, k, v, pk, pv, past);
  // GQA: one buffer of CAPACITY positions per head is both past and present; the call writes the new row at `past`.
  const keys = new Float32Array(HEADS * CAPACITY * HEAD_SIZE);
  const values = new Float32Array(HEADS * CAPACITY * HEAD_SIZE);
  // The plain graph reads `past + 1` positions, the new one already in place.
  const keysPlain = new Float32Array(HEADS * (past + 1) * HEAD_SIZE);
  const valuesPlain = new Float32Array(HEADS * (past + 1) * HEAD_SIZE);
  for (let h = 0; h < HEADS; h++) {
    const rows = (a: Float32Array): Float32Array =>
      a.subarray(h * past * HEAD_SIZE, (h + 1) * past * HEAD_SIZE);
    const head = (a: Float32Array): Float32Array => a.subarray(h * HEAD_SIZE, (h + 1) * HEAD_SIZE);
    keys.set(rows(pk), h * CAPACITY * HEAD_SIZE);
    values.set(rows(pv), h * CAPACITY * HEAD_SIZE);
    keysPlain.set(rows(pk), h * (past + 1) * HEAD_SIZE);
    keysPlain.set(head(k), (h * (past + 1) + past) * HEAD_SIZE);
    valuesPlain.set(rows(pv), h * (past + 1) * HEAD_SIZE);
    valuesPlain.set(head(v), (h * (past + 1) + past) * HEAD_SIZE);
  }
  const cache = [1, HEADS, CAPACITY, HEAD_SIZE];
  const gqaFeeds = {
    q: tensor(q, [1, 1, HIDDEN]),
    k: tensor(k, [1, 1, HIDDEN]),
    v: tensor(v, [1, 1, HIDDEN]),
    past_key: tensor(keys, cache),
    past_value: tensor(values, cache),
    seqlens_k: tensor(Int32Array.of(past), [1]),
    total_seq: tensor(Int32Array.of(past + 1), []),
  };
  const gqaFetches = {
    out: tensor(new Float32Array(HIDDEN), [1, 1, HIDDEN]),
    present_key: tensor(keys, cache),
    present_value: tensor(values, cache),
  };
  const plain = await ort.InferenceSession.create(plainGraph(past + 1), sessionOptions);
  const plainFeeds = {
    q: tensor(q, [1, HEADS, 1, HEAD_SIZE]),
    K: tensor(keysPlain, [1, HEADS, past + 1, HEAD_SIZE]),
    V: tensor(valuesPlain, [1, HEADS, past + 1, HEAD_SIZE]),
  };
  const gqaOut = (await gqa.run(gqaFeeds, gqaFetches))['out']?.data as Float32Array;
  const plainOut = (await plain.run(plainFeeds))['out']?.data as Float32Array;
  const newKey = maxDiff(keys.subarray(past * HEAD_SIZE, (past + 1) * HEAD_SIZE), k.subarray(0, HEAD_SIZE));
  console.log(
    `depth ${past}: max |Δ| against the reference — GQA ${maxDiff(gqaOut, expected).toExponential(2)} (new key written in place: |Δ| ${newKey}), plain ${maxDiff(plainOut, expected).toExponential(2)}`,
  );
  const times: { gqa: number; plain: number; call: number }[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = { gqa: 0, plain: 0, call: 0 };
    const steps: [keyof typeof t, () => Promise<unknown>][] = [
      ['gqa', () => gqa.run(gqaFeeds, gqaFetches)],
      ['plain', () => plain.run(plainFeeds)],
      ['call', () => identity.run({ q: gqaFeeds.q })],
    ];
    for (const [name, run] of r % 2 === 0 ? steps : steps.reverse()) t[name] = await timeRuns(run);
    times.push(t);
  }
  const median = (xs: number[]): number =>
    quantileSorted(
      [...xs].sort((a, b) => a - b),
      0.5,
    );
  const ratios = times.map((t) => (t.gqa - t.call) / (t.plain - t.call)).sort((a, b) => a - b);
  console.log(
    `depth ${past}: µs per call, medians of ${rounds} interleaved rounds of ${calls}: GroupQueryAttention ${median(times.map((t) => t.gqa)).toFixed(1)}, plain operators ${median(times.map((t) => t.plain)).toFixed(1)}, an Identity call ${median(times.map((t) => t.call)).toFixed(1)}`,
  );
  console.log(
    `depth ${past}: GQA ÷ plain, the call's cost taken out: ${median(ratios).toFixed(2)}× the time (per round ${ratios[0]?.toFixed(2)}–${ratios.at(-1)?.toFixed(2)})`,
  );
  await plain.release();
}
await gqa.release();
await identity.release();
console.log(
  `load average at end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
