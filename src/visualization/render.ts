/**
 * Chart spec → SVG, headless: Vega-Lite specs are compiled to Vega, then a Vega `View` with `renderer: 'none'`
 * renders the scenegraph to an SVG string (as vega-lite's `vl2svg` does). No DOM, no canvas.
 *
 * @packageDocumentation
 */
import type { Spec as VegaSpec } from 'vega';
import { parse, View, Warn } from 'vega';
import { compile } from 'vega-lite';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { type ChartSpec, isVegaLiteSpec } from './chart.js';

/** A logger in the shape Vega and Vega-Lite expect, forwarding warnings and throwing on errors. */
function collectingLogger(onWarning: ((message: string) => void) | undefined) {
  const logger = {
    level: (_?: number) => (_ === undefined ? Warn : logger),
    error: (...args: readonly unknown[]): never => {
      throw new Error(args.map(String).join(' '));
    },
    warn: (...args: readonly unknown[]) => {
      onWarning?.(args.map(String).join(' '));
      return logger;
    },
    info: () => logger,
    debug: () => logger,
  };
  return logger;
}

/**
 * The Vega spec of any chart spec: Vega-Lite specs are compiled (warnings go to `onWarning`, never to the
 * console), Vega specs are returned as is.
 */
export function toVegaSpec(spec: ChartSpec, onWarning?: (message: string) => void): VegaSpec {
  if (!isVegaLiteSpec(spec)) return spec;
  return compile(spec, { logger: collectingLogger(onWarning) as never }).spec;
}

/** Options of {@link renderSvg}. */
export interface RenderSvgOptions {
  /** Chart name used in error messages. @default 'chart' */
  readonly chart?: string;
  /** Receives Vega warnings (e.g. an unsupported encoding); by default they are dropped. @default no-op */
  readonly onWarning?: (message: string) => void;
}

/**
 * Renders a Vega-Lite or Vega spec to a standalone SVG document string (CSS-pixel units, fonts by family name).
 * The text of the SVG uses the spec's fonts; text widths are estimated by Vega (no canvas in Node), so
 * layouts are computed identically on every machine.
 *
 * @throws {@link dantinox!DantinoxError} `RUNTIME_ERROR` when Vega cannot compile, parse or render the spec.
 */
export async function renderSvg(spec: ChartSpec, options: RenderSvgOptions = {}): Promise<string> {
  const chart = options.chart ?? 'chart';
  let view: View | undefined;
  try {
    const runtime = parse(toVegaSpec(spec, options.onWarning));
    view = new View(runtime, { renderer: 'none', logger: collectingLogger(options.onWarning) as never });
    return await view.toSVG();
  } catch (cause) {
    throw new DantinoxError('RUNTIME_ERROR', messages.renderFailed(chart, cause), { cause });
  } finally {
    view?.finalize();
  }
}
