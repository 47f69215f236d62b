import type { BatchShape, DecodeState, Logits, Model, StepResult } from '../../../src/models/model.js';
import type { ModelConfig } from '../../../src/models/model-config.js';

/** A model whose logits come from `logitsAt(token, position)`; records every input it sees. */
export class FakeModel implements Model {
  readonly info = { name: 'fake', engine: 'test', threads: 1, dtype: 'fp32' as const };
  readonly inputs: Int32Array[] = [];
  barriers = 0;

  constructor(
    readonly config: ModelConfig,
    readonly logitsAt: (token: number, position: number, vocabIndex: number) => number = () => 0,
  ) {}

  #logits(tokens: Int32Array, batch: number, seq: number, past: number): Logits {
    const v = this.config.vocabSize;
    const data = new Float32Array(batch * seq * v);
    for (let k = 0; k < batch * seq; k++) {
      for (let i = 0; i < v; i++) data[k * v + i] = this.logitsAt(tokens[k] ?? 0, past + (k % seq), i);
    }
    return { data, dims: [batch, seq, v] };
  }

  async forward(tokens: Int32Array, shape: BatchShape): Promise<Logits> {
    this.inputs.push(tokens.slice());
    return this.#logits(tokens, shape.batch, shape.seq, 0);
  }

  async prefill(tokens: Int32Array, shape: BatchShape): Promise<StepResult> {
    this.inputs.push(tokens.slice());
    const state: DecodeState = { batch: shape.batch, length: shape.seq, dispose: () => {} };
    return { logits: this.#logits(tokens, shape.batch, shape.seq, 0), state };
  }

  async decodeStep(tokens: Int32Array, state: DecodeState): Promise<StepResult> {
    this.inputs.push(tokens.slice());
    const next: DecodeState = { batch: state.batch, length: state.length + 1, dispose: () => {} };
    return { logits: this.#logits(tokens, state.batch, 1, state.length), state: next };
  }

  async barrier(): Promise<void> {
    this.barriers++;
  }

  numParameters(): number {
    return 42;
  }

  async dispose(): Promise<void> {}
}
