// Copy buttons: `<button type="button" data-copy="<id of an input>" hidden>` copies that field's
// value. Without this script the buttons stay hidden and the value stays selectable in its field.
(() => {
  for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-copy]'))) {
    const field = document.getElementById(button.dataset.copy ?? '') as HTMLInputElement | HTMLTextAreaElement | null;
    if (!field) continue;
    const status = button.dataset.copyStatus ? document.getElementById(button.dataset.copyStatus) : null;
    const label = button.textContent ?? 'Copy';
    const copy = async (): Promise<void> => {
      try {
        await navigator.clipboard.writeText(field.value);
      } catch {
        // No clipboard API (an insecure origin, an old browser): the selection still works.
        field.select();
        document.execCommand('copy');
      }
      button.textContent = 'Copied';
      if (status) status.textContent = 'Copied to the clipboard.';
      setTimeout(() => {
        button.textContent = label;
        if (status) status.textContent = '';
      }, 2000);
    };
    button.addEventListener('click', () => void copy());
    button.hidden = false;
  }
})();
