/**
 * `openBrowserPage`: the part of the browser target every model shares — the loopback server with the model's
 * files, headless Chromium, the page runtime and the onnxruntime-web session in it — and what the page measured
 * about itself (isolation, threads, timer, provider, adapter, node placement).
 *
 * @packageDocumentation
 */
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { DantinoxError, errorText } from '../../../errors.js';
import { messages } from '../../../messages.js';
import type { BrowserInfo } from '../../model.js';
import type { ModelConfig } from '../../model-config.js';
import type { BrowserProvider } from './browser-provider.js';
import { findBrowser } from './find-browser.js';
import { loadPlaywright, ortWebDist } from './load-playwright.js';
import { offProviderNodes, PLACEMENT_LOG_TAG } from './node-placement.js';
import { installPageRuntime, type PageFacts, type PageInit, type WithPageRuntime } from './page-runtime.js';
import { type PageServer, startPageServer } from './page-server.js';

/** What {@link openBrowserPage} opens: the model's files, where the page finds them, and how to run them. */
export interface OpenBrowserPageOptions {
  /** Files served under `/model/<base name>`: the ONNX file and its external data, if any. */
  readonly modelFiles: readonly string[];
  /** What the page's `init` gets, without the server-relative parts (`ortBase`, URLs), which are filled in here. */
  readonly init: Omit<PageInit, 'ortBase' | 'modelUrl' | 'externalData'>;
  /** Base name of the ONNX file among `modelFiles`. */
  readonly modelName: string;
  /** Base names of the graph's external-data files, as the graph names them (each among `modelFiles`). */
  readonly externalDataNames?: readonly string[] | undefined;
  /** The Chromium executable. @default found on `PATH`, else `/usr/bin/chromium` */
  readonly browserPath?: string | undefined;
  /** Serve the page cross-origin isolated. @default true */
  readonly isolated?: boolean | undefined;
}

/** The page's `init` for a model of `config`: its cache layout, and how to run it. */
export function pageInit(
  config: ModelConfig,
  run: {
    readonly threads: number;
    readonly provider: BrowserProvider;
    readonly force: boolean;
    readonly hasPositionIds: boolean;
  },
): OpenBrowserPageOptions['init'] {
  return {
    threads: run.threads,
    provider: run.provider,
    allowFallbackAdapter: run.force,
    numBlocks: config.numBlocks,
    kvHeads: config.kvHeads,
    headSize: config.headSize,
    maxContext: config.maxContext,
    hasPositionIds: run.hasPositionIds,
  };
}

/** A page with an open onnxruntime-web session, and what it reported. */
export interface OpenedPage {
  /** The browser (close it to end everything in it). */
  readonly browser: Browser;
  /** The page holding the session. */
  readonly page: Page;
  /** The loopback server the page was loaded from. */
  readonly server: PageServer;
  /** What the page measured after opening the session. */
  readonly facts: PageFacts;
  /** The browser facts of the model's info. */
  readonly browserInfo: BrowserInfo;
}

/** The execution provider's onnxruntime-web script. */
const ORT_SCRIPTS: Readonly<Record<BrowserProvider, string>> = {
  wasm: 'ort.wasm.min.js',
  webgpu: 'ort.webgpu.min.js',
};

/** Turns a failure of the page's `init` into the error a user can act on. */
function initError(cause: unknown): DantinoxError {
  const text = errorText(cause);
  if (text.includes('NO_WEBGPU_ADAPTER'))
    return new DantinoxError('UNSUPPORTED', messages.noWebgpuAdapter(), { cause });
  const fallback = /FALLBACK_ADAPTER (\S*) (\S*)/.exec(text);
  if (fallback !== null)
    return new DantinoxError('UNSUPPORTED', messages.fallbackAdapter(fallback[1] ?? '', fallback[2] ?? ''), {
      cause,
    });
  return new DantinoxError('RUNTIME_ERROR', messages.pageFailed('opening the model', cause), { cause });
}

/**
 * Starts the loopback server for `options.modelFiles`, launches Chromium headless, installs the page runtime and
 * opens the session; reads the session's node placement from the page's console while it is created.
 *
 * @throws {@link dantinox!DantinoxError} `DEPENDENCY_MISSING` without Chromium (naming `--browser-path`),
 *   playwright-core or onnxruntime-web; `UNSUPPORTED` for WebGPU without an adapter or on a fallback adapter (unless
 *   allowed); `RUNTIME_ERROR` when the browser or the page fails.
 */
export async function openBrowserPage(options: OpenBrowserPageOptions): Promise<OpenedPage> {
  const { provider } = options.init;
  const executablePath = findBrowser(options.browserPath);
  const { chromium } = await loadPlaywright();
  const ortDist = ortWebDist();
  let server: PageServer | undefined;
  let browser: Browser | undefined;
  try {
    server = await startPageServer({
      ortDist,
      ortScript: ORT_SCRIPTS[provider],
      modelFiles: options.modelFiles,
      isolated: options.isolated !== false,
    });
    try {
      browser = await chromium.launch({
        executablePath,
        headless: true,
        args: [
          '--no-sandbox',
          '--disable-background-networking',
          '--disable-component-update',
          ...(provider === 'webgpu' ? ['--enable-unsafe-webgpu'] : ['--disable-gpu']),
        ],
      });
    } catch (cause) {
      throw new DantinoxError('RUNTIME_ERROR', messages.browserLaunchFailed(executablePath, cause), {
        cause,
      });
    }
    const page = await browser.newPage();
    // The session's placement lines, printed to the page's console while it is created.
    const placement: string[] = [];
    const onConsole = (message: ConsoleMessage): void => {
      const text = message.text();
      if (text.includes(PLACEMENT_LOG_TAG)) placement.push(text);
    };
    page.on('console', onConsole);
    await page.goto(`${server.origin}/`);
    const model = `${server.origin}/model/`;
    const init: PageInit = {
      ...options.init,
      ortBase: `${server.origin}/ort/`,
      modelUrl: `${model}${options.modelName}`,
      externalData: (options.externalDataNames ?? []).map((name) => ({ path: name, url: `${model}${name}` })),
    };
    let facts: PageFacts;
    try {
      await page.evaluate(installPageRuntime);
      facts = await page.evaluate(
        (i) => (globalThis as unknown as WithPageRuntime).dantinoxPage.init(i),
        init,
      );
    } catch (cause) {
      throw initError(cause);
    } finally {
      page.off('console', onConsole);
    }
    const offProvider = offProviderNodes(placement, provider);
    const browserInfo: BrowserInfo = {
      name: `${browser.browserType().name()} ${browser.version()}`,
      crossOriginIsolated: facts.crossOriginIsolated,
      hardwareConcurrency: facts.hardwareConcurrency,
      threadsUsed: facts.threads,
      threadsAsked: options.init.threads,
      timerResolutionMs: facts.timerResolutionMs,
      provider: facts.provider,
      ...(facts.adapter === undefined ? {} : { adapter: facts.adapter }),
      ...(offProvider === undefined ? {} : { offProvider }),
    };
    return { browser, page, server, facts, browserInfo };
  } catch (error) {
    await browser?.close().catch(() => undefined);
    await server?.close();
    throw error;
  }
}
