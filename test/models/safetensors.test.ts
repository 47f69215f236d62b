import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { loadSafetensors, saveSafetensors } from '../../src/models/safetensors.js';
import { initWeights, type WeightTensor } from '../../src/models/weights.js';

const dir = mkdtempSync(join(tmpdir(), 'dantinox-st-'));

/** Builds a safetensors file by hand from a header object and raw data bytes. */
function rawFile(name: string, header: unknown, data: Uint8Array): string {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat([len, json, data]));
  return path;
}

async function loadError(path: string): Promise<DantinoxError> {
  try {
    await loadSafetensors(path);
  } catch (e) {
    if (e instanceof DantinoxError) return e;
    throw e;
  }
  throw new Error('expected a DantinoxError');
}

describe('safetensors', () => {
  it('round-trips a model and its metadata bit for bit', async () => {
    const config = ModelConfig.preset('tiny', { norm: 'layernorm', weightTying: false });
    const weights = initWeights(config, 5);
    const path = join(dir, 'tiny.safetensors');
    await saveSafetensors(path, weights, { format: 'pt', config: JSON.stringify(config) });
    const loaded = await loadSafetensors(path);
    expect(loaded.metadata).toEqual({ format: 'pt', config: JSON.stringify(config) });
    expect([...loaded.weights.keys()]).toEqual([...weights.keys()]);
    for (const [name, t] of weights) {
      expect(loaded.weights.get(name)?.dims).toEqual(t.dims);
      expect(
        Buffer.from(loaded.weights.get(name)?.data.buffer ?? new ArrayBuffer(0)).equals(
          Buffer.from(t.data.buffer),
        ),
      ).toBe(true);
    }
  });

  it('writes the documented bytes for a tiny file', async () => {
    const weights = new Map<string, WeightTensor>([
      ['a', { dims: [2], data: new Float32Array([1, -2]) }],
      ['b', { dims: [1, 1], data: new Float32Array([0.5]) }],
    ]);
    const path = join(dir, 'known.safetensors');
    await saveSafetensors(path, weights);
    const bytes = readFileSync(path);
    const header =
      '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1,1],"data_offsets":[8,12]}}';
    const padded = header.padEnd(Math.ceil(header.length / 8) * 8, ' ');
    expect(bytes.readBigUInt64LE(0)).toBe(BigInt(padded.length));
    expect(bytes.subarray(8, 8 + padded.length).toString('utf8')).toBe(padded);
    expect([...bytes.subarray(8 + padded.length)]).toEqual([
      0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x00, 0x3f,
    ]);
  });

  it('reads F16 and BF16 tensors as float32', async () => {
    // F16: 1.0 = 0x3c00, -2.0 = 0xc000, 0.5 = 0x3800; BF16: 1.0 = 0x3f80, -0.15625 = 0xbe20.
    const data = Uint8Array.from([0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38, 0x80, 0x3f, 0x20, 0xbe]);
    const path = rawFile(
      'half.safetensors',
      {
        h: { dtype: 'F16', shape: [3], data_offsets: [0, 6] },
        b: { dtype: 'BF16', shape: [2], data_offsets: [6, 10] },
      },
      data,
    );
    const { weights } = await loadSafetensors(path);
    expect([...(weights.get('h')?.data ?? [])]).toEqual([1, -2, 0.5]);
    expect([...(weights.get('b')?.data ?? [])]).toEqual([1, -0.15625]);
  });

  it('rejects malformed files with clear errors', async () => {
    const short = join(dir, 'short.safetensors');
    writeFileSync(short, Buffer.from([1, 2, 3]));
    expect((await loadError(short)).message).toContain('shorter than the 8-byte header length');

    const huge = join(dir, 'huge.safetensors');
    const len = Buffer.alloc(16);
    len.writeBigUInt64LE(1n << 40n);
    writeFileSync(huge, len);
    expect((await loadError(huge)).message).toMatch(/header length \d+ exceeds the file size/);

    const notJson = join(dir, 'notjson.safetensors');
    const b = Buffer.alloc(12);
    b.writeBigUInt64LE(4n);
    b.write('{{{{', 8);
    writeFileSync(notJson, b);
    const e = await loadError(notJson);
    expect(e.code).toBe('IO');
    expect(e.message).toContain('header is not JSON');

    const outside = rawFile(
      'outside.safetensors',
      { x: { dtype: 'F32', shape: [4], data_offsets: [0, 16] } },
      new Uint8Array(8),
    );
    expect((await loadError(outside)).message).toContain('outside the 8 data bytes');

    const mismatch = rawFile(
      'mismatch.safetensors',
      { x: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } },
      new Uint8Array(8),
    );
    expect((await loadError(mismatch)).message).toContain('needs 12');

    const i64 = rawFile(
      'i64.safetensors',
      { x: { dtype: 'I64', shape: [1], data_offsets: [0, 8] } },
      new Uint8Array(8),
    );
    const u = await loadError(i64);
    expect(u.code).toBe('UNSUPPORTED');
    expect(u.message).toContain('dtype I64');

    const missing = await loadError(join(dir, 'nope.safetensors'));
    expect(missing.code).toBe('IO');
  });
});
