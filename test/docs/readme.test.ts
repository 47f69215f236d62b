/**
 * README.md is checked line by line where it can be: every TypeScript block type-checks, every repository path it
 * names exists, it cites nothing outside the repository, and the sample outputs that do not depend on the
 * machine are recomputed.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../src/benchmarking/config.js';
import { describeModel } from '../../src/models/describe-model.js';
import { ModelConfig, type PresetName } from '../../src/models/model-config.js';
import { Gpt2Tokenizer } from '../../src/models/tokenizers/gpt2-tokenizer.js';
import { countFlops, countParameters, memoryFootprint } from '../../src/profiling/index.js';
import { ensureBuilt, ROOT, runCli } from '../cli/built-cli.js';
import { readmeText, tsSnippets, typecheckSnippets } from './readme-snippets.js';

const readme = readmeText();

/** The first fenced block of `lang` ('' for a bare fence) after `marker`. */
function blockAfter(marker: string, lang = ''): string {
  const start = readme.indexOf(marker);
  expect(start, `README has no "${marker}"`).toBeGreaterThanOrEqual(0);
  const open = readme.indexOf(`\`\`\`${lang}\n`, start);
  const close = readme.indexOf('\n```', open + 1);
  return readme.slice(open + lang.length + 4, close + 1);
}

/** Repository-relative text files (.ts, .md, .json, .yaml) under `dir`, without generated output. */
function textFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|md|json|ya?ml)$/.test(e.name) && !e.parentPath.includes('.output'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** `key=value` pairs of every `model: …` line of the sample summaries. */
const summaryModelLines = (): Record<string, string>[] =>
  [...readme.matchAll(/^ {2}model: (.+)$/gm)].map((m) =>
    Object.fromEntries((m[1] as string).split(', ').map((kv) => kv.split('=') as [string, string])),
  );

describe('README', () => {
  it('starts with the two newcomer commands', () => {
    const lines = readme.split('\n');
    expect(lines[0]).toBe('# dantinox');
    expect(lines.slice(2, 6).join('\n')).toMatch(
      /^```bash\nnpm ci && npx dantinox bench .*\nnpm ci && npm test .*\n```$/,
    );
  });

  it('every ```ts block type-checks under the strict tsconfig (names the reader supplies: <!-- ts-context -->)', () => {
    const snippets = tsSnippets(readme);
    expect(snippets.length).toBeGreaterThanOrEqual(10);
    expect(snippets.map((s) => s.heading)).toContain('Library quickstart');
    const errors = typecheckSnippets(snippets).filter((e) => e !== '');
    expect(errors.join('\n')).toBe('');
  }, 180_000);

  it('the snippet check uses the ts-context comment and reports errors at their README line', () => {
    const markdown = [
      '# T', //                                          line 1
      '<!-- ts-context', //                              2
      'declare const given: number;', //                 3
      '-->', //                                          4
      '```ts', //                                        5
      'const n: number = given;', //                     6
      'const s: string = n;', //                         7
      '```', //                                          8
      '```ts', //                                        9
      'const m: number = given;', //                     10: no context for this block
      '```',
    ].join('\n');
    const snippets = tsSnippets(markdown);
    expect(snippets.map((s) => [s.line, s.context])).toEqual([
      [5, 'declare const given: number;\n'],
      [9, ''],
    ]);
    const [first, second] = typecheckSnippets(snippets);
    expect(first).toMatch(/^README\.md:7: Type 'number' is not assignable to type 'string'\.$/);
    expect(second).toMatch(/^README\.md:10: Cannot find name 'given'\.$/);
  }, 180_000);

  it('cites no file outside the repository, and neither do the sources, tests, benches, examples and docs', () => {
    // Built from parts so that this file does not cite them itself.
    const outside = [
      ['DESIGN', '.md'],
      ['../', 'shared'],
      ['house', '-style'],
      ['/work', '/'],
    ].map((p) => p.join(''));
    const files = [
      'README.md',
      ...['src', 'test', 'bench', 'examples', 'docs'].flatMap((dir) => textFiles(dir)),
    ];
    const citing = files.flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      return outside.filter((o) => text.includes(o)).map((o) => `${file}: ${o}`);
    });
    expect(citing).toEqual([]);
  });

  it('every repository path it names exists', () => {
    const named = new Set<string>();
    for (const m of readme.matchAll(/`((?:src|test|examples|bench|docs)\/[^`\s<>*{}…]+)`/g))
      named.add(m[1] as string);
    for (const m of readme.matchAll(/\]\(((?:src|test|examples|bench|docs)[^)#\s]*)\)/g))
      named.add(m[1] as string);
    expect(named.size).toBeGreaterThan(5);
    const generated = (p: string): boolean => p.includes('/.output/'); // written by test runs, not in git
    expect([...named].filter((p) => !generated(p) && !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it('shows a chart picture that exists', () => {
    const picture = /!\[[^\]]+\]\((docs\/[^)]+\.png)\)/.exec(readme);
    expect(picture).not.toBeNull();
    expect(
      readFileSync(join(ROOT, picture?.[1] as string))
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
  });
});

describe('README sample outputs that do not depend on the machine', () => {
  const small = ModelConfig.preset('small');

  it('the FLOPs breakdown of small at seq 512, batch 4, exact and seed formulas', () => {
    expect(blockAfter("prints (the seed's five-line format")).toBe(
      `${String(countFlops(small, { seqLen: 512, batchSize: 4 }))}\n`,
    );
    const seed = countFlops(small, { seqLen: 512, batchSize: 4, formula: 'seed' });
    expect(readme).toContain(
      `gives attention ${(seed.attention / 1e9).toFixed(2)} GFLOPs (total ${(seed.total / 1e9).toFixed(2)})`,
    );
  });

  it('the defaults of the BenchmarkConfig table, and that it lists every field', () => {
    const table = readme.slice(
      readme.indexOf('### Configuration (`BenchmarkConfig`)'),
      readme.indexOf('### Built-in tasks'),
    );
    const documented: Record<string, unknown> = {};
    for (const m of table.matchAll(
      /^\| (`\w+`(?: \(`\w+`\))?(?: \/ `\w+`)*) \| (`[^|]+`(?: \/ `[^|]+`)*) \|/gm,
    )) {
      const fields = (m[1] as string).replace(/ \(`\w+`\)/g, '').split(' / ');
      const values = (m[2] as string).split(' / ');
      fields.forEach((f, i) => {
        documented[f.replace(/`/g, '')] = JSON.parse(
          (values[i] as string).replace(/`/g, '').replace(/'/g, '"'),
        );
      });
    }
    expect(documented).toEqual({ ...BenchmarkConfig.parse({}) });
  });

  it('parameter count and fp16 memory of small', () => {
    const group = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, '_');
    const memory = memoryFootprint(small, { dtype: 'float16' });
    expect(readme).toContain(`{ total: ${group(countParameters(small).total)}, active`);
    expect(readme).toContain(
      `{ weightBytes: ${group(memory.weightBytes)}, kvBytesPerToken: ${group(memory.kvBytesPerToken)}, … }`,
    );
  });

  it('the GPT-2 tokenizer example', () => {
    const ids = /`encode\('Hello world'\)` is `(\[[\d, ]+\])`/.exec(readme)?.[1];
    expect(ids).toBeDefined();
    expect(new Gpt2Tokenizer().encode('Hello world')).toEqual(JSON.parse(ids as string));
  });

  it('the model lines of the sample summaries: preset facts, engine version and the run_id each call produces', () => {
    const lines = summaryModelLines();
    expect(lines.length).toBeGreaterThanOrEqual(2);
    const ortVersion = (
      JSON.parse(readFileSync(join(ROOT, 'node_modules/onnxruntime-node/package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    for (const line of lines) {
      const preset = ModelConfig.preset(line['model'] as PresetName);
      expect(line).toMatchObject({
        params: String(countParameters(preset).total),
        dim: String(preset.dim),
        num_blocks: String(preset.numBlocks),
        n_heads: String(preset.nHeads),
        kv_heads: String(preset.kvHeads),
        vocab_size: String(preset.vocabSize),
        max_context: String(preset.maxContext),
        engine: `onnxruntime-node ${ortVersion} (cpu)`,
      });
    }
    // `dantinox bench` names its run after the results folder; the library's default is <model>-<ISO time>.
    const cliRun = /Results: results\/(\S+)/.exec(readme)?.[1];
    expect(lines[0]?.['run_id']).toBe(`${lines[0]?.['model']}-${cliRun}`);
    expect(lines[1]?.['run_id']).toMatch(
      new RegExp(`^${lines[1]?.['model']}-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d-\\d{3}Z$`),
    );
    expect(readme).toContain(
      `Model: small (built-in preset, untrained random weights with seed 0): ${describeModel(small)}`,
    );
  });
});

describe('README error examples, run for real', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('each `$ dantinox …` line prints the error line shown under it and exits 2', async () => {
    const block = blockAfter("A newcomer's mistakes get one line");
    const examples = [...block.matchAll(/^\$ dantinox (.+)\n(error: .+)$/gm)];
    expect(examples.length).toBeGreaterThanOrEqual(4);
    const cwd = mkdtempSync(join(tmpdir(), 'dx-readme-')); // no valid.txt here
    for (const [, args, error] of examples) {
      const run = await runCli((args as string).split(' '), { cwd });
      expect(run.stderr.trim(), `dantinox ${args}`).toBe(error);
      expect(run.code, `dantinox ${args}`).toBe(2);
    }
  }, 180_000);
});
