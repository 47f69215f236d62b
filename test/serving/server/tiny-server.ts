/**
 * Helpers of the server tests: the tiny built-in model, its own greedy decode (the known answer), a model whose
 * decode steps wait for a gate (to hold requests in flight deterministically), and a reader of SSE bodies.
 */
import { createModel, type DecodeState, type Model, type StepResult } from '../../../src/models/index.js';
import { argmax } from '../../../src/serving/server/sampler.js';

/** The tiny built-in model (byte tokenizer, context 128), one thread, seed 0. */
export function tinyModel(): Promise<Model> {
  return createModel('tiny', { seed: 0, threads: 1 });
}

/** The model's own greedy decode of `prompt`: `n` token ids by `prefill` + `decodeStep` argmax, batch 1. */
export async function greedyDecode(model: Model, prompt: readonly number[], n: number): Promise<number[]> {
  const vocab = model.config.vocabSize;
  let step = await model.prefill(Int32Array.from(prompt), { batch: 1, seq: prompt.length });
  const out: number[] = [];
  try {
    let offset = (prompt.length - 1) * vocab;
    for (let i = 0; i < n; i++) {
      const id = argmax(step.logits.data, offset, vocab);
      out.push(id);
      if (i === n - 1) break;
      step = await model.decodeStep(Int32Array.of(id), step.state);
      offset = 0;
    }
  } finally {
    step.state.dispose();
  }
  return out;
}

/** A model wrapper whose decode steps wait while the gate is closed. */
export interface GatedModel {
  /** The wrapped model. */
  readonly model: Model;
  /** Closes the gate: later decode steps wait. */
  close(): void;
  /** Opens the gate: waiting steps go on. */
  open(): void;
  /** Decode steps that have started. */
  readonly steps: () => number;
}

/** `model` with a gate on `decodeStep` (open at first), with the model's rows of different lengths when it has them. */
export function gated(model: Model): GatedModel {
  let gate: Promise<void> | undefined;
  let release: (() => void) | undefined;
  let steps = 0;
  const wrapper: Model = {
    config: model.config,
    info: model.info,
    ...(model.tokenizer === undefined ? {} : { tokenizer: model.tokenizer }),
    ...(model.rowBatching === undefined ? {} : { rowBatching: model.rowBatching }),
    forward: (t, s) => model.forward(t, s),
    prefill: (t, s) => model.prefill(t, s),
    async decodeStep(tokens: Int32Array, state: DecodeState): Promise<StepResult> {
      steps++;
      if (gate !== undefined) await gate;
      return model.decodeStep(tokens, state);
    },
    barrier: () => model.barrier(),
    numParameters: () => model.numParameters(),
    dispose: () => model.dispose(),
  };
  return {
    model: wrapper,
    close() {
      if (gate === undefined) gate = new Promise((r) => (release = r));
    },
    open() {
      release?.();
      gate = undefined;
    },
    steps: () => steps,
  };
}

/** The `data:` payloads of an SSE body, in order (`[DONE]` included), checking the `data: …\n\n` framing. */
export function sseData(body: string): string[] {
  if (!body.endsWith('\n\n'))
    throw new Error(`SSE body does not end with a blank line: ${JSON.stringify(body.slice(-40))}`);
  return body
    .slice(0, -2)
    .split('\n\n')
    .map((event) => {
      if (!event.startsWith('data: ')) throw new Error(`not a data line: ${JSON.stringify(event)}`);
      return event.slice('data: '.length);
    });
}

/** Resolves once `predicate` holds (polled every 5 ms), failing after `timeoutMs`. */
export async function until(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Prometheus sample lines as a map `name{labels}` → value. */
export function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(\S+) (\S+)$/.exec(line);
    if (m === null) throw new Error(`not a sample line: ${line}`);
    out.set(m[1] as string, m[2] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[2]));
  }
  return out;
}
