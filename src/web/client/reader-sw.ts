// The ceremony reader's service worker, one per collection: served at
// /dashboard/collections/<id>/reader-sw.js and registered for the scope …/<id>/reader, so it
// controls that collection's reader pages and nothing else, and keeps its copies in that
// collection's cache ("voicename-reader:<id>", which `reader.ts` fills: the page, its assets and
// every playable audio). The page comes from the network while there is one (a kept copy after a
// few seconds of a network that hangs, or at once offline), and every page fetched replaces the
// kept copy, so an organiser's rejection reaches the device on the next visit online. One copy
// serves every `?order=`: the page puts itself in the order its address names. Everything else
// the page asks for comes from the kept copy first. A 404 or a redirect to sign-in for the page means
// this browser lost access: the collection's cache is dropped. Signing out clears them all.
(() => {
  interface ExtendableEvent extends Event {
    waitUntil(promise: Promise<unknown>): void;
  }
  interface FetchEvent extends ExtendableEvent {
    request: Request;
    respondWith(response: Promise<Response>): void;
  }
  interface WorkerScope {
    location: Location;
    skipWaiting(): Promise<void>;
    clients: { claim(): Promise<void> };
    addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
    addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
  }

  const worker = self as unknown as WorkerScope;
  const readerPath = worker.location.pathname.replace(/-sw\.js$/, '');
  const collectionId = /^\/dashboard\/collections\/([^/]+)\/reader$/.exec(readerPath)?.[1];
  if (!collectionId) return;
  const CACHE = `voicename-reader:${collectionId}`;
  /** How long a page request may hang before the kept copy is shown (stage Wi-Fi that is "connected" but dead). */
  const NETWORK_GRACE_MS = 3000;

  worker.addEventListener('install', (event) => event.waitUntil(worker.skipWaiting()));
  worker.addEventListener('activate', (event) => event.waitUntil(worker.clients.claim()));

  function page(event: FetchEvent): Promise<Response> {
    // The one kept page, whatever the order asked for (as `reader.ts` keeps it).
    const key = readerPath;
    const cache = caches.open(CACHE);
    const network = fetch(event.request).then(async (response) => {
      if (response.ok && response.type === 'basic') await (await cache).put(key, response.clone());
      else if (response.status === 404 || response.type === 'opaqueredirect') await caches.delete(CACHE);
      return response;
    });
    // The kept copy is updated even when the page was answered from it.
    event.waitUntil(network.catch(() => undefined));
    return cache.then(async (opened) => {
      const copy = await opened.match(key, { ignoreVary: true });
      const answer = network.catch((error: unknown) => {
        if (copy) return copy;
        throw error;
      });
      if (!copy) return answer;
      return Promise.race([answer, new Promise<Response>((resolve) => setTimeout(() => resolve(copy), NETWORK_GRACE_MS))]);
    });
  }

  /**
   * Assets and audio: the kept copy first, else the network. A request for a fresh copy
   * (`cache: 'no-store'`: the page refreshing what it keeps) goes to the network only, so the page
   * learns whether it got one.
   */
  async function kept(request: Request): Promise<Response> {
    if (request.cache === 'no-store') return fetch(request);
    const copy = await (await caches.open(CACHE)).match(request, { ignoreVary: true });
    if (copy && request.cache !== 'reload') return copy;
    try {
      return await fetch(request);
    } catch (error) {
      if (copy) return copy;
      throw error;
    }
  }

  worker.addEventListener('fetch', (event) => {
    const { request } = event;
    const url = new URL(request.url);
    if (request.method !== 'GET' || url.origin !== worker.location.origin) return;
    if (request.mode === 'navigate') {
      if (url.pathname === readerPath) event.respondWith(page(event));
      return;
    }
    event.respondWith(kept(request));
  });
})();
