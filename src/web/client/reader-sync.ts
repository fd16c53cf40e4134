// Stage sync for the ceremony reader: when the stage scanner reads a name card, the server
// sends the person's id on this collection's event stream, and the reader brings them up
// (reader.ts listens for `reader:show-person`). EventSource reconnects by itself after a
// dropped network or a server restart; the stream asks for a retry within a second.
(() => {
  const list = document.getElementById('script');
  const url = list?.dataset.stageEvents;
  if (!list || !url || typeof EventSource === 'undefined') return;
  const events = new EventSource(url);
  events.addEventListener('open', () => (list.dataset.stageSync = 'connected'));
  events.addEventListener('error', () => (list.dataset.stageSync = 'reconnecting'));
  events.addEventListener('show', (event) => {
    const { user_id: personId } = JSON.parse((event as MessageEvent<string>).data) as { user_id: string };
    document.dispatchEvent(new CustomEvent('reader:show-person', { detail: personId }));
  });
})();
