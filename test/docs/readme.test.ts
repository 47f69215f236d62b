/**
 * README.md and every `docs/**\/*.md` page are checked line by line where they can be: every TypeScript block
 * type-checks, every repository path they name exists, every relative link resolves (to a heading, with
 * `#anchor`), they cite nothing outside the repository, and the sample outputs that do not depend on the machine
 * are recomputed. The README stays a front door: at most 20 KB, linking every `docs/` page. Their `dantinox`
 * command lines are run by `cli-examples.test.ts`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../src/benchmarking/config.js';
import { describeModel } from '../../src/models/describe-model.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { Gpt2Tokenizer } from '../../src/models/tokenizers/gpt2-tokenizer.js';
import { countFlops, countParameters, memoryFootprint } from '../../src/profiling/index.js';
import { headingAnchors, markdownPages, pageLinks, pageText, ROOT } from './markdown-pages.js';
import { readmeText, tsSnippets, typecheckSnippets } from './readme-snippets.js';

const readme = readmeText();
const pages = markdownPages();
/** The library guide, which holds the library's sample outputs and the `BenchmarkConfig` table. */
const library = pageText('docs/library.md');

/** The first fenced block of `lang` ('' for a bare fence) after `marker` in `text` (default: the README). */
function blockAfter(marker: string, lang = '', text = readme): string {
  const start = text.indexOf(marker);
  expect(start, `no "${marker}"`).toBeGreaterThanOrEqual(0);
  const open = text.indexOf(`\`\`\`${lang}\n`, start);
  const close = text.indexOf('\n```', open + 1);
  return text.slice(open + lang.length + 4, close + 1);
}

/** Repository-relative text files (.ts, .md, .json, .yaml) under `dir`, without generated output. */
function textFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|md|json|ya?ml)$/.test(e.name) && !e.parentPath.includes('.output'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

describe('README', () => {
  it('starts with the two newcomer commands', () => {
    const lines = readme.split('\n');
    expect(lines[0]).toBe('# dantinox');
    expect(lines.slice(2, 6).join('\n')).toMatch(
      /^```bash\nnpm ci && npx dantinox bench .*\nnpm ci && npm test .*\n```$/,
    );
  });

  it('is a front door: at most 20 KB (20,480 bytes)', () => {
    expect(statSync(join(ROOT, 'README.md')).size).toBeLessThanOrEqual(20_480);
  });

  it('links every docs/ page', () => {
    const linked = new Set(
      pageLinks(readme)
        .map((l) => l.target.split('#')[0] as string)
        .filter((t) => t.startsWith('docs/')),
    );
    const docPages = pages.filter((p) => p.startsWith('docs/'));
    expect(docPages.length).toBeGreaterThanOrEqual(8);
    expect(docPages.filter((p) => !linked.has(p))).toEqual([]);
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

describe('README and docs pages', () => {
  it('every ```ts block type-checks under the strict tsconfig (names the reader supplies: <!-- ts-context -->)', () => {
    const snippets = pages.flatMap((page) => tsSnippets(pageText(page), page));
    expect(snippets.filter((s) => s.page === 'README.md').length).toBeGreaterThanOrEqual(4);
    expect(snippets.length).toBeGreaterThanOrEqual(20);
    expect(snippets.filter((s) => s.page === 'README.md').map((s) => s.heading)).toContain(
      'Library quickstart',
    );
    const errors = typecheckSnippets(snippets).filter((e) => e !== '');
    expect(errors.join('\n')).toBe('');
  }, 180_000);

  it('the snippet check uses the ts-context comment and reports errors at their page line', () => {
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
    const [inDocs] = typecheckSnippets(tsSnippets(markdown, 'docs/page.md'));
    expect(inDocs).toMatch(/^docs\/page\.md:7: /);
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
    expect(files).toEqual(expect.arrayContaining(pages));
    const citing = files.flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      return outside.filter((o) => text.includes(o)).map((o) => `${file}: ${o}`);
    });
    expect(citing).toEqual([]);
  });

  it('every repository path they name exists', () => {
    const missing: string[] = [];
    let named = 0;
    for (const page of pages) {
      const text = pageText(page);
      for (const m of text.matchAll(/`((?:src|test|examples|bench|docs)\/[^`\s<>*{}…]+)`/g)) {
        const path = m[1] as string;
        named++;
        const generated = path.includes('/.output/'); // written by test runs, not in git
        if (!generated && !existsSync(join(ROOT, path))) missing.push(`${page}: ${path}`);
      }
    }
    expect(named).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });

  it('every relative link resolves to a file of the repository, and an #anchor to a heading of it', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      for (const { line, target } of pageLinks(pageText(page))) {
        if (/^[a-z]+:/i.test(target)) {
          broken.push(`${page}:${line}: ${target} (links point into the repository)`);
          continue;
        }
        checked++;
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), path);
        if (relative(ROOT, file).startsWith('..'))
          broken.push(`${page}:${line}: ${target} (outside the repository)`);
        else if (!existsSync(file)) broken.push(`${page}:${line}: ${target} (no such file)`);
        else if (anchor !== undefined && !headingAnchors(readFileSync(file, 'utf8')).has(anchor))
          broken.push(`${page}:${line}: ${target} (no heading with that anchor)`);
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });
});

describe('sample outputs that do not depend on the machine', () => {
  const small = ModelConfig.preset('small');

  it('the FLOPs breakdown of small at seq 512, batch 4, exact (README) and seed formulas (library guide)', () => {
    expect(blockAfter("prints (the seed's five-line format")).toBe(
      `${String(countFlops(small, { seqLen: 512, batchSize: 4 }))}\n`,
    );
    const seed = countFlops(small, { seqLen: 512, batchSize: 4, formula: 'seed' });
    expect(library).toContain(
      `gives attention ${(seed.attention / 1e9).toFixed(2)} GFLOPs (total ${(seed.total / 1e9).toFixed(2)})`,
    );
  });

  it('the defaults of the BenchmarkConfig table of the library guide, and that it lists every field', () => {
    const table = library.slice(
      library.indexOf('### Configuration (`BenchmarkConfig`)'),
      library.indexOf('### Built-in tasks'),
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

  it('parameter count and fp16 memory of small (README)', () => {
    const group = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, '_');
    const memory = memoryFootprint(small, { dtype: 'float16' });
    expect(readme).toContain(`{ total: ${group(countParameters(small).total)}, active`);
    expect(readme).toContain(
      `{ weightBytes: ${group(memory.weightBytes)}, kvBytesPerToken: ${group(memory.kvBytesPerToken)}, … }`,
    );
  });

  it('the GPT-2 tokenizer example (models guide)', () => {
    const ids = /`encode\('Hello world'\)` is `(\[[\d, ]+\])`/.exec(pageText('docs/models.md'))?.[1];
    expect(ids).toBeDefined();
    expect(new Gpt2Tokenizer().encode('Hello world')).toEqual(JSON.parse(ids as string));
  });

  it('the sample summaries: model and engine lines, and every timed row says tok/s = tokens per call ÷ its mean', () => {
    const ortVersion = (
      JSON.parse(readFileSync(join(ROOT, 'node_modules/onnxruntime-node/package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    expect(readme).toContain(
      `Model: brown (built-in preset, trained weights): ${describeModel(ModelConfig.preset('brown'))}`,
    );
    expect(readme).toContain(`Engine: onnxruntime-node ${ortVersion} (cpu), 2 threads, fp32`);
    const number = (text: string | undefined): number => Number((text ?? '').replace(/,/g, ''));
    for (const text of [readme, library]) {
      const rows = [
        ...text.matchAll(
          /^ {2}\w+ +(?:seq=(\d+),batch=(\d+)|prefill@(\d+)|decode@\d+) +(?:prefill|decode) +([\d,.]+) ± [\d,.]+ ms +([\d,.]+) +\d+$/gm,
        ),
      ];
      expect(rows.length).toBeGreaterThanOrEqual(5);
      for (const [, seq, batch, prompt, mean, tps] of rows) {
        const tokens =
          seq !== undefined ? number(seq) * number(batch) : prompt !== undefined ? number(prompt) : 1;
        // Both sides are rounded to 4 significant digits: within 0.2%.
        expect(Math.abs(number(tps) - (tokens * 1000) / number(mean)) / number(tps)).toBeLessThan(0.002);
      }
    }
  });
});
