/**
 * The scheduler of `dantinox serve`: a bounded FIFO queue of generation jobs and one worker that runs them on
 * the model, batching the jobs that can share engine calls.
 *
 * A {@link DecodeState} has one `length` for all its rows, so rows of different lengths cannot share a decode
 * step. What the scheduler does is therefore *static* batching of equal-length prompts: when the engine is free,
 * it takes the oldest waiting job plus up to `maxBatch − 1` other waiting jobs whose prompts have the same
 * number of tokens, prefills them as one `[B, T]` batch and decodes them in lockstep, one `decodeStep` per
 * generated token for all rows. A row that finishes (length, end-of-sequence, stop text, client gone) is masked:
 * it stays in the batch, fed a placeholder token whose logits are ignored, until every row of the batch is done.
 * Jobs of other prompt lengths wait for the batch to end (no job joins a running batch). Every built-in engine
 * (ONNX Runtime, llama.cpp, transformers.js) takes `batch > 1` in `prefill` and `decodeStep`; `maxBatch: 1` runs
 * one request at a time.
 *
 * @packageDocumentation
 */
import type { Model } from '../../models/model.js';
import { Rng } from '../../rng.js';
import { sampleToken } from './sampler.js';

/** Why a generation ended: `stop` (end-of-sequence token or stop text), `length` (token limit), `cancelled`. */
export type FinishReason = 'stop' | 'length' | 'cancelled';

/** One request to generate, in tokens. */
export interface GenerationJob {
  /** The prompt's token ids (at least one). */
  readonly promptIds: readonly number[];
  /** Most tokens to generate (≥ 1). */
  readonly maxTokens: number;
  /** Tokens to generate before the end-of-sequence token may be picked. */
  readonly minTokens: number;
  /** Sampling temperature; 0 is greedy. */
  readonly temperature: number;
  /** Nucleus mass in (0, 1]. */
  readonly topP: number;
  /** Seed of this job's random draws. */
  readonly seed: number;
  /** The token that ends generation; `undefined` never ends on a token (`ignore_eos`, or no such token). */
  readonly eosTokenId?: number | undefined;
  /** Aborted when the client goes away: the job ends as `cancelled` at the next step. */
  readonly signal?: AbortSignal | undefined;
  /** Called with each generated token as it is picked; returning `true` ends the job as `stop` (a stop text). */
  readonly onToken?: ((id: number) => boolean) | undefined;
}

/** How a job went, with its timings in ms from {@link BatchScheduler.submit}. */
export interface GenerationOutcome {
  /** The generated ids, the end-of-sequence token included when it was picked. */
  readonly tokens: readonly number[];
  /** Why it ended. */
  readonly finishReason: FinishReason;
  /** Time spent waiting in the queue, in ms. */
  readonly queueMs: number;
  /** Time to the first generated token, in ms; `undefined` when none was generated. */
  readonly ttftMs: number | undefined;
  /** Rows of the batch the job ran in (0 when cancelled before it ran). */
  readonly batchSize: number;
  /** Time of the batch's prefill (the job's prompt and those batched with it), in ms; 0 when it did not run. */
  readonly prefillMs: number;
  /** From the end of the prefill to the job's last generated token, in ms; 0 when none was generated. */
  readonly decodeMs: number;
}

/** A job {@link BatchScheduler.submit} queued. */
export interface SubmitAccepted {
  /** `accepted`. */
  readonly status: 'accepted';
  /** Resolves when the job has ended; rejects with the engine's error when the engine failed. */
  readonly outcome: Promise<GenerationOutcome>;
}

/** A job {@link BatchScheduler.submit} refused. */
export interface SubmitRejected {
  /** `rejected`. */
  readonly status: 'rejected';
  /** `queue-full`: `maxQueue` jobs are waiting; `closed`: the scheduler is shutting down. */
  readonly reason: 'queue-full' | 'closed';
}

/** What {@link BatchScheduler.submit} did with a job: queued (with its outcome to come) or refused. */
export type SubmitResult = SubmitAccepted | SubmitRejected;

/** Options of {@link BatchScheduler}. */
export interface BatchSchedulerOptions {
  /** Most rows of one batch (1 = one request at a time). @default 8 */
  readonly maxBatch?: number;
  /**
   * Most jobs waiting (not running; ≥ 1: a job waits at least until the next turn of the event loop, when the
   * worker takes it); more are refused as `queue-full`. @default 64
   */
  readonly maxQueue?: number;
  /** The clock, in ms. @default performance.now */
  readonly now?: () => number;
  /** Called when a batch starts, with its number of rows. */
  readonly onBatch?: (rows: number) => void;
}

interface Waiting {
  readonly job: GenerationJob;
  readonly submittedMs: number;
  readonly resolve: (outcome: GenerationOutcome) => void;
  readonly reject: (error: unknown) => void;
}

interface Row extends Waiting {
  readonly rng: Rng;
  readonly tokens: number[];
  firstTokenMs: number | undefined;
  lastTokenMs: number | undefined;
  finish: FinishReason | undefined;
}

/** Queues generation jobs and runs them on one model, batching equal-length prompts (see the module comment). */
export class BatchScheduler {
  readonly #model: Model;
  readonly #maxBatch: number;
  readonly #maxQueue: number;
  readonly #now: () => number;
  readonly #onBatch: ((rows: number) => void) | undefined;
  readonly #waiting: Waiting[] = [];
  #running = 0;
  #looping = false;
  #closed = false;
  #cancelAll = false;
  #idle: (() => void)[] = [];

  constructor(model: Model, options: BatchSchedulerOptions = {}) {
    this.#model = model;
    this.#maxBatch = options.maxBatch ?? 8;
    this.#maxQueue = options.maxQueue ?? 64;
    this.#now = options.now ?? (() => performance.now());
    this.#onBatch = options.onBatch;
  }

  /** Jobs waiting for the engine. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Jobs in the running batch. */
  get running(): number {
    return this.#running;
  }

  /** Whether {@link BatchScheduler.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Queues `job`, or refuses it when the queue holds `maxQueue` jobs or the scheduler is closed. */
  submit(job: GenerationJob): SubmitResult {
    if (this.#closed) return { status: 'rejected', reason: 'closed' };
    if (this.#waiting.length >= this.#maxQueue) return { status: 'rejected', reason: 'queue-full' };
    const outcome = new Promise<GenerationOutcome>((resolve, reject) => {
      this.#waiting.push({ job, submittedMs: this.#now(), resolve, reject });
    });
    this.#kick();
    return { status: 'accepted', outcome };
  }

  /** Refuses new jobs from now on; queued and running jobs go on. */
  close(): void {
    this.#closed = true;
  }

  /**
   * Closes the scheduler and resolves `true` once every queued and running job has ended. After `timeoutMs` the
   * remaining jobs are cancelled (each ends as `cancelled` after the engine call in progress) and it resolves
   * `false` once they have.
   */
  async drain(timeoutMs: number): Promise<boolean> {
    this.close();
    if (this.#isIdle()) return true;
    const idle = new Promise<void>((resolve) => this.#idle.push(resolve));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      idle.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (!timedOut) return true;
    this.#cancelAll = true;
    this.#kick();
    await idle;
    return false;
  }

  #isIdle(): boolean {
    return !this.#looping && this.#waiting.length === 0;
  }

  /** Starts the worker on the next turn of the event loop, so jobs submitted together can share a batch. */
  #kick(): void {
    if (this.#looping) return;
    this.#looping = true;
    setImmediate(() => void this.#loop());
  }

  async #loop(): Promise<void> {
    for (;;) {
      const group = this.#takeGroup();
      if (group.length === 0) break;
      await this.#runGroup(group);
    }
    this.#looping = false;
    const idle = this.#idle;
    this.#idle = [];
    for (const resolve of idle) resolve();
  }

  /** The oldest live job and the waiting jobs of the same prompt length, up to `maxBatch`, removed from the queue. */
  #takeGroup(): Waiting[] {
    for (;;) {
      const first = this.#waiting[0];
      if (first === undefined) return [];
      if (first.job.signal?.aborted === true || this.#cancelAll) {
        this.#waiting.shift();
        first.resolve({
          tokens: [],
          finishReason: 'cancelled',
          queueMs: this.#now() - first.submittedMs,
          ttftMs: undefined,
          batchSize: 0,
          prefillMs: 0,
          decodeMs: 0,
        });
        continue;
      }
      const length = first.job.promptIds.length;
      const group: Waiting[] = [];
      for (let i = 0; i < this.#waiting.length && group.length < this.#maxBatch; ) {
        const w = this.#waiting[i] as Waiting;
        if (w.job.promptIds.length === length && w.job.signal?.aborted !== true) {
          group.push(w);
          this.#waiting.splice(i, 1);
        } else i++;
      }
      return group;
    }
  }

  async #runGroup(group: readonly Waiting[]): Promise<void> {
    const startMs = this.#now();
    const rows: Row[] = group.map((w) => ({
      ...w,
      rng: new Rng(w.job.seed),
      tokens: [],
      firstTokenMs: undefined,
      lastTokenMs: undefined,
      finish: undefined,
    }));
    const batch = rows.length;
    const seq = group[0]?.job.promptIds.length ?? 0;
    this.#running = batch;
    this.#onBatch?.(batch);
    try {
      const ids = new Int32Array(batch * seq);
      rows.forEach((row, r) => {
        ids.set(row.job.promptIds, r * seq);
      });
      let step = await this.#model.prefill(ids, { batch, seq });
      const prefilledMs = this.#now();
      try {
        let positions = seq;
        for (;;) {
          const next = new Int32Array(batch);
          const vocab = step.logits.dims[2];
          rows.forEach((row, r) => {
            if (row.finish === undefined)
              next[r] = this.#advance(row, step.logits.data, (r * positions + positions - 1) * vocab, vocab);
          });
          if (rows.every((row) => row.finish !== undefined)) break;
          step = await this.#model.decodeStep(next, step.state);
          positions = 1;
        }
      } finally {
        step.state.dispose();
      }
      for (const row of rows) {
        row.resolve({
          tokens: row.tokens,
          finishReason: row.finish ?? 'cancelled',
          queueMs: startMs - row.submittedMs,
          ttftMs: row.firstTokenMs === undefined ? undefined : row.firstTokenMs - row.submittedMs,
          batchSize: batch,
          prefillMs: prefilledMs - startMs,
          decodeMs: row.lastTokenMs === undefined ? 0 : row.lastTokenMs - prefilledMs,
        });
      }
    } catch (error) {
      for (const row of rows) row.reject(error);
    } finally {
      this.#running = 0;
    }
  }

  /** Picks `row`'s next token from its logits at `offset` and decides whether the row has finished. */
  #advance(row: Row, logits: Float32Array, offset: number, vocab: number): number {
    const { job } = row;
    if (job.signal?.aborted === true || this.#cancelAll) {
      row.finish = 'cancelled';
      return 0;
    }
    const eos = job.eosTokenId;
    const id = sampleToken(logits, offset, vocab, {
      temperature: job.temperature,
      topP: job.topP,
      rng: row.rng,
      suppress: eos !== undefined && row.tokens.length < job.minTokens ? eos : undefined,
    });
    row.tokens.push(id);
    row.lastTokenMs = this.#now();
    row.firstTokenMs ??= row.lastTokenMs;
    const stopText = job.onToken?.(id) === true;
    if (id === eos || stopText) row.finish = 'stop';
    else if (row.tokens.length >= job.maxTokens) row.finish = 'length';
    return id;
  }
}
