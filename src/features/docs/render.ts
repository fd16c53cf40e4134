/**
 * Markdown of `docs/*.md` to HTML, escaped by construction: raw HTML in the markdown (blocks and
 * inline tags) is shown as text, never passed through; code is escaped here; link targets other
 * than http(s), mailto, relative paths and fragments are dropped (a `javascript:` link becomes
 * its text). Links between guides (`webhooks.md#x`) point at their pages (`/docs/webhooks#x`).
 * Headings get GitHub's ids, so the anchors the guides already use keep working.
 */
import { Marked, type Tokens } from 'marked';
import { escapeHtml, SafeHtml } from '../../web/html.js';

export interface RenderedGuide {
  /** The text of the first `# heading`. */
  title: string;
  /** The article's HTML, without that first heading (the page prints it). */
  body: SafeHtml;
  /** Second-level headings, for "On this page". */
  sections: { id: string; text: string }[];
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const SAFE_SCHEME = /^(https?|mailto):/i;
const GUIDE_LINK = /^(?:\.\/)?([a-z0-9-]+)\.md(#[\w-]*)?$/;

/** Plain text of rendered inline HTML (heading text → slug and table of contents). */
const textOf = (markup: string): string =>
  markup
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#96;/g, '`')
    .replace(/&amp;/g, '&');

/** GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function slugger() {
  const seen = new Map<string, number>();
  return (text: string): string => {
    const base = text
      .toLowerCase()
      .trim()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return count === 0 ? base : `${base}-${count}`;
  };
}

/** `guides` are the slugs served under /docs; a link to another `.md` file stays as written. */
export function renderGuide(markdown: string, guides: ReadonlySet<string>): RenderedGuide {
  const slug = slugger();
  let title = '';
  const sections: RenderedGuide['sections'] = [];
  const marked = new Marked({
    gfm: true,
    renderer: {
      html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
      code({ text, lang }: Tokens.Code) {
        const language = (lang ?? '').split(/\s+/)[0]?.replace(/[^\w+-]/g, '') ?? '';
        const label = language ? ` data-lang="${language}"` : '';
        const cls = language ? ` class="language-${language}"` : '';
        return `<pre${label} tabindex="0"><code${cls}>${escapeHtml(text)}</code></pre>\n`;
      },
      heading({ tokens, depth }: Tokens.Heading) {
        const inner = this.parser.parseInline(tokens);
        const text = textOf(inner);
        if (depth === 1 && !title) {
          title = text;
          return '';
        }
        const id = slug(text);
        if (depth === 2) sections.push({ id, text });
        return `<h${depth} id="${escapeHtml(id)}">${inner} <a class="anchor" href="#${escapeHtml(id)}" aria-label="Link to this section: ${escapeHtml(text)}">#</a></h${depth}>\n`;
      },
      link({ href, title: linkTitle, tokens }: Tokens.Link) {
        const inner = this.parser.parseInline(tokens);
        // Browsers ignore tabs, newlines and leading spaces in a URL: so does this check.
        const bare = href.replace(/[\u0000-\u0020]/g, '');
        if (SCHEME.test(bare) && !SAFE_SCHEME.test(bare)) return inner;
        const guide = GUIDE_LINK.exec(href);
        const target = guide && guides.has(guide[1] as string) ? `/docs/${guide[1]}${guide[2] ?? ''}` : href;
        const titleAttr = linkTitle ? ` title="${escapeHtml(linkTitle)}"` : '';
        return `<a href="${escapeHtml(target)}"${titleAttr}>${inner}</a>`;
      },
      // The guides have no pictures; an image would be a request the page's policy refuses.
      image: ({ text }: Tokens.Image) => escapeHtml(text),
    },
    hooks: {
      // Wide tables scroll inside their own box, so a phone never scrolls the page sideways.
      postprocess: (out: string) =>
        out.replaceAll('<table>', '<div class="table-wrap" tabindex="0"><table>').replaceAll('</table>', '</table></div>'),
    },
  });
  const body = marked.parse(markdown, { async: false });
  // Every interpolation above is escaped (escapeHtml, or marked's own escaping of text).
  return { title, body: new SafeHtml(body), sections };
}
