/**
 * A card's QR code as an SVG path, drawn here from the modules `qrcode` computes: a collection
 * of 5,000 cards is 5,000 codes on one page, and one path of runs per row is a fraction of the
 * markup (and of the time) of the library's SVG output, with nothing to escape.
 */
import QRCode from 'qrcode';

/** Modules of white around the code (the standard asks for 4; the card around it is white too). */
const QUIET_ZONE = 2;

export interface QrPath {
  /** Width and height in modules, quiet zone included. */
  size: number;
  /** The dark modules, one `M x y h w v 1 H x z` run per horizontal stretch. */
  path: string;
}

/**
 * Drawn codes kept per process, by text: a card's code never changes, and drawing one (its mask
 * chosen among eight) takes 0.25-0.4 ms, so a page of cards seen again (a reprint, the next
 * organiser) costs markup only. About 1.5 kB each: a collection of READER_MAX_PEOPLE fits.
 */
const drawn = new Map<string, QrPath>();
const MAX_DRAWN = 5_000;

export function qrPath(text: string): QrPath {
  const kept = drawn.get(text);
  if (kept) {
    // Most recently used last: the first key is the one to drop when full.
    drawn.delete(text);
    drawn.set(text, kept);
    return kept;
  }
  const qr = drawQrPath(text);
  if (drawn.size >= MAX_DRAWN) drawn.delete(drawn.keys().next().value as string);
  drawn.set(text, qr);
  return qr;
}

function drawQrPath(text: string): QrPath {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const n = modules.size;
  // Row by row, one byte per module (what `modules.get` reads, without a call per module).
  const dark = modules.data;
  let path = '';
  for (let y = 0; y < n; y++) {
    const row = y * n;
    let x = 0;
    while (x < n) {
      if (!dark[row + x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < n && dark[row + x]) x++;
      const left = start + QUIET_ZONE;
      path += `M${left} ${y + QUIET_ZONE}h${x - start}v1H${left}z`;
    }
  }
  return { size: n + 2 * QUIET_ZONE, path };
}
