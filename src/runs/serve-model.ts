/**
 * `dantinox serve`'s orchestration: opens the selected model (as `bench` does), checks it can be served (an
 * autoregressive model with a tokenizer), finds its end-of-sequence token and starts an {@link OpenAiServer} on it.
 *
 * @packageDocumentation
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { GPT2_END_OF_TEXT, Gpt2Tokenizer, type Model } from '../models/index.js';
import type { ModelSelection } from '../models/model-selection.js';
import { OpenAiServer, type OpenAiServerOptions } from '../serving/server/openai-server.js';
import { type OpenedModel, openModel } from './open-model.js';

/** Requests batched together when {@link ServeModelOptions.maxBatch} is not given. */
const DEFAULT_MAX_BATCH = 8;

/** Options of {@link serveModel}. */
export interface ServeModelOptions {
  /** TCP port; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** Interface address. @default '127.0.0.1' */
  readonly host?: string;
  /** The name clients pass as `model`. @default the model's name (preset or folder) */
  readonly servedModelName?: string;
  /** Most requests batched into one engine call. @default 8 */
  readonly maxBatch?: number;
  /** How requests are batched (see {@link OpenAiServerOptions.batching}). @default 'continuous' */
  readonly batching?: 'continuous' | 'static';
  /** Most requests waiting; more get HTTP 429. @default 64 */
  readonly maxQueue?: number;
}

/** A model being served. */
export interface ServingModel {
  /** The server. */
  readonly server: OpenAiServer;
  /** The model, its description and weights. */
  readonly opened: OpenedModel;
  /** `http://host:port`, with the port picked. */
  readonly url: string;
  /** Graceful shutdown ({@link OpenAiServer.shutdown}) within `graceMs`, then frees the model; resolves whether every request finished. */
  stop(graceMs: number): Promise<boolean>;
}

/**
 * The end-of-sequence token of `model`: `eos_token_id` of a `--model` folder's `config.json` (the first, when it
 * lists several), `<|endoftext|>` (50256) for the GPT-2 tokenizer of built-in models; `undefined` for the byte
 * tokenizer, which has none.
 */
export function eosTokenId(model: Model, selection: ModelSelection, cwd: string): number | undefined {
  if (selection.model !== undefined) {
    const file = join(resolve(cwd, selection.model), 'config.json');
    if (existsSync(file)) {
      const config = JSON.parse(readFileSync(file, 'utf8')) as { eos_token_id?: unknown };
      const id = Array.isArray(config.eos_token_id) ? config.eos_token_id[0] : config.eos_token_id;
      if (typeof id === 'number' && Number.isInteger(id) && id >= 0) return id;
    }
  }
  return model.tokenizer instanceof Gpt2Tokenizer ? GPT2_END_OF_TEXT : undefined;
}

/**
 * Opens `selection`'s model and serves it on `options.host:options.port` until {@link ServingModel.stop}.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for a diffusion model, `UNSUPPORTED` for a model without a
 * tokenizer, `IO` when the address cannot be listened on; and the errors of {@link openModel}.
 */
export async function serveModel(
  selection: ModelSelection,
  options: ServeModelOptions,
  cwd: string,
): Promise<ServingModel> {
  // A llama.cpp model makes its contexts for `maxBatch` rows, so that requests can join a running batch.
  const opened = await openModel(
    selection,
    cwd,
    options.batching === 'static' ? {} : { rowsPerContext: options.maxBatch ?? DEFAULT_MAX_BATCH },
  );
  const { model } = opened;
  const name = options.servedModelName ?? model.info.name;
  try {
    if (model.config.paradigm !== 'ar')
      throw new DantinoxError('INVALID_OPTION', messages.serveNotAutoregressive(name, model.config.paradigm));
    if (model.tokenizer === undefined)
      throw new DantinoxError('UNSUPPORTED', messages.serveNoTokenizer(name));
    const eos = eosTokenId(model, selection, cwd);
    const server = new OpenAiServer({
      model,
      name,
      ...(eos === undefined ? {} : { eosTokenId: eos }),
      maxBatch: options.maxBatch ?? DEFAULT_MAX_BATCH,
      ...(options.batching === undefined ? {} : { batching: options.batching }),
      ...(options.maxQueue === undefined ? {} : { maxQueue: options.maxQueue }),
      seed: selection.seed,
    });
    const host = options.host ?? '127.0.0.1';
    const port = options.port ?? 0;
    const url = await server.listen({ port, host }).catch((error: unknown) => {
      throw new DantinoxError('IO', messages.serveListenFailed(host, port, error), { cause: error });
    });
    return {
      server,
      opened,
      url,
      async stop(graceMs) {
        try {
          return await server.shutdown(graceMs);
        } finally {
          await model.dispose();
        }
      },
    };
  } catch (error) {
    await model.dispose();
    throw error;
  }
}
