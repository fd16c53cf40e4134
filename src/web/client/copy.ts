// Copy buttons of the dashboard: each `button[data-copy="<field id>"]` copies that read-only
// field's text. The buttons stay hidden without this script; the text stays selectable anyway.
(() => {
  for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-copy]'))) {
    const field = document.getElementById(button.dataset.copy ?? '') as HTMLInputElement | null;
    if (!field) continue;
    const label = button.textContent ?? 'Copy';
    button.setAttribute('aria-label', `Copy ${field.labels?.[0]?.textContent?.trim() ?? 'link'}`);
    button.hidden = false;
    let reset: ReturnType<typeof setTimeout> | undefined;
    button.addEventListener('click', () => {
      const done = (text: string) => {
        button.textContent = text;
        clearTimeout(reset);
        reset = setTimeout(() => {
          button.textContent = label;
        }, 1500);
      };
      const fallback = () => {
        // Older browsers and plain-http origins other than localhost have no async clipboard.
        field.focus();
        field.select();
        done(document.execCommand('copy') ? 'Copied' : 'Press Ctrl+C');
      };
      if (!navigator.clipboard) return fallback();
      navigator.clipboard.writeText(field.value).then(() => done('Copied'), fallback);
    });
  }
})();
