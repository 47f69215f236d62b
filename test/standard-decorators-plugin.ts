/**
 * A Vite plugin that lowers TC39 (TypeScript 5 "standard") decorators with the TypeScript compiler.
 *
 * Vite 8 transforms TypeScript with oxc, which implements only legacy (`experimentalDecorators`) decorators and
 * leaves standard `@decorator` syntax untouched; Node 20 cannot parse it. Test files (and examples) that use
 * `@Visualizer.register` are therefore transpiled by `typescript.transpileModule` (the same emit as `tsc`)
 * before oxc sees them. Files without a decorator are left to oxc.
 */
import ts from 'typescript';
import type { Plugin } from 'vite';

/** Matches a line that starts with a decorator (`@name` or `@a.b(…)`) — cheap pre-filter. */
const DECORATOR_LINE = /^\s*@[A-Za-z_$][\w$.]*(?:\(|\s*$|\s+(?:export\s+)?(?:abstract\s+)?class\b)/m;

/** Returns the plugin; add it to `plugins` in `vitest.config.ts`. */
export function standardDecorators(): Plugin {
  return {
    name: 'dantinox:standard-decorators',
    enforce: 'pre',
    transform(code, id) {
      const file = id.split('?')[0] ?? id;
      if (!/\.[cm]?tsx?$/.test(file) || file.includes('/node_modules/') || !DECORATOR_LINE.test(code)) {
        return null;
      }
      const out = ts.transpileModule(code, {
        fileName: file,
        compilerOptions: {
          target: ts.ScriptTarget.ES2022,
          module: ts.ModuleKind.ESNext,
          verbatimModuleSyntax: true,
          sourceMap: true,
          inlineSources: true,
        },
      });
      return {
        code: out.outputText.replace(/\/\/# sourceMappingURL=.*$/m, ''),
        map: out.sourceMapText ?? null,
      };
    },
  };
}
