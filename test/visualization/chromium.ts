/**
 * Headless system Chromium (Debian `chromium`, driven by playwright-core) for the tests that open pages: the
 * binary's path (`CHROMIUM_PATH` overrides), the flags that keep it offline and quiet, and a launcher.
 */
import { type Browser, chromium } from 'playwright-core';

/** Path of the Chromium binary. */
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Flags: headless, no sandbox (containers), no GPU, no background network traffic. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-quic',
  '--no-first-run',
  '--disable-sync',
];

/** Launches headless Chromium; close it when done. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
}
