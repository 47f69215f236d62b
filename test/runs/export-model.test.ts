/**
 * `exportModel`, what `dantinox export` runs: a built-in model written as GGUF or as a Hugging Face folder, a
 * folder converted to GGUF, and an existing output refused unless `force` — the result a union on `format`.
 */
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { exportModel } from '../../src/runs/export-model.js';

describe('exportModel', () => {
  it('writes GGUF and Hugging Face exports of tiny, converts the folder, refuses to replace without force', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-export-model-'));
    const gguf = await exportModel({ config: 'tiny', dtype: 'q8', out: 'tiny.gguf', cwd });
    expect(gguf.format).toBe('gguf');
    if (gguf.format === 'gguf') expect(gguf.result.bytes).toBe(statSync(join(cwd, 'tiny.gguf')).size);
    await expect(exportModel({ config: 'tiny', out: 'tiny.gguf', cwd })).rejects.toThrow(
      messages.outFileExists('tiny.gguf'),
    );
    await exportModel({ config: 'tiny', out: 'tiny.gguf', cwd, force: true });
    const hf = await exportModel({ config: 'tiny', format: 'hf', out: 'tiny-hf', cwd });
    expect(hf.format).toBe('hf');
    expect(existsSync(join(cwd, 'tiny-hf/onnx/model.onnx'))).toBe(true);
    const converted = await exportModel({ model: 'tiny-hf', out: 'from-hf.gguf', cwd });
    expect(converted.format).toBe('gguf');
    await expect(exportModel({ model: 'tiny-hf', format: 'hf', out: 'x', cwd })).rejects.toThrow(
      messages.exportModelAlone(),
    );
  }, 60_000);
});
