// Copy buttons of the dashboard: each `button[data-copy="<field id>"]` copies that read-only
// field's text; `data-copy-status="<id>"` names a live region that says so to screen readers.
// The buttons stay hidden without this script; the text stays selectable anyway.
(() => {
  for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-copy]'))) {
    const field = document.getElementById(button.dataset.copy ?? '') as HTMLInputElement | HTMLTextAreaElement | null;
    if (!field) continue;
    const status = button.dataset.copyStatus ? document.getElementById(button.dataset.copyStatus) : null;
    const label = button.textContent ?? 'Copy';
    if (!button.hasAttribute('aria-label')) {
      button.setAttribute('aria-label', `Copy ${field.labels?.[0]?.textContent?.trim() ?? 'link'}`);
    }
    button.hidden = false;
    let reset: ReturnType<typeof setTimeout> | undefined;
    button.addEventListener('click', () => {
      const done = (text: string, copied: boolean) => {
        button.textContent = text;
        if (status) status.textContent = copied ? 'Copied to the clipboard.' : '';
        clearTimeout(reset);
        reset = setTimeout(() => {
          button.textContent = label;
          if (status) status.textContent = '';
        }, 2000);
      };
      const fallback = () => {
        // Older browsers and plain-http origins other than localhost have no async clipboard.
        field.focus();
        field.select();
        const copied = document.execCommand('copy');
        done(copied ? 'Copied' : 'Press Ctrl+C', copied);
      };
      if (!navigator.clipboard) return fallback();
      navigator.clipboard.writeText(field.value).then(() => done('Copied', true), fallback);
    });
  }
})();
