/**
 * The scheduler of `dantinox serve`: a bounded FIFO queue of generation jobs and one worker that runs them on
 * the model, batching the jobs that can share engine calls. It batches in one of two ways.
 *
 * **Continuous batching**, when the engine implements {@link RowBatching} (the built-in ONNX Runtime graphs, and
 * llama.cpp loaded with `rowsPerContext` ≥ `maxBatch`, as `dantinox serve` loads it):
 * before every decode step the worker takes waiting jobs, oldest first, while the running batch has fewer than
 * `maxBatch` rows; it prefills them (waiting jobs of one prompt length together, as one `[B, T]` prefill), picks
 * their first token from the prefill's logits and joins their rows to the running decode state, whatever its
 * rows' lengths. Each decode step then computes one token for every row; a row that finishes (length,
 * end-of-sequence, stop text, client gone) leaves the batch before the next step, freeing its place at once. A job
 * submitted while others decode therefore starts at the next step instead of waiting for them to end.
 *
 * **Static batching of equal-length prompts**, on the other engines (a {@link DecodeState} of theirs has one
 * `length` for all its rows), or when asked (`batching: 'static'`): when the engine is free, the worker takes the
 * oldest waiting job plus up to `maxBatch − 1` other waiting jobs whose prompts have the same number of tokens,
 * prefills them as one `[B, T]` batch and decodes them in lockstep, one `decodeStep` per generated token for all
 * rows. A row that finishes is masked: it stays in the batch, fed a placeholder token whose logits are ignored,
 * until every row of the batch is done. Jobs of other prompt lengths wait for the batch to end (no job joins a
 * running batch).
 *
 * Every built-in engine (ONNX Runtime, llama.cpp, transformers.js) takes `batch > 1` in `prefill` and
 * `decodeStep`; `maxBatch: 1` runs one request at a time either way.
 *
 * @packageDocumentation
 */
import type { DecodeState, Model, RowBatching } from '../../models/model.js';
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
  /**
   * Rows of the batch the job ran in (0 when cancelled before it ran); with continuous batching, where rows come
   * and go, the most rows of an engine call (its prefill or a decode step) the job took part in.
   */
  readonly batchSize: number;
  /** Time of the job's prefill (its prompt and those prefilled with it), in ms; 0 when it did not run. */
  readonly prefillMs: number;
  /** From the end of the job's prefill to its last generated token, in ms; 0 when none was generated. */
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
  /**
   * `continuous`: rows join and leave a running batch, when the engine implements {@link RowBatching} (otherwise
   * static); `static`: batches of equal-length prompts run to their end (see the module comment).
   * @default 'continuous'
   */
  readonly batching?: 'continuous' | 'static';
  /** The clock, in ms. @default performance.now */
  readonly now?: () => number;
  /**
   * Called with the rows of each batch: with static batching once per batch, when it starts; with continuous
   * batching once per decode step, with the rows it computes.
   */
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

/** A row of a continuous batch: its prefill's times, the token to feed next and the most rows it ran with. */
interface LiveRow extends Row {
  readonly startMs: number;
  readonly prefilledMs: number;
  next: number;
  batchSize: number;
}

/** The row of waiting job `w` before its first token. */
function newRow(w: Waiting): Row {
  return {
    ...w,
    rng: new Rng(w.job.seed),
    tokens: [],
    firstTokenMs: undefined,
    lastTokenMs: undefined,
    finish: undefined,
  };
}

/**
 * Queues generation jobs and runs them on one model, batching them continuously when the engine can (see the
 * module comment).
 */
export class BatchScheduler {
  readonly #model: Model;
  readonly #rowBatching: RowBatching | undefined;
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
    this.#rowBatching = options.batching === 'static' ? undefined : model.rowBatching;
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

  /** How jobs are batched: `continuous` when asked and the engine implements {@link RowBatching}, else `static`. */
  get batching(): 'continuous' | 'static' {
    return this.#rowBatching === undefined ? 'static' : 'continuous';
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
    // A job submitted while the worker was returning (after it last looked at the queue) is taken by the next
    // round: the check and `#looping = false` are one synchronous block.
    while (this.#waiting.length > 0) {
      if (this.#rowBatching !== undefined) await this.#runContinuous(this.#rowBatching);
      else {
        for (;;) {
          const group = this.#takeGroup(this.#maxBatch);
          if (group.length === 0) break;
          await this.#runGroup(group);
        }
      }
    }
    this.#looping = false;
    const idle = this.#idle;
    this.#idle = [];
    for (const resolve of idle) resolve();
  }

  /** The oldest live job and the waiting jobs of the same prompt length, up to `most`, removed from the queue. */
  #takeGroup(most: number): Waiting[] {
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
      for (let i = 0; i < this.#waiting.length && group.length < most; ) {
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
    const rows = group.map(newRow);
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
      for (const row of rows)
        row.resolve(this.#outcome(row, row.finish ?? 'cancelled', startMs, prefilledMs, batch));
    } catch (error) {
      for (const row of rows) row.reject(error);
    } finally {
      this.#running = 0;
    }
  }

  /**
   * Continuous batching: until no job is left, joins waiting jobs to the running rows (up to `maxBatch`), lets the
   * rows cancelled meanwhile leave, runs one decode step for every row, and lets the rows that finished leave.
   */
  async #runContinuous(batching: RowBatching): Promise<void> {
    let rows: LiveRow[] = [];
    let state: DecodeState | undefined;
    for (;;) {
      while (rows.length < this.#maxBatch) {
        const group = this.#takeGroup(this.#maxBatch - rows.length);
        if (group.length === 0) break;
        const joined = await this.#prefillGroup(group);
        if (joined === undefined) continue;
        try {
          state = state === undefined ? joined.state : batching.joinRows([state, joined.state]);
        } catch (error) {
          joined.state.dispose();
          for (const row of [...rows, ...joined.rows]) row.reject(error);
          state?.dispose();
          state = undefined;
          rows = [];
          continue;
        }
        rows.push(...joined.rows);
        this.#running = rows.length;
      }
      // Rows cancelled since the last step leave before it.
      for (const row of rows) {
        if (row.finish === undefined && (row.job.signal?.aborted === true || this.#cancelAll))
          row.finish = 'cancelled';
      }
      ({ rows, state } = this.#leave(batching, rows, state));
      this.#running = rows.length;
      if (state === undefined) {
        if (this.#waiting.length === 0) break;
        continue;
      }
      const live = rows;
      try {
        this.#onBatch?.(live.length);
        const step = await this.#model.decodeStep(
          Int32Array.from(live, (row) => row.next),
          state,
        );
        state = step.state;
        const vocab = step.logits.dims[2];
        live.forEach((row, r) => {
          row.batchSize = Math.max(row.batchSize, live.length);
          row.next = this.#advance(row, step.logits.data, r * vocab, vocab);
        });
        // Finished rows leave at once: their places are free for the jobs taken before the next step.
        ({ rows, state } = this.#leave(batching, live, state));
        this.#running = rows.length;
      } catch (error) {
        state?.dispose();
        state = undefined;
        rows = [];
        for (const row of live) row.reject(error);
      }
    }
    this.#running = 0;
  }

  /**
   * Prefills `group` (prompts of one length) and picks each job's first token: returns the rows still generating
   * and their decode state, or `undefined` when none is (the finished ones are resolved, an engine failure
   * rejects them all).
   */
  async #prefillGroup(
    group: readonly Waiting[],
  ): Promise<{ rows: LiveRow[]; state: DecodeState } | undefined> {
    const startMs = this.#now();
    const batch = group.length;
    const seq = group[0]?.job.promptIds.length ?? 0;
    const ids = new Int32Array(batch * seq);
    group.forEach((w, r) => {
      ids.set(w.job.promptIds, r * seq);
    });
    let step: Awaited<ReturnType<Model['prefill']>>;
    try {
      step = await this.#model.prefill(ids, { batch, seq });
    } catch (error) {
      for (const w of group) w.reject(error);
      return undefined;
    }
    const prefilledMs = this.#now();
    const vocab = step.logits.dims[2];
    // The last position of each row: all of them came back, or only the last ones.
    const positions = step.logits.dims[1];
    const rows: LiveRow[] = group.map((w, r) => {
      const row: LiveRow = {
        ...newRow(w),
        startMs,
        prefilledMs,
        next: 0,
        batchSize: batch,
      };
      row.next = this.#advance(row, step.logits.data, (r * positions + positions - 1) * vocab, vocab);
      return row;
    });
    try {
      const left = this.#leave(this.#rowBatching as RowBatching, rows, step.state);
      return left.state === undefined ? undefined : { rows: left.rows, state: left.state };
    } catch (error) {
      step.state.dispose();
      for (const row of rows) row.reject(error);
      return undefined;
    }
  }

  /** Resolves the finished rows of `rows` and returns the others with their decode state (`undefined`: none left). */
  #leave(
    batching: RowBatching,
    rows: readonly LiveRow[],
    state: DecodeState | undefined,
  ): { rows: LiveRow[]; state: DecodeState | undefined } {
    const keep: number[] = [];
    rows.forEach((row, r) => {
      if (row.finish === undefined) keep.push(r);
      else row.resolve(this.#outcome(row, row.finish, row.startMs, row.prefilledMs, row.batchSize));
    });
    if (keep.length === rows.length || state === undefined) return { rows: [...rows], state };
    if (keep.length === 0) {
      state.dispose();
      return { rows: [], state: undefined };
    }
    return { rows: keep.map((r) => rows[r] as LiveRow), state: batching.keepRows(state, keep) };
  }

  /** The outcome of `row`, ended as `finish`, prefilled from `startMs` to `prefilledMs` in a batch of `batchSize`. */
  #outcome(
    row: Row,
    finish: FinishReason,
    startMs: number,
    prefilledMs: number,
    batchSize: number,
  ): GenerationOutcome {
    return {
      tokens: row.tokens,
      finishReason: finish,
      queueMs: startMs - row.submittedMs,
      ttftMs: row.firstTokenMs === undefined ? undefined : row.firstTokenMs - row.submittedMs,
      batchSize,
      prefillMs: prefilledMs - startMs,
      decodeMs: row.lastTokenMs === undefined ? 0 : row.lastTokenMs - prefilledMs,
    };
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
