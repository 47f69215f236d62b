/**
 * `expandMatrix`: the cartesian product of a matrix's axes, minus its `exclude` entries, as variants with stable
 * ids in canonical order.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { MATRIX_AXIS_NAMES, type MatrixAxisName, matrixAxis } from './matrix-axes.js';

/** One axis of a matrix and its values, as given (strings; `2` threads is `'2'`). */
export interface MatrixAxisValues {
  /** The axis. */
  readonly name: MatrixAxisName;
  /** Its values, in the order given; at least one, each once. */
  readonly values: readonly string[];
}

/** An `exclude` entry: a variant is left out when it matches every listed axis (a list matches any of its values). */
export type MatrixExclude = Readonly<Partial<Record<MatrixAxisName, string | readonly string[]>>>;

/** A benchmark matrix: the axes that are set, and the combinations to leave out. */
export interface MatrixSpec {
  /** Axes, in any order (they are put in canonical order); an axis appears at most once. */
  readonly axes: readonly MatrixAxisValues[];
  /** Combinations to leave out. @default [] */
  readonly exclude?: readonly MatrixExclude[];
}

/** One combination of axis values: what one model build and one suite run measure. */
export interface MatrixVariant {
  /** Stable id: the axes' id parts joined by `-` in canonical axis order, e.g. `small-q8-t2-ar`. */
  readonly id: string;
  /** 0-based position in the canonical order of the whole matrix (what shards split on). */
  readonly index: number;
  /** The variant's value of every axis of the matrix. */
  readonly axes: Readonly<Partial<Record<MatrixAxisName, string>>>;
}

/** The axes of `spec` in canonical order, as given (unchecked). */
export function canonicalAxes(spec: MatrixSpec): MatrixAxisValues[] {
  return MATRIX_AXIS_NAMES.flatMap((name) => spec.axes.filter((a) => a.name === name));
}

/** The id of the variant with these axis values: id parts in canonical axis order, joined by `-`. */
export function variantId(axes: Readonly<Partial<Record<MatrixAxisName, string>>>): string {
  return MATRIX_AXIS_NAMES.flatMap((name) => {
    const value = axes[name];
    return value === undefined ? [] : [matrixAxis(name).idPart(value)];
  }).join('-');
}

const matches = (axes: Readonly<Partial<Record<MatrixAxisName, string>>>, exclude: MatrixExclude): boolean =>
  Object.entries(exclude).every(([name, wanted]) => {
    const value = axes[name as MatrixAxisName];
    return typeof wanted === 'string'
      ? value === wanted
      : (wanted as readonly string[]).includes(value ?? '');
  });

/** The axes with every value checked and in its canonical spelling. */
function checkAxes(axes: readonly MatrixAxisValues[]): MatrixAxisValues[] {
  return axes.map((axis, i) => {
    const definition = matrixAxis(axis.name);
    if (axes.findIndex((a) => a.name === axis.name) !== i)
      throw new DantinoxError('INVALID_OPTION', messages.matrixAxisTwice(axis.name));
    const empty = (): DantinoxError =>
      new DantinoxError('INVALID_OPTION', messages.matrixEmptyAxis(definition.flag, definition.example));
    if (axis.values.length === 0) throw empty();
    const seen = new Set<string>();
    for (const raw of axis.values) {
      if (raw.trim() === '') throw empty();
      const value = definition.check(raw.trim());
      if (seen.has(value))
        throw new DantinoxError('INVALID_OPTION', messages.matrixDuplicateValue(definition.flag, value));
      seen.add(value);
    }
    return { name: axis.name, values: [...seen] };
  });
}

function checkExcludes(axes: readonly MatrixAxisValues[], exclude: readonly MatrixExclude[]): void {
  for (const [i, entry] of exclude.entries()) {
    const keys = Object.keys(entry);
    if (keys.length === 0) throw new DantinoxError('INVALID_OPTION', messages.matrixEmptyExclude(i + 1));
    for (const [name, wanted] of Object.entries(entry)) {
      const axis = axes.find((a) => a.name === name);
      const given = axes.map((a) => a.name);
      for (const value of typeof wanted === 'string' ? [wanted] : (wanted as readonly string[])) {
        if (axis === undefined || !axis.values.includes(value)) {
          throw new DantinoxError(
            'INVALID_OPTION',
            messages.matrixBadExclude(i + 1, name, value, axis?.values ?? [], given),
          );
        }
      }
    }
  }
}

/**
 * Expands a matrix into its variants: every combination of the axis values exactly once, in canonical order
 * (axes in {@link MATRIX_AXIS_NAMES} order, values in the order given, the last axis varying fastest), minus
 * the combinations an `exclude` entry matches.
 *
 * Values are checked and put in canonical spelling by their axis (the `check` of its row in the axes table).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for an axis with no value, a value the axis does not allow, a
 * value listed twice, an `exclude`
 * entry naming an axis or value the matrix does not have, two variants whose ids collide, or a matrix whose
 * every combination is excluded.
 */
export function expandMatrix(spec: MatrixSpec): MatrixVariant[] {
  const axes = checkAxes(canonicalAxes(spec));
  const exclude = spec.exclude ?? [];
  checkExcludes(axes, exclude);
  let combos: Partial<Record<MatrixAxisName, string>>[] = [{}];
  for (const axis of axes) {
    combos = combos.flatMap((combo) => axis.values.map((value) => ({ ...combo, [axis.name]: value })));
  }
  const kept = combos.filter((combo) => !exclude.some((entry) => matches(combo, entry)));
  if (kept.length === 0) throw new DantinoxError('INVALID_OPTION', messages.matrixAllExcluded(combos.length));
  const byId = new Map<string, Partial<Record<MatrixAxisName, string>>>();
  return kept.map((combo, index) => {
    const id = variantId(combo);
    const other = byId.get(id);
    if (other !== undefined)
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.variantIdCollision(id, describeAxes(other), describeAxes(combo)),
      );
    byId.set(id, combo);
    return { id, index, axes: combo };
  });
}

/** `config=tiny, threads=2`: a variant's axis values in one line. */
export function describeAxes(axes: Readonly<Partial<Record<MatrixAxisName, string>>>): string {
  return MATRIX_AXIS_NAMES.filter((n) => axes[n] !== undefined)
    .map((n) => `${n}=${axes[n]}`)
    .join(', ');
}
