/**
 * The API reference page (/docs/reference): names Scalar's icon-only copy buttons for screen
 * readers (its bundle leaves them without text). Scalar draws and redraws its content after load,
 * so buttons are labelled as they appear.
 */
const label = (): void => {
  for (const button of document.querySelectorAll<HTMLButtonElement>('button.scalar-code-copy:not([aria-label])')) {
    button.setAttribute('aria-label', 'Copy code');
  }
};
new MutationObserver(label).observe(document.body, { childList: true, subtree: true });
label();
