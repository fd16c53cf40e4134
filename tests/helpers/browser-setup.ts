/**
 * Global setup of the browser project: finds (and, for the npm build, unpacks) Chromium once in
 * the main process, before test files start in parallel and would each unpack it. Says which
 * one it is, so a CI log shows whether the fallback was exercised.
 */
import { chromium } from './binaries.js';

export default function setup(): void {
  const { executablePath, source } = chromium();
  console.log(`browser tests: Chromium from ${source} (${executablePath})`);
}
