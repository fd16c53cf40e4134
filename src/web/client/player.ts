// Player page enhancements: big play/pause button, replay, 0.75x toggle, copy buttons (labels come
// from the page, already in its language).
// Without this script the page still works: the native <audio controls> plays the recording.
(() => {
  const audio = document.getElementById('audio') as HTMLAudioElement | null;
  const controls = document.getElementById('controls');
  const play = document.getElementById('play') as HTMLButtonElement | null;
  const replay = document.getElementById('replay') as HTMLButtonElement | null;
  const slow = document.getElementById('slow') as HTMLButtonElement | null;
  if (!audio || !controls || !play || !replay || !slow) return;

  controls.hidden = false;
  audio.controls = false;
  audio.classList.add('enhanced');

  const render = () => {
    const playing = !audio.paused && !audio.ended;
    play.classList.toggle('playing', playing);
    play.setAttribute('aria-label', (playing ? play.dataset.labelPause : play.dataset.labelPlay) ?? '');
    const icon = play.querySelector('.icon');
    if (icon) icon.textContent = playing ? '\u275A\u275A' : '\u25B6';
  };
  const start = () => {
    audio.play().catch(() => {
      // Autoplay refused or the audio failed: show the native controls as a fallback.
      audio.controls = true;
    });
  };

  play.addEventListener('click', () => (audio.paused || audio.ended ? start() : audio.pause()));
  replay.addEventListener('click', () => {
    audio.currentTime = 0;
    start();
  });
  slow.addEventListener('click', () => {
    const on = slow.getAttribute('aria-pressed') !== 'true';
    slow.setAttribute('aria-pressed', String(on));
    audio.defaultPlaybackRate = on ? 0.75 : 1;
    audio.playbackRate = on ? 0.75 : 1;
  });
  // Some browsers reset the rate when a new source loads; keep the user's choice.
  audio.addEventListener('play', () => {
    audio.playbackRate = slow.getAttribute('aria-pressed') === 'true' ? 0.75 : 1;
  });
  for (const event of ['play', 'pause', 'ended']) audio.addEventListener(event, render);

  for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-copy]'))) {
    button.hidden = false;
    const label = button.textContent ?? 'Copy';
    const copy = async (): Promise<void> => {
      const field = document.getElementById(button.dataset.copy ?? '') as HTMLInputElement | HTMLTextAreaElement | null;
      if (!field) return;
      try {
        await navigator.clipboard.writeText(field.value);
      } catch {
        field.select();
        document.execCommand('copy');
      }
      button.textContent = button.dataset.labelCopied ?? label;
      setTimeout(() => {
        button.textContent = label;
      }, 1500);
    };
    button.addEventListener('click', () => void copy());
  }
})();
