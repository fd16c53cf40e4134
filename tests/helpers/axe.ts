/**
 * Accessibility checks with axe-core in real Chromium. axe is evaluated in every frame of the
 * page through the DevTools protocol (so our pages' CSP, which forbids inline scripts, does not
 * block it) and run frame by frame: the host page checks the frames' titles (`frame-title`),
 * each frame its own content, whatever its origin.
 */
import axe from 'axe-core';
import type { Frame, Page } from 'playwright-core';
import { expect } from 'vitest';

export interface AxeFinding {
  frame: string;
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

async function runAxe(frame: Frame): Promise<AxeFinding[]> {
  await frame.evaluate(axe.source);
  const violations = await frame.evaluate(async () => {
    const result = await (window as unknown as { axe: typeof axe }).axe.run(document, {
      iframes: false,
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  return violations.map((v) => ({ ...v, frame: frame.url() }));
}

/** Every axe violation of the page and its frames. */
export async function axeViolations(page: Page): Promise<AxeFinding[]> {
  const findings: AxeFinding[] = [];
  for (const frame of page.frames()) findings.push(...(await runAxe(frame)));
  return findings;
}

/** Fails the test, listing them, when the page or a frame has a serious or critical violation. */
export async function expectNoSeriousAxeViolations(page: Page): Promise<void> {
  const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious).toEqual([]);
}
