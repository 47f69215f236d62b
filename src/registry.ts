/**
 * `Registry`: the one name → entry map behind the task, chart and engine registries — registration order kept,
 * a taken name refused unless `override`, an unknown name answered with the list and a did-you-mean.
 *
 * @packageDocumentation
 */
import { DantinoxError } from './errors.js';
import { messages } from './messages.js';

/** Options of a registration. */
export interface RegisterOptions {
  /** Replace an entry already registered under the same name. @default false */
  readonly override?: boolean;
}

/**
 * Entries of one kind (`task`, `chart`, `engine`) by name. Subclasses validate what they register and call
 * {@link Registry.add}.
 */
export class Registry<T> {
  readonly #entries = new Map<string, T>();

  /** @param kind - What the entries are, as messages name them (`task`, `chart`, `engine`). */
  constructor(readonly kind: string) {}

  /**
   * Adds `entry` as `name`.
   *
   * @throws {@link dantinox!DantinoxError} `DUPLICATE_PLUGIN` when the name is taken and `override` is not set.
   */
  protected add(name: string, entry: T, options: RegisterOptions = {}): void {
    if (this.#entries.has(name) && options.override !== true)
      throw new DantinoxError('DUPLICATE_PLUGIN', messages.duplicatePlugin(this.kind, name));
    this.#entries.set(name, entry);
  }

  /**
   * The entry registered as `name`.
   *
   * @throws {@link dantinox!DantinoxError} `UNKNOWN_PLUGIN` listing the available names (with a did-you-mean suggestion).
   */
  get(name: string): T {
    const entry = this.#entries.get(name);
    if (entry === undefined)
      throw new DantinoxError('UNKNOWN_PLUGIN', messages.unknownName(this.kind, name, this.names()));
    return entry;
  }

  /** True when an entry is registered as `name`. */
  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** Registered names in registration order. */
  names(): string[] {
    return [...this.#entries.keys()];
  }

  /** Registered entries in registration order. */
  values(): T[] {
    return [...this.#entries.values()];
  }
}
