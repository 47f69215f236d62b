/**
 * Every message names the CLI flag of a benchmark option, never the library option alone: `--max-cell-ms`, with
 * `maxCellMs` at most in parentheses after it (a library user reads both). Checked on the catalogue's source, so a
 * new message cannot slip through untested.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../src/benchmarking/config.js';
import { ROOT } from './cli/built-cli.js';

/** `maxCellMs` → `--max-cell-ms`. */
const flagOf = (key: string): string => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

describe('messages', () => {
  it('name the flag of every benchmark option they mention', () => {
    const source = readFileSync(join(ROOT, 'src/messages.ts'), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    // Only message text: template literals and strings, not the builders' parameter names or TSDoc.
    const texts = [...source.matchAll(/`(?:[^`\\]|\\.)*`|'(?:[^'\\]|\\.)*'/g)].map((m) => m[0]);
    const keys = Object.keys(BenchmarkConfig.defaults()).filter((k) => k !== 'threads' && k !== 'seed');
    const bare: string[] = [];
    for (const text of texts)
      for (const key of keys) {
        const plain = text.replace(/\$\{[^}]*\}/g, '');
        for (const m of plain.matchAll(new RegExp(`\\b${key}\\b`, 'g'))) {
          const before = plain.slice(0, m.index);
          // A key spelt like its flag (`depths`, `--depths`) matches inside the flag itself.
          if (!before.includes(flagOf(key)) && !before.endsWith('--'))
            bare.push(`${key} in ${text.slice(0, 80)}…`);
        }
      }
    expect(bare).toEqual([]);
  });
});
