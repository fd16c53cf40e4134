// Embed widget: swaps the native audio controls for a play/pause button next to the name.
(() => {
  const audio = document.getElementById('a') as HTMLAudioElement | null;
  const button = document.getElementById('b') as HTMLButtonElement | null;
  const icon = document.getElementById('i');
  if (!audio || !button || !icon) return;
  document.documentElement.classList.add('js');
  audio.controls = false;
  const render = () => {
    const playing = !audio.paused && !audio.ended;
    icon.textContent = playing ? '\u275A\u275A' : '\u25B6';
    button.setAttribute('aria-label', (playing ? button.dataset.labelPause : button.dataset.labelPlay) ?? '');
  };
  button.addEventListener('click', () => {
    if (audio.paused || audio.ended) audio.play().catch(() => undefined);
    else audio.pause();
  });
  for (const event of ['play', 'pause', 'ended']) audio.addEventListener(event, render);
})();
