/**
 * The reference model of the tasks that compare a model against another (`KldTask`'s KL divergence,
 * `ChoiceTask`'s paired McNemar test): given as a model, or as a factory opened once per run and disposed
 * after it.
 *
 * @packageDocumentation
 */
import type { Model } from '../../models/model.js';

/**
 * The reference model: a model to compare against, or a factory the task calls once per run (the model it
 * returns is disposed at the end of the run).
 */
export type KldReference = Model | ((model: Model) => Promise<Model>);

/**
 * Runs `use` on the reference model `option` stands for (`undefined` without one): the model itself, or the one a
 * factory opens for `model`, disposed once `use` settles (a model passed in is left to its owner).
 */
export async function withReference<T>(
  option: KldReference,
  model: Model,
  use: (reference: Model) => Promise<T>,
): Promise<T>;
export async function withReference<T>(
  option: KldReference | undefined,
  model: Model,
  use: (reference: Model | undefined) => Promise<T>,
): Promise<T>;
export async function withReference<T>(
  option: KldReference | undefined,
  model: Model,
  use: (reference: Model) => Promise<T>,
): Promise<T> {
  const reference = typeof option === 'function' ? await option(model) : option;
  try {
    // `undefined` only when `option` is, and then the overload's `use` takes it.
    return await use(reference as Model);
  } finally {
    if (typeof option === 'function' && reference !== undefined) await reference.dispose();
  }
}
