/**
 * `--out <dir>`: the directory a command writes into, created and checked for writability before any work.
 *
 * @packageDocumentation
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { DantinoxError } from '../errors.js';
import { makeDirectory } from '../make-directory.js';
import { messages } from '../messages.js';
import { HF_EXPORT_FILES } from '../models/hf/hf-dtype-files.js';
import { HF_TOKENIZER_FILES } from '../models/hf/hf-tokenizer-json.js';
import { removePartial } from '../text-file.js';
import { CHECKPOINT_FOLDERS, TRAINING_LOG_FILES } from '../training/index.js';

/** A run directory name from a date: `2026-01-31_14-05-09` (local time, sortable, safe in every file system). */
export function timestampName(date: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())}_${p(date.getHours())}-${p(date.getMinutes())}-${p(date.getSeconds())}`;
}

/**
 * Creates `dir` (relative to `cwd`) with its parents and checks that a file can be written in it, so an
 * unwritable `--out` fails in the first second, not after a long benchmark. Returns the absolute path.
 *
 * @throws {@link dantinox!DantinoxError} with code `IO` when the directory cannot be created or written.
 */
export function prepareOutputDir(dir: string, cwd: string): string {
  const path = isAbsolute(dir) ? dir : resolve(cwd, dir);
  const probe = join(path, `.dantinox-write-test-${process.pid}`);
  try {
    makeDirectory(path);
    writeFileSync(probe, '.'); // one byte: a full disk refuses it (an empty file needs no space)
    rmSync(probe, { force: true });
  } catch (cause) {
    removePartial(probe);
    throw new DantinoxError('IO', messages.outDirNotWritable(dir, cause), { cause });
  }
  return path;
}

/** File name of a variant's trace (`bench --trace`) in its folder. */
export const TRACE_FILE = 'trace.json';

/** File name of a variant's per-operator table (`bench --trace`) in its folder. */
export const OPERATORS_FILE = 'operators.csv';

/** File name of a load client's manifest (`load --client i/n`) in its folder. */
export const LOAD_CLIENT_FILE = 'load-client.json';

/** Folder of the trained model in a training run's folder (`dantinox train`). */
export const TRAINED_MODEL_FOLDER = 'model';

/** File of a training run's record in its folder. */
export const TRAINING_RECORD_FILE = 'training.json';

/** What a run (a benchmark or a training run) leaves in its folder: finding any means `--out` already holds a run. */
export const RUN_ARTIFACTS = [
  'results.jsonl',
  'results.json',
  'results.csv',
  'report.html',
  'charts',
  'matrix.json',
  LOAD_CLIENT_FILE,
  TRACE_FILE,
  OPERATORS_FILE,
  TRAINING_LOG_FILES.jsonl,
  TRAINING_LOG_FILES.csv,
  TRAINING_RECORD_FILE,
  TRAINED_MODEL_FOLDER,
  ...CHECKPOINT_FOLDERS,
] as const;

/** The folder of round `round` (1-based) of a repeated run (`bench --repeat`): `run-<round>`. */
export function roundFolderName(round: number): string {
  return `run-${round}`;
}

/** The round folders (`run-1`, `run-2`, …) of a repeated run at `path` (absolute) that hold a run, in round order. */
export function roundFolders(path: string): string[] {
  if (!existsSync(path)) return [];
  return readdirSync(path, { withFileTypes: true })
    .filter((e) => e.isDirectory() && /^run-\d+$/.test(e.name))
    .filter((e) => RUN_ARTIFACTS.some((f) => existsSync(join(path, e.name, f))))
    .map((e) => e.name)
    .sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)));
}

/**
 * The variant folders of the matrix run at `path` (absolute): the ids its `matrix.json` lists that are folders
 * there. A `matrix.json` that cannot be read names none; an id that is not one plain folder name is ignored.
 */
function variantFolders(path: string): string[] {
  let ids: unknown[] = [];
  try {
    const manifest: unknown = JSON.parse(readFileSync(join(path, 'matrix.json'), 'utf8'));
    const variants = (manifest as { variants?: unknown }).variants;
    if (Array.isArray(variants)) ids = variants.map((v: unknown) => (v as { id?: unknown } | null)?.id);
  } catch {
    return [];
  }
  return ids.filter(
    (id): id is string =>
      typeof id === 'string' &&
      id !== '' &&
      id !== '.' &&
      id !== '..' &&
      !/[/\\]/.test(id) &&
      existsSync(join(path, id)) &&
      statSync(join(path, id)).isDirectory(),
  );
}

/**
 * Refuses to write a run into `dir` (relative to `cwd`) when it already holds one (its own files, or the round
 * folders of a repeated run), so results are never silently replaced or mixed; with `force`, removes the old run
 * first: its files ({@link RUN_ARTIFACTS}), its round folders and, for a matrix run, the variant folders its
 * `matrix.json` lists (other files stay).
 *
 * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` naming what is there and the two ways out.
 */
export function claimRunDir(dir: string, cwd: string, force: boolean): void {
  const path = isAbsolute(dir) ? dir : resolve(cwd, dir);
  const found = [
    ...RUN_ARTIFACTS.filter((f) => existsSync(join(path, f))),
    ...roundFolders(path).map((f) => `${f}/`),
  ];
  if (found.length === 0) return;
  if (!force) throw new DantinoxError('INVALID_OPTION', messages.outDirHoldsRun(dir, found));
  for (const f of [...variantFolders(path), ...found])
    rmSync(join(path, f), { recursive: true, force: true });
}

/**
 * Refuses to write the single file `file` (relative to `cwd`, e.g. `export --out`) where a file already is, so a
 * results file or a model is never silently replaced; with `force`, the writer replaces it. Returns the absolute
 * path.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when `file` exists (unless `force`) or is a folder.
 */
export function claimOutFile(file: string, cwd: string, force: boolean): string {
  const path = isAbsolute(file) ? file : resolve(cwd, file);
  if (!existsSync(path)) return path;
  if (statSync(path).isDirectory()) throw new DantinoxError('INVALID_OPTION', messages.outFileIsFolder(file));
  if (!force) throw new DantinoxError('INVALID_OPTION', messages.outFileExists(file));
  return path;
}

/** A folder claimed for a Hugging Face model export (see {@link claimModelFolder}). */
export interface ClaimedModelFolder {
  /** The folder, absolute. */
  readonly path: string;
  /**
   * Removes the files of the model the folder held (nothing when it held none). Call it once the export's checks
   * have passed, right before writing (`exportHfModel`'s `beforeWrite`), so that a refused export leaves them
   * whole.
   */
  clear(): void;
}

/**
 * Refuses to write a Hugging Face model into `dir` (relative to `cwd`, `export --format hf --out`) when it
 * already holds files such an export writes, so two models never share a folder (a stale `model_q4.onnx` of
 * another model would be benchmarked, or compared by `kld`, as this one's); with `force`, the claim's `clear`
 * removes those files (other files stay).
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` naming the files found, unless `force`.
 */
export function claimModelFolder(dir: string, cwd: string, force: boolean): ClaimedModelFolder {
  const path = isAbsolute(dir) ? dir : resolve(cwd, dir);
  const found = HF_EXPORT_FILES.filter((f) => existsSync(join(path, f)));
  if (found.length > 0 && !force)
    throw new DantinoxError('INVALID_OPTION', messages.outFolderHoldsModel(dir, found));
  return {
    path,
    clear: () => {
      for (const f of found) rmSync(join(path, f), { recursive: true, force: true });
    },
  };
}

/**
 * Refuses to write a tokenizer into `dir` (relative to `cwd`, `tokenizer train --out`) when it is a file, or when
 * it already holds `tokenizer.json` or `tokenizer_config.json` and `force` is not set (the writer then replaces
 * them). Returns the absolute path.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` naming the files found, or the file `dir` is.
 */
export function claimTokenizerFolder(dir: string, cwd: string, force: boolean): string {
  const path = isAbsolute(dir) ? dir : resolve(cwd, dir);
  if (existsSync(path) && !statSync(path).isDirectory())
    throw new DantinoxError('INVALID_OPTION', messages.outFolderIsFile(dir));
  const found = HF_TOKENIZER_FILES.filter((f) => existsSync(join(path, f)));
  if (found.length > 0 && !force)
    throw new DantinoxError('INVALID_OPTION', messages.outFolderHoldsTokenizer(dir, found));
  return path;
}
