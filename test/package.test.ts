import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const json = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as Record<string, unknown>;

interface LockedPackage {
  readonly dev?: boolean;
  readonly optional?: boolean;
  readonly engines?: Readonly<Record<string, string>>;
  readonly hasInstallScript?: boolean;
}

const pkg = json('package.json') as {
  engines: Record<string, string>;
  allowScripts?: Record<string, boolean>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const locked = Object.entries(
  (json('package-lock.json') as { packages: Record<string, LockedPackage> }).packages,
)
  .filter(([path]) => path !== '')
  .map(([path, p]) => ({
    name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length),
    ...p,
  }));

describe('package.json: an install without warnings', () => {
  it('every runtime dependency accepts every Node.js version the package accepts (no EBADENGINE)', () => {
    const ours = pkg.engines['node'] as string;
    const runtime = locked.filter((p) => p.dev !== true && p.engines?.['node'] !== undefined);
    expect(runtime.length).toBeGreaterThan(0);
    const refusing = runtime
      .filter((p) => !semver.subset(ours, p.engines?.['node'] as string))
      .map((p) => `${p.name} (node ${p.engines?.['node']})`);
    expect(refusing).toEqual([]);
  });

  it('the relation above binds: the former range `>=20` would fail it (yargs needs ^20.19.0 and ^22.12.0)', () => {
    expect(semver.subset('>=20', '^20.19.0 || ^22.12.0 || >=23')).toBe(false);
    expect(semver.satisfies(process.versions.node, pkg.engines['node'] as string)).toBe(true);
  });

  it('every dependency with an install script is decided in allowScripts (none runs: what they fetch is unused)', () => {
    const withScripts = locked
      .filter((p) => p.hasInstallScript === true && p.optional !== true)
      .map((p) => p.name);
    expect(withScripts.length).toBeGreaterThan(0);
    expect(Object.keys(pkg.allowScripts ?? {}).sort()).toEqual([...new Set(withScripts)].sort());
    expect(Object.values(pkg.allowScripts ?? {})).not.toContain(true);
  });

  it('every optional peer is pinned to a stable release, the one the dev dependencies install and the lock holds', () => {
    const lockedAt = (name: string) =>
      (json('package-lock.json') as { packages: Record<string, { version?: string }> }).packages[
        `node_modules/${name}`
      ]?.version;
    for (const [name, version] of Object.entries(pkg.peerDependencies)) {
      expect(semver.valid(version), name).toBe(version); // an exact version, not a range
      expect(semver.prerelease(version), `${name} ${version} is a prerelease`).toBeNull();
      expect(pkg.devDependencies[name], name).toBe(version);
      expect(lockedAt(name), name).toBe(version);
    }
  });

  it('npm reads the project configuration without a warning', () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
    const npm = spawnSync('npm', ['config', 'list'], { cwd: ROOT, env, encoding: 'utf8' });
    expect(npm.status).toBe(0);
    expect(npm.stderr).not.toMatch(/warn/i);
  });
});
