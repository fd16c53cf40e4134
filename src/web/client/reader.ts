// The ceremony reader (dashboard): one person at a time in large type. Space plays the name; the
// arrow keys, Page Up / Page Down (what a presentation clicker sends), the big buttons or a swipe
// move; F or the button opens the full-screen presenter view. Every person carries their place in
// each order of the menu (`data-ranks`), so a change of order re-orders the list in place, and the
// page in any order is one page: one copy of it, its assets and every playable audio (recordings,
// approved computer voices and the computer's unchecked guesses) are kept on this device in the
// collection's cache, which the reader's service worker (`reader-sw.ts`) answers from when the
// network is gone: reload, a new order and playing all work offline. Without Cache Storage (a
// page not served over HTTPS) the audio is kept in memory instead, until the page is left. One shared audio element plays:
// a page of thousands of <audio> elements would exceed the browser's media player limit.
// Without this script the page is a plain list with links.
//
// Other scripts bring a person up with `window.voicenameReader.showPerson(personId)`.
(() => {
  const list = document.getElementById('script');
  const controls = document.getElementById('reader-controls');
  const help = document.getElementById('reader-help');
  const status = document.getElementById('load-status');
  const position = document.getElementById('position');
  const prev = document.getElementById('prev') as HTMLButtonElement | null;
  const next = document.getElementById('next') as HTMLButtonElement | null;
  const play = document.getElementById('play') as HTMLButtonElement | null;
  const presenter = document.getElementById('presenter') as HTMLButtonElement | null;
  const print = document.getElementById('print') as HTMLButtonElement | null;
  if (!list || !controls || !help || !status || !position || !prev || !next || !play || !presenter || !print) return;
  const people = Array.from(list.querySelectorAll<HTMLLIElement>('li.person'));
  if (people.length === 0) return;
  const orderForm = document.querySelector<HTMLFormElement>('form.order-form');
  const orderMenu = document.getElementById('reader-order') as HTMLSelectElement | null;
  const orderOptions = Array.from(orderMenu?.options ?? []);

  /** Where the device keeps what the reader needs: a cache of this collection's own, or memory. */
  interface Store {
    persistent: boolean;
    get(key: string): Promise<Blob | null>;
    has(key: string): Promise<boolean>;
    put(key: string, response: Response): Promise<void>;
    /** The version of the page kept under `key` (the server's `x-reader-page-version`), if any. */
    pageVersion(key: string): Promise<string | null>;
    /** Drops every kept copy not named (older versions of re-recorded audio). */
    keepOnly(keys: string[]): Promise<void>;
  }

  const absolute = (key: string) => new URL(key, location.href).href;

  function cacheStore(name: string): Store {
    const open = caches.open(name);
    return {
      persistent: true,
      get: async (key) => (await (await open).match(key, { ignoreVary: true }))?.blob() ?? null,
      has: async (key) => (await (await open).match(key, { ignoreVary: true })) !== undefined,
      put: async (key, response) => (await open).put(key, response),
      pageVersion: async (key) =>
        (await (await open).match(key, { ignoreVary: true }))?.headers.get('x-reader-page-version') ?? null,
      keepOnly: async (keys) => {
        const wanted = new Set(keys.map(absolute));
        const cache = await open;
        for (const request of await cache.keys()) if (!wanted.has(request.url)) await cache.delete(request);
      },
    };
  }

  function memoryStore(): Store {
    const blobs = new Map<string, Blob>();
    return {
      persistent: false,
      get: async (key) => blobs.get(key) ?? null,
      has: async (key) => blobs.has(key),
      put: async (key, response) => void blobs.set(key, await response.blob()),
      pageVersion: async () => null,
      keepOnly: async () => undefined,
    };
  }

  const collectionId = list.dataset.collectionId ?? '';
  const store = 'caches' in window && collectionId !== '' ? cacheStore(`voicename-reader:${collectionId}`) : memoryStore();

  const player = new Audio();
  player.preload = 'auto';
  let current = 0;
  /** The current person's audio as a blob: URL, ready before Play so it starts within the key press. */
  let prepared: { index: number; url: string } | null = null;

  document.body.classList.add('reader-live');
  controls.hidden = false;
  help.hidden = false;

  /** What a person plays, and the key of the device's copy (a new version is a new copy). */
  const playableOf = (index: number): { url: string; key: string } | null => {
    const person = people[index];
    const url = person?.dataset.audio ?? person?.dataset.speak;
    if (!person || url === undefined) return null;
    return { url, key: `${url}${url.includes('?') ? '&' : '?'}v=${encodeURIComponent(person.dataset.version ?? '')}` };
  };
  /** The play button says what it plays: their voice, their approved computer voice, or a guess. */
  const sourceLabelOf = (index: number): string => people[index]?.querySelector('.source-label')?.textContent?.trim() ?? '';

  const renderPlay = () => {
    const state = player.paused ? (player.ended ? 'ended' : 'paused') : 'playing';
    play.dataset.state = state;
    const hasAudio = playableOf(current) !== null;
    play.disabled = !hasAudio;
    const label = sourceLabelOf(current);
    play.textContent = !hasAudio
      ? 'Nothing to play'
      : state === 'playing'
        ? '❚❚ Pause'
        : `▶ Play${label === '' ? '' : ` (${label})`}`;
  };

  const prepare = async (index: number) => {
    const playable = playableOf(index);
    if (!playable) return;
    const blob = await store.get(playable.key).catch(() => null);
    if (!blob || index !== current || prepared?.index === index) return;
    if (prepared) URL.revokeObjectURL(prepared.url);
    prepared = { index, url: URL.createObjectURL(blob) };
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
    history.replaceState(null, '', `${location.pathname}${location.search}#${person.id}`);
    void prepare(current);
  };

  /**
   * Puts the list in `order` (a value of the menu) by everyone's rank in it, numbering them anew,
   * and says so in the address; the current person stays current. False for an unknown order.
   */
  const applyOrder = (order: string): boolean => {
    const column = orderOptions.findIndex((option) => option.value === order);
    if (column < 0 || !orderMenu) return false;
    const placed: (HTMLLIElement | undefined)[] = Array.from({ length: people.length });
    for (const person of people) placed[Number(person.dataset.ranks?.split(' ')[column])] = person;
    const ordered = placed.filter((person): person is HTMLLIElement => person !== undefined);
    // A page without every rank (an older copy) keeps its order rather than losing people.
    if (ordered.length !== people.length) return false;
    const label = orderOptions[column]?.textContent ?? '';
    const currentPerson = people[current];
    ordered.forEach((person, index) => {
      person.id = `person-${index + 1}`;
      const value = person.getAttribute(`data-value-${column}`);
      const seq = person.querySelector('.seq');
      if (seq) seq.textContent = `${index + 1} of ${ordered.length}${value === null ? '' : ` · ${label}: ${value}`}`;
    });
    list.append(...ordered);
    people.splice(0, people.length, ...ordered);
    list.dataset.order = order;
    orderMenu.value = order;
    const search = new URLSearchParams(location.search);
    search.set('order', order);
    history.replaceState(null, '', `${location.pathname}?${search.toString()}${location.hash}`);
    if (prepared) URL.revokeObjectURL(prepared.url);
    prepared = null;
    if (currentPerson) current = people.indexOf(currentPerson);
    return true;
  };

  /** Brings a person up by their id (stage sync, a scanned name card); false when they are not in this reader. */
  const showPerson = (personId: string): boolean => {
    const index = people.findIndex((person) => person.dataset.personId === personId);
    if (index < 0) return false;
    show(index);
    return true;
  };
  (window as unknown as { voicenameReader: { showPerson: typeof showPerson } }).voicenameReader = { showPerson };

  const startPlaying = (source: string) => {
    if (player.getAttribute('src') !== source) player.src = source;
    player.currentTime = 0;
    player.play().catch(() => renderPlay());
  };

  const togglePlay = () => {
    const playable = playableOf(current);
    if (playable === null) return;
    if (!player.paused) {
      player.pause();
      return;
    }
    if (prepared?.index === current) return startPlaying(prepared.url);
    const index = current;
    void store
      .get(playable.key)
      .catch(() => null)
      .then((blob) => {
        if (index !== current) return;
        if (!blob) return startPlaying(playable.url);
        prepared = { index, url: URL.createObjectURL(blob) };
        startPlaying(prepared.url);
      });
  };

  // The presenter view: the whole screen, the name and how to say it in the largest type. Where
  // the browser cannot go full screen (a phone), the page still shows only the presenter view.
  const setPresenting = (on: boolean) => {
    document.body.classList.toggle('presenting', on);
    presenter.setAttribute('aria-pressed', String(on));
    presenter.textContent = on ? 'Exit presenter view' : 'Presenter view';
  };
  const togglePresenter = () => {
    const on = !document.body.classList.contains('presenting');
    setPresenting(on);
    if (on && document.fullscreenEnabled && !document.fullscreenElement) {
      document.documentElement.requestFullscreen().catch(() => undefined);
    } else if (!on && document.fullscreenElement) {
      document.exitFullscreen().catch(() => undefined);
    }
  };
  document.addEventListener('fullscreenchange', () => {
    if (!document.fullscreenElement) setPresenting(false);
  });

  for (const event of ['play', 'playing', 'pause', 'ended', 'emptied']) player.addEventListener(event, renderPlay);
  prev.addEventListener('click', () => show(current - 1));
  next.addEventListener('click', () => show(current + 1));
  play.addEventListener('click', togglePlay);
  presenter.addEventListener('click', togglePresenter);
  print.addEventListener('click', () => window.print());

  const isSpace = (event: KeyboardEvent) => event.key === ' ' || event.key === 'Spacebar';
  const typingIn = (event: KeyboardEvent) => {
    const target = event.target as HTMLElement | null;
    return target !== null && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName);
  };
  // Captured on the window, before anything else sees it: Space never scrolls, never "clicks" a
  // focused button a second time (buttons act on key-up), never reaches the browser's own pages.
  window.addEventListener(
    'keydown',
    (event) => {
      if (event.altKey || event.ctrlKey || event.metaKey || typingIn(event)) return;
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
      if (isSpace(event)) {
        event.preventDefault();
        if (!event.repeat) togglePlay();
      } else if (event.key in moves) {
        event.preventDefault();
        show(moves[event.key] as number);
      } else if (event.key === 'f' || event.key === 'F') {
        event.preventDefault();
        togglePresenter();
      } else if (event.key === 'Escape' && document.body.classList.contains('presenting') && !document.fullscreenElement) {
        setPresenting(false);
      }
    },
    { capture: true },
  );
  window.addEventListener(
    'keyup',
    (event) => {
      if (isSpace(event) && !typingIn(event)) event.preventDefault();
    },
    { capture: true },
  );

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

  // The page may be the device's copy in another order (offline): the order in the address wins.
  const wanted = new URLSearchParams(location.search).get('order') ?? list.dataset.lineup ?? '';
  if (wanted !== list.dataset.order) applyOrder(wanted);
  const start = /^#person-(\d+)$/.exec(location.hash);
  show(start ? Number(start[1]) - 1 : 0);
  // A new order re-orders in place, with or without a network; without this script the form asks the server.
  orderForm?.addEventListener('submit', (event) => {
    event.preventDefault();
    if (orderMenu && applyOrder(orderMenu.value)) show(current);
  });

  // --- Keeping everything on the device ------------------------------------------------------
  /** One copy of the page serves every order (the worker answers any `?order=` with it). */
  const pageTask = { key: location.pathname, url: `${location.pathname}${location.search}` };
  const assets = Array.from(
    document.querySelectorAll<HTMLElement>('link[rel="stylesheet"], link[rel="icon"], script[src]'),
    (element) => element.getAttribute('href') ?? element.getAttribute('src') ?? '',
  ).filter((url) => url.startsWith('/'));
  /**
   * Assets are fetched again on every visit (a kept copy stays when that fails), audio only when
   * missing, the page only when the kept copy is not this one: the worker keeps every page it
   * fetches, so only a visit it did not answer (the first) fetches the page again.
   */
  const pageTasks = store.persistent ? [pageTask] : [];
  const assetTasks = store.persistent ? assets.map((url) => ({ key: url, url })) : [];
  const audioTasks = people
    .map((_, index) => playableOf(index))
    .filter((playable): playable is { url: string; key: string } => playable !== null);

  let audioDone = 0;
  let audioFailed = 0;
  const report = () => {
    const total = audioTasks.length;
    const kept = store.persistent ? 'saved on this device' : 'loaded';
    status.textContent =
      audioDone < total
        ? `Saving for use without a network: ${audioDone} of ${total} recordings and voices…`
        : audioFailed > 0
          ? `${total - audioFailed} of ${total} recordings and voices are ${kept}; ${audioFailed} could not be and need the network.`
          : total === 0
            ? `${people.length} people, none with anything to play yet.`
            : store.persistent
              ? `All ${total} recordings and voices are saved on this device: the reader works without a network, even after a reload or a change of order.`
              : `All ${total} recordings and voices are loaded: the reader keeps working without a network until this page is left.`;
  };

  /** Fetches a fresh copy (past the worker's kept one) and keeps it; else says whether an older copy is kept. */
  const keep = async (task: { key: string; url: string }): Promise<'fetched' | 'kept' | 'missing'> => {
    try {
      const response = await fetch(task.url, { credentials: 'same-origin', cache: 'no-store' });
      if (!response.ok || response.redirected) throw new Error(`HTTP ${response.status}`);
      await store.put(task.key, response);
      return 'fetched';
    } catch {
      return (await store.has(task.key).catch(() => false)) ? 'kept' : 'missing';
    }
  };

  const runAll = async <T>(tasks: T[], work: (task: T) => Promise<void>, parallel = 4) => {
    const queue = [...tasks];
    const worker = async () => {
      for (let task = queue.shift(); task !== undefined; task = queue.shift()) await work(task);
    };
    await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, worker));
  };

  const registerWorker = async (): Promise<boolean> => {
    const url = list.dataset.serviceWorker;
    if (!store.persistent || !url || !('serviceWorker' in navigator)) return false;
    try {
      await navigator.serviceWorker.register(url, { scope: location.pathname });
      await navigator.serviceWorker.ready;
      return true;
    } catch {
      return false;
    }
  };

  report();
  void (async () => {
    const worker = registerWorker();
    const pages: string[] = [];
    const keepPage = async (task: { key: string; url: string }) => {
      // The worker kept this very page on its way here: nothing to fetch again.
      const isThisPage = task === pageTask && (await store.pageVersion(task.key).catch(() => null)) === list.dataset.version;
      pages.push(isThisPage ? 'fetched' : await keep(task));
    };
    await runAll([...pageTasks, ...assetTasks], keepPage);
    await runAll(audioTasks, async (task) => {
      const ok = (await store.has(task.key).catch(() => false)) || (await keep(task)) !== 'missing';
      if (!ok) audioFailed++;
      audioDone++;
      report();
    });
    const allKept = audioFailed === 0 && !pages.includes('missing');
    // Older versions go only once the kept page is this one and every asset is fresh: a page
    // kept from an earlier visit may still name them.
    if (allKept && pages.every((result) => result === 'fetched')) {
      await store.keepOnly([...pageTasks, ...assetTasks, ...audioTasks].map((task) => task.key)).catch(() => undefined);
    }
    report();
    document.body.dataset.audio = audioFailed === 0 ? 'loaded' : 'partial';
    document.body.dataset.offline = allKept && (await worker) ? 'ready' : 'partial';
  })();
})();
