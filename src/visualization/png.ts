/**
 * SVG → PNG with `@resvg/resvg-js` (loaded lazily, so importing dantinox never loads a native module), using
 * the DejaVu Sans TTFs shipped by `dejavu-fonts-ttf` and no system fonts: the output is identical on every
 * machine. resvg silently draws *no text at all* when it finds no font, so missing font files are an error.
 *
 * @packageDocumentation
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { DantinoxError } from '../errors.js';
import { lazyImport } from '../lazy-import.js';
import { messages } from '../messages.js';

/** Font family name of the bundled fonts, used as resvg's default and sans-serif family. */
export const PNG_FONT_FAMILY = 'DejaVu Sans';

/**
 * Absolute paths of the bundled fonts (DejaVu Sans regular and bold), resolved from the `dejavu-fonts-ttf`
 * package with Node's module resolution.
 *
 * @throws {@link dantinox!DantinoxError} `DEPENDENCY_MISSING` when the package cannot be resolved.
 */
export function defaultFontFiles(): string[] {
  const require = createRequire(import.meta.url);
  try {
    return ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'].map((f) => require.resolve(`dejavu-fonts-ttf/ttf/${f}`));
  } catch (cause) {
    throw new DantinoxError(
      'DEPENDENCY_MISSING',
      messages.dependencyMissing('dejavu-fonts-ttf', 'PNG chart text'),
      {
        cause,
      },
    );
  }
}

/** Options of {@link svgToPng}. */
export interface SvgToPngOptions {
  /** Device pixels per CSS pixel. @default 2 */
  readonly scale?: number;
  /** Background colour (CSS); the SVG's own background rect (from the theme) is drawn on top. @default '#FFFFFF' */
  readonly background?: string;
  /** TTF/OTF files to load instead of the bundled DejaVu Sans. Each must exist. @default {@link defaultFontFiles} */
  readonly fontFiles?: readonly string[];
  /** Family used for text whose family is not found. @default 'DejaVu Sans' */
  readonly defaultFontFamily?: string;
}

type ResvgModule = typeof import('@resvg/resvg-js');
const loadResvg: () => Promise<ResvgModule> = lazyImport(
  '@resvg/resvg-js',
  'PNG output',
  () => import('@resvg/resvg-js'),
);

/** A rasterised SVG: the PNG file bytes and the raw pixels. */
export interface RasterImage {
  /** PNG file bytes. */
  readonly png: Uint8Array;
  /** Width in device pixels. */
  readonly width: number;
  /** Height in device pixels. */
  readonly height: number;
  /** RGBA pixels, row-major, 4 bytes per pixel. */
  readonly pixels: Uint8Array;
}

/**
 * Rasterises an SVG string to PNG bytes at `scale` device pixels per CSS pixel.
 *
 * @throws {@link dantinox!DantinoxError} `DEPENDENCY_MISSING` when `@resvg/resvg-js` or the fonts cannot be loaded;
 * `RUNTIME_ERROR` when resvg rejects the SVG.
 */
export async function svgToPng(svg: string, options: SvgToPngOptions = {}): Promise<Uint8Array> {
  return (await rasterizeSvg(svg, options)).png;
}

/**
 * Rasterises an SVG string like {@link svgToPng} and also returns the raw RGBA pixels (for checks such as
 * "the title area holds text").
 *
 * @throws {@link dantinox!DantinoxError} as {@link svgToPng}.
 */
export async function rasterizeSvg(svg: string, options: SvgToPngOptions = {}): Promise<RasterImage> {
  const fontFiles = options.fontFiles ? [...options.fontFiles] : defaultFontFiles();
  if (fontFiles.length === 0) {
    throw new DantinoxError('DEPENDENCY_MISSING', messages.fontMissing('(empty fontFiles)'));
  }
  for (const file of fontFiles) {
    if (!existsSync(file)) throw new DantinoxError('DEPENDENCY_MISSING', messages.fontMissing(file));
  }
  const { Resvg } = await loadResvg();
  const family = options.defaultFontFamily ?? PNG_FONT_FAMILY;
  try {
    const resvg = new Resvg(svg, {
      fitTo: { mode: 'zoom', value: options.scale ?? 2 },
      background: options.background ?? '#FFFFFF',
      font: {
        loadSystemFonts: false,
        fontFiles,
        defaultFontFamily: family,
        sansSerifFamily: family,
        serifFamily: family,
      },
      shapeRendering: 2,
      textRendering: 1,
    });
    const image = resvg.render();
    return {
      png: new Uint8Array(image.asPng()),
      width: image.width,
      height: image.height,
      pixels: new Uint8Array(image.pixels),
    };
  } catch (cause) {
    throw new DantinoxError('RUNTIME_ERROR', messages.renderFailed('png', cause), { cause });
  }
}
