// The ceremony reader (dashboard): one person at a time in large type. Space plays the name,
// the arrow keys (or the big buttons, or a swipe) move. Every recording (and approved computer
// voice) is first fetched into a blob: URL, a few at a time, so once loading is done the ceremony
// goes on without a network; a computer's unchecked guess (`data-speak`) is spoken when played.
// One shared audio element plays them: a page of thousands of <audio> elements would exceed
// the browser's media player limit. Without this script the page is a plain list with links.
(() => {
  const list = document.getElementById('script');
  const controls = document.getElementById('reader-controls');
  const help = document.getElementById('reader-help');
  const status = document.getElementById('load-status');
  const position = document.getElementById('position');
  const prev = document.getElementById('prev') as HTMLButtonElement | null;
  const next = document.getElementById('next') as HTMLButtonElement | null;
  const play = document.getElementById('play') as HTMLButtonElement | null;
  const print = document.getElementById('print') as HTMLButtonElement | null;
  if (!list || !controls || !help || !status || !position || !prev || !next || !play || !print) return;
  const people = Array.from(list.querySelectorAll<HTMLLIElement>('li.person'));
  if (people.length === 0) return;

  const player = new Audio();
  player.preload = 'auto';
  /** Preloaded audio by the network URL it came from. */
  const loadedUrls = new Map<string, string>();
  let current = 0;

  document.body.classList.add('reader-live');
  controls.hidden = false;
  help.hidden = false;

  const audioUrlOf = (index: number): string | null => people[index]?.dataset.audio ?? people[index]?.dataset.speak ?? null;
  /** The play button says what it plays: their voice, their approved computer voice, or a guess. */
  const sourceLabelOf = (index: number): string => people[index]?.querySelector('.source-label')?.textContent?.trim() ?? '';

  const renderPlay = () => {
    const state = player.paused ? (player.ended ? 'ended' : 'paused') : 'playing';
    play.dataset.state = state;
    const hasAudio = audioUrlOf(current) !== null;
    play.disabled = !hasAudio;
    const label = sourceLabelOf(current);
    play.textContent = !hasAudio
      ? 'Nothing to play'
      : state === 'playing'
        ? '❚❚ Pause'
        : `▶ Play${label === '' ? '' : ` (${label})`}`;
  };

  const show = (index: number) => {
    const target = Math.max(0, Math.min(people.length - 1, index));
    if (target !== current || !people[target]?.classList.contains('current')) player.pause();
    people[current]?.classList.remove('current');
    current = target;
    const person = people[current] as HTMLLIElement;
    person.classList.add('current');
    position.textContent = `${current + 1} of ${people.length}`;
    prev.disabled = current === 0;
    next.disabled = current === people.length - 1;
    player.removeAttribute('src');
    renderPlay();
    history.replaceState(null, '', `#${person.id}`);
  };

  const togglePlay = () => {
    const url = audioUrlOf(current);
    if (url === null) return;
    if (!player.paused) {
      player.pause();
      return;
    }
    const source = loadedUrls.get(url) ?? url;
    if (player.getAttribute('src') !== source) player.src = source;
    player.currentTime = 0;
    player.play().catch(() => renderPlay());
  };

  for (const event of ['play', 'playing', 'pause', 'ended', 'emptied']) player.addEventListener(event, renderPlay);
  prev.addEventListener('click', () => show(current - 1));
  next.addEventListener('click', () => show(current + 1));
  play.addEventListener('click', togglePlay);
  print.addEventListener('click', () => window.print());

  document.addEventListener('keydown', (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target as HTMLElement | null;
    if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
    const moves: Record<string, number> = {
      ArrowRight: current + 1,
      ArrowDown: current + 1,
      PageDown: current + 1,
      ArrowLeft: current - 1,
      ArrowUp: current - 1,
      PageUp: current - 1,
      Home: 0,
      End: people.length - 1,
    };
    if (event.key === ' ' || event.key === 'Spacebar') {
      // Also stops a focused button from being "clicked" by the same Space press.
      event.preventDefault();
      togglePlay();
    } else if (event.key in moves) {
      event.preventDefault();
      show(moves[event.key] as number);
    }
  });

  // A horizontal swipe on a tablet moves like the arrow keys.
  let touchX: number | null = null;
  list.addEventListener('touchstart', (event) => (touchX = event.touches[0]?.clientX ?? null), { passive: true });
  list.addEventListener(
    'touchend',
    (event) => {
      const endX = event.changedTouches[0]?.clientX;
      if (touchX !== null && endX !== undefined && Math.abs(endX - touchX) > 60) show(current + (endX < touchX ? 1 : -1));
      touchX = null;
    },
    { passive: true },
  );

  // The stage scanner (reader-sync.ts) brings a person up by their id.
  document.addEventListener('reader:show-person', (event) => {
    const index = people.findIndex((person) => person.dataset.personId === (event as CustomEvent<string>).detail);
    if (index >= 0) show(index);
  });

  const start = /^#person-(\d+)$/.exec(location.hash);
  show(start ? Number(start[1]) - 1 : 0);

  // Preload every recording and approved voice, four at a time, with visible progress.
  const urls = people.map((person) => person.dataset.audio).filter((url): url is string => typeof url === 'string');
  if (urls.length === 0) {
    status.textContent = `${people.length} people, none with a recording yet.`;
    return;
  }
  let done = 0;
  let failed = 0;
  const report = () => {
    status.textContent =
      done < urls.length
        ? `Loading recordings: ${done} of ${urls.length}…`
        : failed === 0
          ? `All ${urls.length} recordings are loaded: the reader keeps working without a network.`
          : `${urls.length - failed} of ${urls.length} recordings are loaded; ${failed} could not be and need the network.`;
  };
  report();
  const queue = [...urls];
  const worker = async () => {
    for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
      try {
        const response = await fetch(url, { credentials: 'same-origin' });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        loadedUrls.set(url, URL.createObjectURL(await response.blob()));
      } catch {
        failed++;
      }
      done++;
      report();
    }
  };
  void Promise.all(Array.from({ length: Math.min(4, urls.length) }, worker)).then(() => {
    document.body.dataset.audio = failed === 0 ? 'loaded' : 'partial';
  });
})();
