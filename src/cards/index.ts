/**
 * Preview cards and signature badges: SVG templates (card.ts, badge.ts) laid out with the
 * shipped Noto fonts (fonts.ts) and rendered to PNG off the event loop (renderer.ts).
 */
export { BADGE_SCALES, BADGE_THEMES, type BadgeScale, type BadgeTheme, signatureBadge } from './badge.js';
export { previewCard } from './card.js';
export { FontBook } from './fonts.js';
export { type ImageRenderer, ImageRendererBusyError, type Picture, WorkerImageRenderer } from './renderer.js';

import { FontBook } from './fonts.js';
import { type ImageRenderer, WorkerImageRenderer } from './renderer.js';

/** What `deps.cards` holds: the fonts (metrics for layout) and the renderer, both loaded lazily. */
export interface Cards {
  fonts: FontBook;
  renderer: ImageRenderer;
}

export function createCards(options: { onRender?: (ms: number) => void } = {}): Cards {
  return { fonts: new FontBook(), renderer: new WorkerImageRenderer(options) };
}
