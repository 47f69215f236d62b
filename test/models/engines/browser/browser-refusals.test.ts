/**
 * What the browser target detects and refuses, in a real headless Chromium: a page served without cross-origin
 * isolation runs one WASM thread whatever was asked (and says so) with a coarse timer; a missing browser is one line
 * naming `--browser-path`; WebGPU on a machine without a GPU is refused (no adapter, or a fallback adapter that is
 * "not a GPU"); a provider the browser has not is refused before anything starts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../../../src/errors.js';
import { createBrowserModel } from '../../../../src/models/engines/browser/browser-model.js';
import { findBrowser } from '../../../../src/models/engines/browser/find-browser.js';
import { ModelConfig } from '../../../../src/models/index.js';

const config = ModelConfig.preset('tiny');

describe('browser target refusals and detections', () => {
  it('without isolation: 2 threads asked, 1 used and reported, timer coarser than 20 µs', async () => {
    const model = await createBrowserModel(config, { threads: 2, isolated: false });
    try {
      expect(model.info.browser?.crossOriginIsolated).toBe(false);
      expect(model.info.browser?.threadsAsked).toBe(2);
      expect(model.info.browser?.threadsUsed).toBe(1);
      expect(model.info.threads).toBe(1);
      expect(model.info.browser?.timerResolutionMs).toBeGreaterThan(0.02);
      const out = await model.forward(Int32Array.of(1, 2, 3), { batch: 1, seq: 3 });
      expect(out.data.length).toBe(3 * config.vocabSize);
    } finally {
      await model.dispose();
    }
  }, 60_000);

  it('no browser on PATH nor in the fallbacks: one line naming --browser-path', () => {
    const empty = mkdtempSync(join(tmpdir(), 'dantinox-nobrowser-'));
    try {
      let error: unknown;
      try {
        findBrowser(undefined, empty, [join(empty, 'chromium')]);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(DantinoxError);
      expect((error as DantinoxError).code).toBe('DEPENDENCY_MISSING');
      expect((error as Error).message).toMatch(/^--target browser needs Chromium, and none was found/);
      expect((error as Error).message).toContain('--browser-path');
      expect((error as Error).message).not.toContain('\n');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('a --browser-path that is not an executable: one line naming --browser-path, before any model is built', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-nobrowser-'));
    const file = join(dir, 'not-a-browser');
    writeFileSync(file, 'text');
    try {
      const error = await createBrowserModel(config, { browserPath: file }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DantinoxError);
      expect((error as DantinoxError).code).toBe('DEPENDENCY_MISSING');
      expect((error as Error).message).toMatch(
        /^--browser-path ".*not-a-browser" is not an executable file\./,
      );
      expect((error as Error).message).not.toContain('\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds an executable named chromium on PATH first', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-path-'));
    const exe = join(dir, 'chromium');
    writeFileSync(exe, '#!/bin/sh\n', { mode: 0o755 });
    try {
      expect(findBrowser(undefined, dir)).toBe(exe);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a provider the browser has not, naming --ep', async () => {
    const error = await createBrowserModel(config, { executionProvider: 'cuda' }).catch((e: unknown) => e);
    expect((error as DantinoxError).code).toBe('INVALID_OPTION');
    expect((error as Error).message).toMatch(/^--ep cuda is not a browser execution provider/);
  });

  it('webgpu on this CPU-only machine: refused as no adapter or as a fallback adapter ("not a GPU")', async () => {
    const error = await createBrowserModel(config, { executionProvider: 'webgpu' }).then(
      async (model) => {
        // A machine with a real GPU gets a session: then the adapter must be recorded and not a fallback.
        const adapter = model.info.browser?.adapter;
        await model.dispose();
        expect(adapter?.isFallbackAdapter).toBe(false);
        return undefined;
      },
      (e: unknown) => e,
    );
    if (error === undefined) return;
    // Headless Chromium without a GPU offers SwiftShader: refused as a fallback adapter, naming it.
    expect((error as DantinoxError).code).toBe('UNSUPPORTED');
    expect((error as Error).message).toMatch(
      /no WebGPU adapter|is a fallback adapter — a software rasterizer, not a GPU/,
    );
  }, 60_000);
});
