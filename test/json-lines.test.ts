import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type JsonLineProblem, parseJsonLines } from '../src/json-lines.js';

const schema = z.object({ a: z.number(), b: z.object({ c: z.string() }).optional() });
const bad = (line: number, problem: JsonLineProblem): Error =>
  new Error(`${line}:${JSON.stringify(problem)}`);

describe('parseJsonLines', () => {
  it('reads one value a line, in order, skipping blank lines and CRLF ends', () => {
    expect(parseJsonLines('{"a":1}\r\n\n  \n{"a":2,"b":{"c":"x"}}\n', schema, bad)).toEqual([
      { a: 1 },
      { a: 2, b: { c: 'x' } },
    ]);
    expect(parseJsonLines('', schema, bad)).toEqual([]);
  });

  it('refuses the first bad line: not JSON, or the schema with the path of its first issue', () => {
    expect(() => parseJsonLines('{"a":1}\n{oops\n{"a":"x"}', schema, bad)).toThrow('2:{"kind":"not-json"}');
    expect(() => parseJsonLines('{"a":1}\n\n{"a":3,"b":{"c":4}}', schema, bad)).toThrow(
      '3:{"kind":"schema","path":"b.c"}',
    );
  });
});
