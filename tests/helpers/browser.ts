/**
 * Real headless Chromium driven by playwright-core, which never downloads a browser: the
 * executable is Debian's `chromium` when present, else the build inside @sparticuz/chromium
 * (see binaries.ts for the order and CHROMIUM_PATH).
 */
import { type Browser, type Page, chromium as playwrightChromium } from 'playwright-core';
import type { TestApp } from './app.js';
import { chromium } from './binaries.js';
import { lastSignInLink } from './dashboard.js';

export interface LaunchOptions {
  /** WAV file the fake microphone plays (Chromium loops it). */
  fakeMicrophoneWav?: string;
  /**
   * Host names the browser resolves to loopback, so a page can be served under a plain-HTTP name
   * that is not `localhost` (browsers treat localhost as a secure context; other names are not).
   */
  loopbackHosts?: string[];
}

/**
 * @sparticuz/chromium's flags minus three: two would switch off what the browser tests check (the
 * same-origin policy, the refusal of mixed content), and `--single-process`, which serverless
 * sandboxes need but with which closing one browser context brings down the whole browser.
 */
async function sparticuzArgs(): Promise<string[]> {
  const { default: sparticuz } = await import('@sparticuz/chromium');
  const unwanted = new Set(['--disable-web-security', '--allow-running-insecure-content', '--single-process']);
  return sparticuz.args.filter((arg) => !unwanted.has(arg));
}

export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  const binary = chromium();
  const args = [
    ...(binary.source === '@sparticuz/chromium' ? await sparticuzArgs() : []),
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
  if (options.loopbackHosts?.length) {
    args.push(`--host-resolver-rules=${options.loopbackHosts.map((host) => `MAP ${host} 127.0.0.1`).join(', ')}`);
  }
  return playwrightChromium.launch({ executablePath: binary.executablePath, headless: true, args });
}

/** Signs `email` in to the dashboard in `page` as a person does: the form, then the e-mailed link; resolves on the overview. */
export async function signInByLink(page: Page, t: Pick<TestApp, 'deps'> & { url: string }, email: string): Promise<void> {
  await page.goto(`${t.url}/dashboard/sign-in`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Send sign-in link' }).click();
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  await page.goto(lastSignInLink(t, email));
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}
