/**
 * The layering lint rules of biome.json catch an upward import from any depth of each layer, and let the allowed
 * ones through: checked on a scratch tree laid out like src/, linted with the repository's own configuration.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './cli/built-cli.js';

/** file → import specifier, and whether the layering rules must refuse it. */
const CASES: readonly (readonly [string, string, boolean])[] = [
  ['src/profiling/a.ts', '../models/model.js', true],
  ['src/profiling/b.ts', '../models/model-config.js', false],
  ['src/profiling/c.ts', '../benchmarking/report.js', true],
  ['src/models/onnx/d.ts', '../../benchmarking/report.js', true],
  ['src/models/onnx/e.ts', '../../profiling/index.js', false],
  ['src/benchmarking/tasks/f.ts', '../../visualization/index.js', true],
  ['src/benchmarking/tasks/g.ts', '../../models/model.js', false],
  ['src/visualization/charts/h.ts', '../../benchmarking/report.js', true],
  ['src/visualization/charts/i.ts', '../../runs/index.js', true],
  ['src/visualization/charts/j.ts', '../../profiling/index.js', false],
  ['src/runs/k.ts', '../cli/exit-code.js', true],
  ['src/runs/l.ts', '../benchmarking/report.js', false],
  ['src/serving/client/o.ts', '../../benchmarking/report.js', false],
  ['src/serving/server/p.ts', '../../models/model.js', false],
  ['src/serving/q.ts', '../visualization/index.js', true],
  ['src/serving/client/r.ts', '../../runs/index.js', true],
  ['src/runs/s.ts', '../serving/index.js', false],
  ['src/m.ts', './cli/exit-code.js', true],
  ['src/cli/commands/n.ts', '../../runs/index.js', false],
  ['src/training/autodiff/t.ts', '../../models/onnx/graph-builder.js', false],
  ['src/training/u.ts', '../benchmarking/data/brown-corpus.js', false],
  ['src/training/v.ts', '../visualization/index.js', true],
  ['src/training/autodiff/w.ts', '../../runs/index.js', true],
  ['src/runs/x.ts', '../training/index.js', false],
  ['src/models/y.ts', '../training/index.js', true],
];

describe('layering lint rules', () => {
  it('refuse upward imports from every layer at any depth, and only those', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-layers-'));
    const config = JSON.parse(readFileSync(join(ROOT, 'biome.json'), 'utf8')) as Record<string, unknown>;
    delete config['$schema'];
    writeFileSync(join(dir, 'biome.json'), JSON.stringify({ ...config, vcs: { enabled: false } }));
    for (const [file, spec] of CASES) {
      mkdirSync(join(dir, dirname(file)), { recursive: true });
      writeFileSync(join(dir, file), `import { x } from '${spec}';\n\nexport const y = x;\n`);
    }
    const biome = join(ROOT, 'node_modules/.bin/biome');
    const run = spawnSync(biome, ['lint', '--reporter=json', '--max-diagnostics=none', '.'], {
      cwd: dir,
      encoding: 'utf8',
    });
    const report = JSON.parse(run.stdout) as {
      diagnostics: { category: string; location: { path: { file: string } | string } }[];
    };
    const refused = new Set(
      report.diagnostics
        .filter((d) => d.category === 'lint/style/noRestrictedImports')
        .map((d) => (typeof d.location.path === 'string' ? d.location.path : d.location.path.file)),
    );
    for (const [file, spec, shouldRefuse] of CASES)
      expect(refused.has(file), `${file} importing ${spec}`).toBe(shouldRefuse);
  }, 60_000);
});
