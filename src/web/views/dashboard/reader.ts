/**
 * The ceremony reader: the whole collection as an ordered script. Without a script it is a
 * list with a link to each recording (and prints as the script). `reader.ts` turns it into
 * one person at a time in large type, with keyboard, clicker, button and swipe navigation and a
 * full-screen presenter view, and keeps the page and every playable audio on the device (a
 * service worker and its cache) so a reload or a dropped network does not stop the ceremony.
 */
import { html, type SafeHtml } from '../../html.js';
import type { CollectionItem } from './collections.js';
import { type GuideView, guideLines, SOURCE_LABELS, type SourceKind } from './coverage.js';
import { layout, type Viewer } from './layout.js';

/** Why a person's recording is not played: an organiser rejected it, or review is required and nobody approved it yet. */
type WithheldReason = 'rejected' | 'unreviewed';

const WITHHELD_NOTES: Record<WithheldReason, string> = {
  rejected: 'an organiser asked for a new one',
  unreviewed: 'not reviewed yet',
};

export interface ReaderPerson {
  id: string;
  display_name: string;
  preferred_name: string | null;
  pronouns: string | null;
  phonetic_spelling: string | null;
  /** The ordering custom field's label and value, when the order is by one. */
  order_value: { label: string; value: string } | null;
  guide: GuideView;
  /**
   * What the reader plays, best first: their recording, their approved computer voice, or the
   * computer's unchecked guess; all kept on the device ahead of the ceremony, each under its
   * `version` (a new version replaces the kept copy).
   */
  source: { kind: SourceKind; url: string; version: string } | null;
  /** Set when the person has a recording the reader must not play (then `source` is the guide's, if any). */
  withheld: WithheldReason | null;
  /** Their place (from 0) in each order of the menu, in the menu's order: the script re-orders by these. */
  ranks: number[];
  /** Their value of each order's custom field, in the menu's order (null: not a field's order, or no value). */
  order_values: (string | null)[];
}

/** The response header (and `data-version` of the script) naming this rendering of the page. */
export const READER_PAGE_VERSION_HEADER = 'x-reader-page-version';

export interface ReaderOrderOption {
  value: string;
  label: string;
}

function entry(person: ReaderPerson, index: number, total: number): SafeHtml {
  const extra = [
    person.preferred_name ? html`Preferred name: <strong>${person.preferred_name}</strong>` : null,
    person.pronouns ? html`Pronouns: <strong>${person.pronouns}</strong>` : null,
  ].filter((part): part is SafeHtml => part !== null);
  const { source } = person;
  // A guess is spoken on demand (`data-speak`): only stored audio is loaded ahead (`data-audio`).
  const audio = source
    ? html` data-${source.kind === 'unchecked_guess' ? 'speak' : 'audio'}="${source.url}" data-source="${source.kind}" data-version="${source.version}"`
    : '';
  const values = person.order_values.map((value, i) => (value === null ? '' : html` data-value-${i}="${value}"`));
  return html`<li class="person" id="person-${index + 1}" data-person-id="${person.id}" data-ranks="${person.ranks.join(' ')}"${values}${audio}>
<p class="seq">${index + 1} of ${total}${person.order_value ? html` · ${person.order_value.label}: ${person.order_value.value}` : ''}</p>
<h2 class="name">${person.display_name}</h2>
${extra.length > 0 ? html`<p class="preferred">${extra.map((part, i) => html`${i > 0 ? ' · ' : ''}${part}`)}</p>` : ''}
${
  person.phonetic_spelling
    ? html`<p class="phonetic">${person.phonetic_spelling}</p>`
    : person.guide.respelling || person.guide.ipa
      ? ''
      : html`<p class="phonetic muted">No phonetic spelling</p>`
}
${guideLines(person.guide)}
${person.withheld ? html`<p class="withheld">No approved recording <span class="muted">(${WITHHELD_NOTES[person.withheld]})</span></p>` : ''}
${
  source
    ? html`<p class="listen"><a href="${source.url}">Play</a> <span class="source-label source-${source.kind}">${SOURCE_LABELS[source.kind]}</span></p>`
    : html`<p class="no-recording">Nothing to play yet</p>`
}
</li>`;
}

/**
 * People `from` to `to` (not included) of the script, numbered in the whole line-up: the route
 * renders 5,000 people in slices, giving other requests a turn between them (`readerPage`'s `entries`).
 */
export const readerEntries = (people: ReaderPerson[], from: number, to: number): SafeHtml =>
  html`${people.slice(from, to).map((person, i) => entry(person, from + i, people.length))}`;

export function readerPage(data: {
  /** This rendering's version (`READER_PAGE_VERSION_HEADER`). */
  version: string;
  /** The collection's line-up order: the order of an address without `?order=`. */
  lineup: string;
  styleUrl: string;
  readerStyleUrl: string;
  scriptUrl: string;
  /** `reader-sync.ts`: brings up whoever the stage scanner shows. */
  syncScriptUrl: string;
  viewer: Viewer;
  collection: CollectionItem;
  orders: ReaderOrderOption[];
  order: string;
  people: ReaderPerson[] | null;
  /** Every person's entry, in order, in slices (`readerEntries`). */
  entries: SafeHtml[];
  maxPeople: number;
}): SafeHtml {
  const { collection, people } = data;
  const recorded = people?.filter((p) => p.source?.kind === 'recording').length ?? 0;
  const readerPath = `/dashboard/collections/${collection.id}/reader`;
  const live = people !== null && people.length > 0;
  return layout({
    title: `Reader · ${collection.name}`,
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    styles: [data.readerStyleUrl],
    scripts: live ? [data.scriptUrl, data.syncScriptUrl] : [],
    ...(live ? { manifest: `${readerPath}.webmanifest` } : {}),
    bodyClass: 'reader-page',
    body: html`<div class="reader-bar">
<p class="back"><a href="/dashboard/collections/${collection.id}">← ${collection.name}</a></p>
<h1>Reader: ${collection.name}</h1>
<form method="get" action="/dashboard/collections/${collection.id}/reader" class="row order-form">
<label for="reader-order">Order</label>
<select id="reader-order" name="order">${data.orders.map(
      (o) => html`<option value="${o.value}"${o.value === data.order ? html` selected` : ''}>${o.label}</option>`,
    )}</select>
<button type="submit">Apply</button>
</form>
<p class="row stage-links"><a href="/dashboard/collections/${collection.id}/cards">Name cards</a> <a href="/dashboard/collections/${collection.id}/stage">Stage scanner</a></p>
</div>
${
  people === null
    ? html`<p class="alert" id="too-many">This collection has more than ${data.maxPeople} people, more than one reader page can hold with its recordings. Split the ceremony into collections of at most ${data.maxPeople}.</p>`
    : people.length === 0
      ? html`<p class="empty" id="no-people">Nobody in this collection yet.</p>`
      : html`<p id="load-status" class="load-status" role="status" aria-live="polite">${people.length} people, ${recorded} with a recording.</p>
<div id="reader-controls" class="reader-controls" hidden>
<button type="button" id="prev" class="big" aria-keyshortcuts="ArrowLeft">← Previous</button>
<p id="position" class="position" aria-live="polite"></p>
<button type="button" id="play" class="big primary" aria-keyshortcuts="Space">▶ Play</button>
<button type="button" id="next" class="big" aria-keyshortcuts="ArrowRight">Next →</button>
<button type="button" id="presenter" aria-keyshortcuts="F" aria-pressed="false">Presenter view</button>
<button type="button" id="print">Print script</button>
</div>
<p id="reader-help" class="muted reader-help" hidden>Space plays the name; ← and →, or Page Up and Page Down (a presentation clicker), move (or swipe); F opens the full-screen presenter view. The whole list prints as the script.</p>
<ol id="script" class="script" data-collection-id="${collection.id}" data-order="${data.order}" data-lineup="${data.lineup}" data-version="${data.version}" data-service-worker="${readerPath}-sw.js" data-stage-events="/dashboard/collections/${collection.id}/stage/events">${data.entries}</ol>`
}`,
  });
}
