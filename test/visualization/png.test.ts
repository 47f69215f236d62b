import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readChartData } from '../../src/visualization/chart-data.js';
import { ParetoChart } from '../../src/visualization/charts/pareto-chart.js';
import { defaultFontFiles, rasterizeSvg, svgToPng } from '../../src/visualization/png.js';
import { renderSvg } from '../../src/visualization/render.js';
import { fixture } from './golden.js';

/** Pixels in the rows [y0, y1) that are clearly darker than the white background (any channel < 160). */
const darkPixels = (img: { width: number; pixels: Uint8Array }, y0: number, y1: number): number => {
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = 0; x < img.width; x++) {
      const i = (y * img.width + x) * 4;
      if (img.pixels[i]! < 160 && img.pixels[i + 1]! < 160 && img.pixels[i + 2]! < 160) n++;
    }
  }
  return n;
};

let svg = '';
beforeAll(async () => {
  svg = await renderSvg(new ParetoChart().spec(await readChartData(fixture('bench-multi.csv'))));
});

describe('PNG rendering (resvg + bundled DejaVu Sans)', () => {
  it('writes a PNG at the requested scale', async () => {
    const png = await svgToPng(svg, { scale: 1 });
    expect([...png.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const x1 = await rasterizeSvg(svg, { scale: 1 });
    const x2 = await rasterizeSvg(svg, { scale: 2 });
    expect(x2.width).toBe(x1.width * 2);
    expect(x2.height).toBe(x1.height * 2);
  });

  it('draws text: the title band is full of glyph pixels, and empty once <text> is removed', async () => {
    const withText = await rasterizeSvg(svg, { scale: 1 });
    const withoutText = await rasterizeSvg(svg.replace(/<text[^>]*>.*?<\/text>/gs, ''), { scale: 1 });
    // The title ("Perplexity vs peak throughput", 16 px bold) sits in the top ~36 px; no other mark is there.
    const titled = darkPixels(withText, 0, 36);
    expect(titled).toBeGreaterThan(400);
    expect(darkPixels(withoutText, 0, 36)).toBe(0);
  });

  it('is deterministic (no system fonts)', async () => {
    const a = await svgToPng(svg, { scale: 1 });
    const b = await svgToPng(svg, { scale: 1 });
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
  });

  it('uses the given font files (a different font changes the glyphs)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-font-'));
    const bold = join(dir, 'only-bold.ttf');
    copyFileSync(defaultFontFiles()[1]!, bold);
    const regular = await rasterizeSvg(svg, { scale: 1 });
    const boldOnly = await rasterizeSvg(svg, { scale: 1, fontFiles: [bold] });
    // Everything bold: the axis labels (normal weight by default) now get heavier strokes.
    expect(darkPixels(boldOnly, 36, boldOnly.height)).toBeGreaterThan(
      darkPixels(regular, 36, regular.height),
    );
  });

  it('fails loudly when a font file is missing instead of drawing no text', async () => {
    await expect(svgToPng(svg, { fontFiles: ['/nonexistent/DejaVuSans.ttf'] })).rejects.toMatchObject({
      code: 'DEPENDENCY_MISSING',
      message: expect.stringContaining('/nonexistent/DejaVuSans.ttf'),
    });
    await expect(svgToPng(svg, { fontFiles: [] })).rejects.toMatchObject({ code: 'DEPENDENCY_MISSING' });
  });

  it('locates the bundled DejaVu Sans regular and bold', () => {
    const files = defaultFontFiles();
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(/dejavu-fonts-ttf\/ttf\/DejaVuSans\.ttf$/);
    expect(files[1]).toMatch(/DejaVuSans-Bold\.ttf$/);
  });
});
