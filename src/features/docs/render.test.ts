import { describe, expect, it } from 'vitest';
import { renderGuide } from './render.js';

const render = (markdown: string) => renderGuide(markdown, new Set(['webhooks', 'privacy']));

describe('renderGuide', () => {
  it('shows raw HTML as text, inline and as blocks, and escapes code', () => {
    const { body } = render(
      'Hi <script>alert(1)</script> <img src=x onerror=alert(1)>\n\n<div onclick="x">block</div>\n\n```sh\necho "<b>"\n```\n',
    );
    const out = body.toString();
    expect(out).not.toMatch(/<(script|img|div onclick)/);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain('&lt;div onclick=&quot;x&quot;&gt;block&lt;/div&gt;');
    expect(out).toContain('<pre data-lang="sh" tabindex="0"><code class="language-sh">echo &quot;&lt;b&gt;&quot;</code></pre>');
  });

  it('drops links to other schemes, and points links between guides at their pages', () => {
    const out = render(
      '[a](javascript:alert(1)) [b](java\tscript:x) [c](data:text/html,x) [d](webhooks.md#invitation-events) [e](privacy.md) [f](../README.md) [g](https://example.com/x "T") [h](mailto:a@example.com)',
    ).body.toString();
    expect(out).not.toMatch(/javascript|data:/);
    expect(out).toContain('<a href="/docs/webhooks#invitation-events">d</a>');
    expect(out).toContain('<a href="/docs/privacy">e</a>');
    expect(out).toContain('<a href="../README.md">f</a>');
    expect(out).toContain('<a href="https://example.com/x" title="T">g</a>');
    expect(out).toContain('<a href="mailto:a@example.com">h</a>');
  });

  it("takes the title from the first heading and gives the others GitHub's ids and an anchor", () => {
    const guide = render(
      '# Webhooks\n\n## The `recording.completed` event\n\n### Retries & limits\n\n## The `recording.completed` event\n',
    );
    expect(guide.title).toBe('Webhooks');
    expect(guide.body.toString()).not.toContain('<h1');
    expect(guide.sections).toEqual([
      { id: 'the-recordingcompleted-event', text: 'The recording.completed event' },
      { id: 'the-recordingcompleted-event-1', text: 'The recording.completed event' },
    ]);
    expect(guide.body.toString()).toContain(
      '<h3 id="retries--limits">Retries &amp; limits <a class="anchor" href="#retries--limits"',
    );
  });

  it('puts tables in a box of their own that scrolls sideways', () => {
    expect(render('| a | b |\n|---|---|\n| 1 | 2 |\n').body.toString().trim()).toMatch(
      /^<div class="table-wrap" tabindex="0"><table>[\s\S]*<\/table><\/div>$/,
    );
  });
});
