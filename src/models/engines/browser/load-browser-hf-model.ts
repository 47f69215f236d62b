/**
 * `loadBrowserHfModel`: a Hugging Face ONNX folder (the transformers.js layout the Node engine loads) run by
 * onnxruntime-web in a headless Chromium page — the same ONNX file and external data, served from loopback.
 *
 * @packageDocumentation
 */
import { basename, dirname, join } from 'node:path';
import { decoderIo } from '../../hf/hf-decoder-io.js';
import { checkHfGraph } from '../../hf/hf-graph-check.js';
import { readHfFolder, weightDtype } from '../../hf/hf-model.js';
import { countOnnxParameters } from '../../hf/onnx-file-info.js';
import type { ModelInfo } from '../../model.js';
import type { BuiltinDtype } from '../../onnx/precision.js';
import { weightFileBytes } from '../../weight-file-bytes.js';
import { checkThreads } from '../threads.js';
import { BrowserModel } from './browser-model.js';
import { browserProvider } from './browser-provider.js';
import { findBrowser } from './find-browser.js';
import { openBrowserPage, pageInit } from './open-browser-page.js';
import type { PageHfIo, WithPageRuntime } from './page-runtime.js';

/** Options of {@link loadBrowserHfModel}. */
export interface LoadBrowserHfModelOptions {
  /** WASM threads asked of onnxruntime-web (honoured only in an isolated page). @default os.availableParallelism() */
  readonly threads?: number;
  /** Name reported in `info.name`. @default the folder name */
  readonly name?: string;
  /** `wasm` (`cpu` is taken as `wasm`) or `webgpu`. @default 'wasm' */
  readonly executionProvider?: string;
  /** The dtype file of the folder (`fp32` → `onnx/model.onnx`, `q4` → `onnx/model_q4.onnx`…). @default 'fp32' */
  readonly dtype?: BuiltinDtype;
  /** The Chromium executable. @default the first Chromium or Chrome on `PATH`, else `/usr/bin/chromium` */
  readonly browserPath?: string;
  /** Serve the page cross-origin isolated (COOP + COEP). @default true */
  readonly isolated?: boolean;
  /** Accept a fallback (software) WebGPU adapter. @default false */
  readonly force?: boolean;
}

/**
 * Reads and checks `folder` as the Node engine does (`config.json`, `tokenizer.json`, the dtype's ONNX file and its
 * external data), serves that file and its external data to a cross-origin isolated page and opens it there with
 * onnxruntime-web; the graph's I/O is checked against the decoder-with-past convention from the page's session.
 *
 * @example
 * ```ts
 * const model = await loadBrowserHfModel('models/gpt2', { threads: 2, dtype: 'q8' });
 * await model.dispose();
 * ```
 * @throws {@link dantinox!DantinoxError} as `loadHfModel` for the folder; `INVALID_OPTION` for bad threads or
 *   provider; `DEPENDENCY_MISSING` without Chromium (naming `--browser-path`); `RUNTIME_ERROR` when the page
 *   cannot open the graph (naming the dtype file and `--dtype`).
 */
export async function loadBrowserHfModel(
  folder: string,
  options: LoadBrowserHfModelOptions = {},
): Promise<BrowserModel> {
  const threads = checkThreads(options.threads);
  const provider = browserProvider(options.executionProvider);
  findBrowser(options.browserPath);
  const { dir, configPath, onnxPath, hf, tokenizer, graph } = readHfFolder(folder, {
    dtype: options.dtype ?? 'fp32',
  });
  const { config } = hf;
  const external = [
    ...new Set(
      graph.initializers.flatMap((t) => (t.externalLocation === undefined ? [] : [t.externalLocation])),
    ),
  ];
  const opened = await openBrowserPage({
    modelFiles: [onnxPath, ...external.map((location) => join(dirname(onnxPath), location))],
    modelName: basename(onnxPath),
    externalDataNames: external,
    browserPath: options.browserPath,
    isolated: options.isolated,
    init: pageInit(config, { threads, provider, force: options.force === true, hasPositionIds: false }),
  });
  try {
    const io = decoderIo(opened.facts.io, config, onnxPath);
    checkHfGraph(hf, graph, configPath, onnxPath);
    const pageIo: PageHfIo = {
      inputIds: io.inputIds,
      idsType: io.idsType,
      attentionMask: io.attentionMask,
      positionIds: io.positionIds,
      useCacheBranch: io.useCacheBranch,
      pastNames: io.pastNames,
      presentNames: io.presentNames,
      logits: io.logits,
      pastType: io.past.type,
      kvHeads: io.past.kvHeads,
      headSize: io.past.headSize,
    };
    await opened.page.evaluate(
      (i) => (globalThis as unknown as WithPageRuntime).dantinoxPage.useHfIo(i),
      pageIo,
    );
    const info: ModelInfo = {
      name: options.name ?? basename(dir),
      engine: `onnxruntime-web ${opened.facts.ortVersion} (${provider})`,
      threads: opened.facts.threads,
      dtype: weightDtype(onnxPath, io),
      weightBytes: weightFileBytes(onnxPath),
      target: 'browser',
      browser: opened.browserInfo,
    };
    return new BrowserModel({
      config,
      info,
      page: opened,
      tokenizer,
      parameters: countOnnxParameters(graph.initializers, config),
      hf: true,
    });
  } catch (error) {
    await opened.browser.close().catch(() => undefined);
    await opened.server.close();
    throw error;
  }
}
