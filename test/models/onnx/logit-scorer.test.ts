/** The in-graph scorer agrees with the all-float64 JavaScript reference on wide, peaked and flat logit rows. */
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { loadOrt } from '../../../src/models/engines/ort/index.js';
import { LogitScorer, logitScorer, SCORER_BLOCK_ELEMENTS } from '../../../src/models/onnx/logit-scorer.js';
import { logSumExp } from '../../../src/models/paradigms/log-probs.js';
import { Rng } from '../../../src/rng.js';

const VOCAB = 50257;

/** Rows of float32 logits: Gaussian with a spread per row (flat to very peaked), one row all equal. */
function rows(seed: bigint, n: number, offset = 0): Float32Array {
  const rng = new Rng(seed);
  const out = new Float32Array(n * VOCAB);
  for (let r = 0; r < n; r++) {
    const spread = r === 0 ? 0 : 0.5 * 4 ** (r % 4);
    const row = out.subarray(r * VOCAB, (r + 1) * VOCAB);
    if (spread > 0) rng.fillNormal(row, spread);
    for (let j = 0; j < VOCAB; j++) row[j] = (row[j] as number) + offset;
  }
  return out;
}

/** KL(P ‖ Q) of two logit rows in float64, the definition. */
function klReference(p: Float32Array, q: Float32Array, row: number): number {
  const lp = logSumExp(p, row * VOCAB, VOCAB);
  const lq = logSumExp(q, row * VOCAB, VOCAB);
  let kl = 0;
  for (let j = row * VOCAB; j < (row + 1) * VOCAB; j++) {
    const a = (p[j] as number) - lp;
    kl += Math.exp(a) * (a - ((q[j] as number) - lq));
  }
  return kl;
}

describe('logitScorer', () => {
  const n = 6;
  const targets = BigInt64Array.from({ length: n }, (_, r) => BigInt((r * 7919) % VOCAB));

  it('nll equals logsumexp − target logit within 1e-7 nats (offset logits too)', async () => {
    const scorer = await logitScorer();
    for (const offset of [0, 40]) {
      const logits = rows(1n, n, offset);
      const out = await scorer.nll(logits, VOCAB, targets);
      for (let r = 0; r < n; r++) {
        const want = logSumExp(logits, r * VOCAB, VOCAB) - (logits[r * VOCAB + Number(targets[r])] as number);
        expect(Math.abs((out.nll[r] as number) - want), `row ${r}, offset ${offset}`).toBeLessThan(1e-7);
      }
      // The all-equal row is exact: log(vocab).
      expect(out.nll[0]).toBe(Math.log(VOCAB));
    }
  });

  it('kl matches the float64 definition within 1e-8 + 1e-6 relative, and is exactly 0 for equal rows', async () => {
    const scorer = await logitScorer();
    const p = rows(2n, n);
    const q = Float32Array.from(p, (x, i) => x + 0.05 * Math.sin(i));
    const out = await scorer.kl(p, q, VOCAB, targets);
    for (let r = 0; r < n; r++) {
      const want = klReference(p, q, r);
      expect(Math.abs((out.kl[r] as number) - want), `row ${r}: ${want}`).toBeLessThan(1e-8 + 1e-6 * want);
    }
    const same = await scorer.kl(p, p, VOCAB, targets);
    expect(Array.from(same.kl)).toEqual(new Array(n).fill(0));
    expect(Array.from(same.referenceNll)).toEqual(Array.from(same.modelNll));
  });

  it('arg-maxes take the first index of equal maxima (top-1 agreement counts ties the same way in both models)', async () => {
    const scorer = await logitScorer();
    // Row 0: ties at 7 and 9; row 1: ties at 3 and 50,000.
    const logits = new Float32Array(2 * VOCAB);
    for (const [row, a, b] of [
      [0, 7, 9],
      [1, 3, 50_000],
    ] as const) {
      logits[row * VOCAB + a] = 5;
      logits[row * VOCAB + b] = 5;
    }
    const targets = BigInt64Array.from([0n, 0n]);
    expect(Array.from((await scorer.nll(logits, VOCAB, targets)).argmax, Number)).toEqual([7, 3]);
    const compared = await scorer.kl(logits, logits, VOCAB, targets);
    expect(Array.from(compared.modelArgmax, Number)).toEqual([7, 3]);
    expect(Array.from(compared.referenceArgmax, Number)).toEqual([7, 3]);
  });

  it('scores a batch in blocks of whole rows, at most 2^21 logits each, on views of the caller’s arrays', async () => {
    const rows = 100; // 41 rows of 50,257 logits per block: 41, 41, 18
    const logits = new Float32Array(rows * VOCAB);
    const reference = new Float32Array(rows * VOCAB);
    const targets = new BigInt64Array(rows);
    const blocks: number[] = [];
    // A fake session: checks each feed views the caller's array (no copy) and answers the row index per row.
    const session = (outputs: Record<string, 'float64' | 'int64'>) =>
      ({
        run: async (feeds: Record<string, Tensor>) => {
          const block = feeds['targets'] as Tensor;
          const [n] = block.dims as [number];
          blocks.push(n);
          const from = (block.data as BigInt64Array).byteOffset / 8;
          for (const [name, tensor] of Object.entries(feeds)) {
            if (name === 'targets') continue;
            expect(tensor.dims).toEqual([n, VOCAB]);
            expect((tensor.data as Float32Array).buffer).toBe(
              name === 'reference' ? reference.buffer : logits.buffer,
            );
            expect((tensor.data as Float32Array).byteOffset).toBe(from * VOCAB * 4);
          }
          const out = (type: 'float64' | 'int64') =>
            type === 'float64'
              ? Float64Array.from({ length: n }, (_, r) => from + r)
              : BigInt64Array.from({ length: n }, (_, r) => BigInt(from + r));
          return Object.fromEntries(Object.entries(outputs).map(([k, type]) => [k, { data: out(type) }]));
        },
      }) as unknown as InferenceSession;
    const nll = session({ nll: 'float64', argmax: 'int64' });
    const kl = session({
      kl: 'float64',
      reference_nll: 'float64',
      model_nll: 'float64',
      reference_argmax: 'int64',
      model_argmax: 'int64',
    });
    const scorer = new LogitScorer(await loadOrt(), nll, kl);
    const all = Array.from({ length: rows }, (_, r) => r);
    const scored = await scorer.nll(logits, VOCAB, targets);
    expect(Array.from(scored.nll)).toEqual(all);
    expect(Array.from(scored.argmax, Number)).toEqual(all);
    const compared = await scorer.kl(reference, logits, VOCAB, targets);
    for (const values of [compared.kl, compared.referenceNll, compared.modelNll])
      expect(Array.from(values)).toEqual(all);
    expect(Array.from(compared.modelArgmax, Number)).toEqual(all);
    expect(blocks).toEqual([41, 41, 18, 41, 41, 18]);
    expect(Math.floor(SCORER_BLOCK_ELEMENTS / VOCAB)).toBe(41);
  });

  it('a row scores the same in a block as alone, across block boundaries (within 1e-12 relative)', async () => {
    // ONNX Runtime may split the sums of a lone row over its threads: the last bits can differ, no more (KL, a sum
    // of terms that cancel, within 1e-14 nats: seven orders below the scorer's own 1e-7).
    const scorer = await logitScorer();
    const count = 45; // blocks of 41 and 4 rows
    const p = rows(3n, count);
    const q = Float32Array.from(p, (x, i) => x + 0.05 * Math.cos(i));
    const all = BigInt64Array.from({ length: count }, (_, r) => BigInt((r * 104729) % VOCAB));
    const [nll, kl] = [await scorer.nll(q, VOCAB, all), await scorer.kl(p, q, VOCAB, all)];
    const close = (got: number | undefined, want: number | undefined, what: string) =>
      expect(Math.abs((got as number) - (want as number)), what).toBeLessThanOrEqual(
        1e-12 * Math.abs(want as number) + 1e-14,
      );
    for (const r of [0, 40, 41, 44]) {
      const row = (x: Float32Array) => x.slice(r * VOCAB, (r + 1) * VOCAB);
      const target = all.slice(r, r + 1);
      close((await scorer.nll(row(q), VOCAB, target)).nll[0], nll.nll[r], `nll row ${r}`);
      const alone = await scorer.kl(row(p), row(q), VOCAB, target);
      close(alone.kl[0], kl.kl[r], `kl row ${r}`);
      close(alone.referenceNll[0], kl.referenceNll[r], `reference nll row ${r}`);
      close(alone.modelNll[0], kl.modelNll[r], `model nll row ${r}`);
    }
  });
});
