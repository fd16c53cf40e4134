/**
 * How a person's name will be said, as the dashboard shows it: the coverage state in words (the
 * people table, the collection's progress), and the guide itself (respelling, IPA, "not like")
 * with the label of the source the reader plays.
 */
import { html, type SafeHtml } from '../../html.js';

/** The API's coverage states (`COVERAGE_STATES`), best source first. */
export type CoverageState = 'recording' | 'computer_voice' | 'guide' | 'none';
export const COVERAGE_ORDER: readonly CoverageState[] = ['recording', 'computer_voice', 'guide', 'none'];

/** What the table and the filter call each state: who, or what, will say the name. */
export const COVERAGE_LABELS: Record<CoverageState, string> = {
  recording: 'Their voice',
  computer_voice: 'Computer voice (approved)',
  guide: 'Guide only',
  none: 'Nothing yet',
};

const COVERAGE_TONES: Record<CoverageState, string> = { recording: 'ok', computer_voice: 'ok', guide: 'wait', none: 'off' };

export const coverageBadge = (coverage: CoverageState): SafeHtml =>
  html`<span class="badge ${COVERAGE_TONES[coverage]}" data-coverage="${coverage}">${COVERAGE_LABELS[coverage]}</span>`;

/** The collection's people by coverage, under its progress bar: how many names are covered, and how. */
export function coverageCounts(counts: Record<CoverageState, number>): SafeHtml {
  return html`<ul class="plain row coverage-counts" id="coverage-counts" aria-label="Names said by">${COVERAGE_ORDER.map(
    (state) => html`<li data-coverage="${state}">${COVERAGE_LABELS[state]}: <strong>${counts[state]}</strong></li>`,
  )}</ul>`;
}

/** A guide as pages show it (the API's `pronunciation`, the fields a reader needs). */
export interface GuideView {
  coverage: CoverageState;
  respelling: string | null;
  ipa: string | null;
  not_like: string | null;
  approved_at: string | null;
}

/** Respelling, IPA and "not like …", each only when there is one. */
export function guideLines(guide: GuideView): SafeHtml {
  if (!guide.respelling && !guide.ipa) return html``;
  return html`<p class="guide">${guide.respelling ? html`<span class="respelling">${guide.respelling}</span>` : ''}${
    guide.ipa ? html` <span class="ipa" lang="und-fonipa">/${guide.ipa}/</span>` : ''
  }${guide.not_like ? html`<br><span class="not-like">Not like “${guide.not_like}”</span>` : ''}</p>`;
}

/** What the reader plays, named so nobody mistakes a computer's guess for the person. */
export type SourceKind = 'recording' | 'approved_voice' | 'unchecked_guess';
export const SOURCE_LABELS: Record<SourceKind, string> = {
  recording: 'their voice',
  approved_voice: 'computer voice, approved by them',
  unchecked_guess: 'computer guess, not checked',
};
