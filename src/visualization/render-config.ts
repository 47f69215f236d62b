/**
 * How a chart is drawn: size, theme, title override and raster scale.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { THEME_NAMES, type ThemeName } from './theme.js';

/** Render settings shared by every chart. All fields are optional. */
export interface RenderConfig {
  /** Width of the plotting area in CSS pixels (axes, legend and title are added around it). @default 560 */
  readonly width?: number;
  /** Height of the plotting area in CSS pixels. @default 340 */
  readonly height?: number;
  /** Theme: `'publication'`, `'dark'` or `'minimal'`. @default 'publication' */
  readonly theme?: ThemeName;
  /** Replaces the chart's default title (which states what is plotted). @default the chart's own title */
  readonly title?: string;
  /** Pixel-density factor for PNG output (2 = 2 device pixels per CSS pixel). @default 2 */
  readonly scale?: number;
}

/** A {@link RenderConfig} with every default filled in (`title` stays optional). */
export interface ResolvedRenderConfig {
  /** Plot width in CSS pixels. */
  readonly width: number;
  /** Plot height in CSS pixels. */
  readonly height: number;
  /** Theme name. */
  readonly theme: ThemeName;
  /** Title override, if any. */
  readonly title: string | undefined;
  /** PNG pixel-density factor. */
  readonly scale: number;
}

/** Default plot width in CSS pixels. */
export const DEFAULT_WIDTH = 560;
/** Default plot height in CSS pixels. */
export const DEFAULT_HEIGHT = 340;
/** Default PNG pixel-density factor. */
export const DEFAULT_SCALE = 2;

const positive = (name: string, value: number | undefined, fallback: number, max: number): number => {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0 || value > max) {
    throw new DantinoxError('INVALID_OPTION', messages.badRenderNumber(name, value, max));
  }
  return value;
};

/**
 * Fills in the defaults of a {@link RenderConfig} and validates it.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` for a non-positive or huge size/scale, or an unknown theme.
 */
export function resolveRenderConfig(config: RenderConfig = {}): ResolvedRenderConfig {
  const theme = config.theme ?? 'publication';
  if (!THEME_NAMES.includes(theme)) {
    throw new DantinoxError('INVALID_OPTION', messages.unknownName('theme', String(theme), THEME_NAMES));
  }
  return {
    width: positive('width', config.width, DEFAULT_WIDTH, 10_000),
    height: positive('height', config.height, DEFAULT_HEIGHT, 10_000),
    theme,
    title: config.title,
    scale: positive('scale', config.scale, DEFAULT_SCALE, 16),
  };
}
