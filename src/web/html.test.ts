import { describe, expect, it } from 'vitest';
import { html, jsonForScript, unsafeRaw } from './html.js';

describe('html', () => {
  it('escapes every interpolation', () => {
    const name = `<script>alert("x")</script>' onload='x`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;x">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;x</p>',
    );
  });

  it('nests fragments and arrays without double escaping', () => {
    const items = ['a&b', 'c'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>`.value).toBe('<ul><li>a&amp;b</li><li>c</li></ul>');
    expect(html`${unsafeRaw('<br>')}${null}${undefined}${false}${0}`.value).toBe('<br>0');
  });

  it('keeps JSON in script elements inert', () => {
    const out = jsonForScript({ name: '</script><script>alert(1)</script>' }).value;
    expect(out).not.toContain('</script>');
    expect(JSON.parse(out)).toEqual({ name: '</script><script>alert(1)</script>' });
  });
});
