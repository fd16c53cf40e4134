/**
 * Stage sync pages: the printable name cards of a collection, in its line-up order, and the
 * stage scanner a volunteer holds at the stage stairs. Cards print four to a sheet (A4 or
 * Letter), each a hand-sized quarter: a ceremony of 500 prints on 125 sheets, cut once across and
 * once down, where one card per sheet would take 500.
 */
import { html, type SafeHtml } from '../../html.js';
import type { CollectionItem } from './collections.js';
import type { GuideView } from './coverage.js';
import { canChange, csrfField, layout, type Viewer } from './layout.js';

export interface NameCard {
  id: string;
  display_name: string;
  phonetic_spelling: string | null;
  guide: Pick<GuideView, 'respelling' | 'not_like'>;
  /** The ordering custom field's label and value, when the line-up is by one. */
  order_value: { label: string; value: string } | null;
  /** `ABCDE-FGHJK`: printed under the QR code, which carries exactly this text. */
  code: string;
  /** The QR code's dark modules as one SVG path in a square of `size` modules, its quiet zone included. */
  qr: { size: number; path: string };
}

/** Which page of cards this is (from 1) of how many, where its first card stands in the line-up (from 0), of how many cards. */
export interface CardPages {
  page: number;
  pages: number;
  first: number;
  total: number;
  perPage: number;
}

export interface LineupChoice {
  value: string;
  label: string;
}

const CARDS_PER_SHEET = 4;
/** Names longer than this get a smaller size, so they stay on two lines of a card. */
const LONG_NAME = 28;

function qrCode(card: NameCard): SafeHtml {
  const { size, path } = card.qr;
  return html`<svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" role="img" aria-label="QR code of card ${card.code}" shape-rendering="crispEdges"><rect width="${size}" height="${size}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`;
}

function nameCard(card: NameCard, index: number): SafeHtml {
  return html`<article class="name-card" data-person-id="${card.id}" data-code="${card.code}">
<p class="card-seq">${index + 1}${card.order_value ? html` · ${card.order_value.label}: <bdi>${card.order_value.value}</bdi>` : ''}</p>
<h2 class="card-name${card.display_name.length > LONG_NAME ? ' long' : ''}" dir="auto">${card.display_name}</h2>
${card.guide.respelling ? html`<p class="card-respelling">${card.guide.respelling}</p>` : ''}
${card.guide.not_like ? html`<p class="card-not-like">Not like “<bdi>${card.guide.not_like}</bdi>”</p>` : ''}
${card.phonetic_spelling ? html`<p class="card-phonetic">Phonetic spelling: <bdi>${card.phonetic_spelling}</bdi></p>` : ''}
<div class="card-code">${qrCode(card)}<p class="code">${card.code}</p></div>
</article>`;
}

/** Links to every page of cards when there is more than one (each prints on its own). */
function cardPages(base: string, pages: CardPages): SafeHtml {
  if (pages.pages < 2) return html``;
  const range = (page: number) => `${(page - 1) * pages.perPage + 1}–${Math.min(page * pages.perPage, pages.total)}`;
  const next =
    pages.page < pages.pages
      ? html`<p><a rel="next" href="${base}/cards?page=${pages.page + 1}">Next cards: ${range(pages.page + 1)}</a></p>`
      : '';
  return html`<nav aria-label="Pages of cards" class="card-pages"><p>${pages.total} cards, ${pages.perPage} a page: print each page in turn.</p>
${next}<ul class="plain row">${Array.from({ length: pages.pages }, (_, i) => i + 1).map((page) =>
    page === pages.page
      ? html`<li><strong aria-current="page">Cards ${range(page)}</strong></li>`
      : html`<li><a href="${base}/cards?page=${page}">Cards ${range(page)}</a></li>`,
  )}</ul></nav>`;
}

function lineupForm(collectionId: string, viewer: Viewer, choices: LineupChoice[], lineup: string): SafeHtml {
  const current = choices.find((c) => c.value === lineup)?.label ?? lineup;
  if (!canChange(viewer)) return html`<p id="lineup-order">Line-up order: <strong>${current}</strong></p>`;
  return html`<form method="post" action="/dashboard/collections/${collectionId}/lineup" class="row lineup-form">
${csrfField(viewer.csrfToken)}
<label for="lineup-order">Line-up order</label>
<select id="lineup-order" name="order">${choices.map(
    (c) => html`<option value="${c.value}"${c.value === lineup ? html` selected` : ''}>${c.label}</option>`,
  )}</select>
<button type="submit">Save line-up</button>
</form>`;
}

export function nameCardsPage(data: {
  styleUrl: string;
  stageStyleUrl: string;
  viewer: Viewer;
  collection: CollectionItem;
  choices: LineupChoice[];
  lineup: string;
  notice: string | null;
  /** This page's cards; null when the collection has more people than the reader holds. */
  cards: NameCard[] | null;
  maxPeople: number;
  pages: CardPages;
}): SafeHtml {
  const { collection, cards, pages } = data;
  const sheets: NameCard[][] = [];
  for (let i = 0; cards && i < cards.length; i += CARDS_PER_SHEET) sheets.push(cards.slice(i, i + CARDS_PER_SHEET));
  const base = `/dashboard/collections/${collection.id}`;
  return layout({
    title: `Name cards · ${collection.name}`,
    styleUrl: data.styleUrl,
    styles: [data.stageStyleUrl],
    viewer: data.viewer,
    section: 'collections',
    notice: data.notice,
    bodyClass: 'cards-page',
    body: html`<div class="cards-bar">
<p class="back"><a href="${base}">← ${collection.name}</a></p>
<h1>Name cards: ${collection.name}</h1>
<p>One card per person in the line-up order, four to a printed page (A4 or Letter): cut once across and once down. The reader follows the same order. At the stage stairs, scan each card with the <a href="${base}/stage">stage scanner</a>: the person comes up on every open <a href="${base}/reader">reader</a>. A card’s QR code holds only its code, which means nothing outside this collection.</p>
${lineupForm(collection.id, data.viewer, data.choices, data.lineup)}
<p class="muted">Print with your browser’s Print command; choose no headers and footers.</p>
${cardPages(base, pages)}
</div>
${
  cards === null
    ? html`<p class="alert" id="too-many">This collection has more than ${data.maxPeople} people, more than one page of cards can hold. Split the ceremony into collections of at most ${data.maxPeople}.</p>`
    : cards.length === 0
      ? html`<p class="empty" id="no-people">Nobody in this collection yet.</p>`
      : html`<div class="sheets" id="cards">${sheets.map(
          (sheet, s) =>
            html`<section class="sheet" aria-label="Printed page ${s + 1} of ${sheets.length}">${sheet.map((card, i) =>
              nameCard(card, pages.first + s * CARDS_PER_SHEET + i),
            )}</section>`,
        )}</div>`
}`,
  });
}

export function stageScannerPage(data: {
  styleUrl: string;
  stageStyleUrl: string;
  scriptUrl: string;
  viewer: Viewer;
  collection: CollectionItem;
  /** What the last scan did: who is shown now, or why nobody is. */
  result: { shown: string } | { error: string } | null;
}): SafeHtml {
  const { collection, result } = data;
  const base = `/dashboard/collections/${collection.id}`;
  return layout({
    title: `Stage scanner · ${collection.name}`,
    styleUrl: data.styleUrl,
    styles: [data.stageStyleUrl],
    scripts: [data.scriptUrl],
    viewer: data.viewer,
    section: 'collections',
    bodyClass: 'scanner-page',
    body: html`<section class="card narrow scanner">
<p class="back"><a href="${base}">← ${collection.name}</a></p>
<h1>Stage scanner</h1>
<p>Scan each person’s name card as they reach the stage: their name comes up on every open <a href="${base}/reader">reader</a> of ${collection.name}.</p>
<div id="camera" class="camera" hidden>
<video id="camera-view" playsinline muted aria-label="Camera view"></video>
<button type="button" id="camera-stop">Stop the camera</button>
</div>
<p><button type="button" id="camera-start" class="primary big" hidden>Scan a card with the camera</button></p>
<form method="post" action="${base}/stage/show" id="code-form" class="stack">
${csrfField(data.viewer.csrfToken)}
<label for="card-code">Or type the code printed under the QR code</label>
<input id="card-code" name="code" required maxlength="20" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="ABCDE-12345"${
      result && 'error' in result ? html` aria-invalid="true" aria-describedby="scan-status"` : ''
    }>
<button type="submit">Show on the readers</button>
</form>
<p id="scan-status" class="${result && 'error' in result ? 'alert' : 'scan-status'}" role="status" aria-live="polite">${
      result === null
        ? ''
        : 'shown' in result
          ? html`Now on the readers: <strong dir="auto">${result.shown}</strong>`
          : result.error
    }</p>
</section>`,
  });
}
