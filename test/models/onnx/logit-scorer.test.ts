/** The in-graph scorer agrees with the all-float64 JavaScript reference on wide, peaked and flat logit rows. */
import { describe, expect, it } from 'vitest';
import { logitScorer } from '../../../src/models/onnx/logit-scorer.js';
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
});
