/**
 * JSON Lines read through a schema: one JSON value a line, blank lines skipped, the first bad line refused — the
 * shape of every line-oriented input dantinox reads (prompt files, request records).
 *
 * @packageDocumentation
 */
import type { z } from 'zod';

/** Why a line was refused: not JSON at all, or JSON the schema rejects (at the field path given, `''` for the line). */
export type JsonLineProblem =
  | { readonly kind: 'not-json' }
  | { readonly kind: 'schema'; readonly path: string };

/**
 * Parses `text` as JSON Lines, each line through `schema`, in order.
 *
 * @param bad - Builds the error thrown for the first bad line (1-based) and its problem.
 * @throws what `bad` returns.
 */
export function parseJsonLines<T>(
  text: string,
  schema: z.ZodType<T>,
  bad: (line: number, problem: JsonLineProblem) => Error,
): T[] {
  const out: T[] = [];
  for (const [i, line] of text.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw bad(i + 1, { kind: 'not-json' });
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      throw bad(i + 1, { kind: 'schema', path: parsed.error.issues[0]?.path.join('.') ?? '' });
    out.push(parsed.data);
  }
  return out;
}
