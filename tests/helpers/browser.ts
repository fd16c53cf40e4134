/**
 * Real headless Chromium (Debian's `chromium`, driven by playwright-core). Never downloads a
 * browser: set CHROMIUM_PATH if it is not at /usr/bin/chromium.
 */
import fs from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const chromiumPath = (): string => process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = (): boolean => fs.existsSync(chromiumPath());

export interface LaunchOptions {
  /** WAV file the fake microphone plays (Chromium loops it). */
  fakeMicrophoneWav?: string;
}

export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--autoplay-policy=no-user-gesture-required',
  ];
  if (options.fakeMicrophoneWav) {
    args.push(
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${options.fakeMicrophoneWav}`,
    );
  }
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args });
}
