// Review at speed (dashboard): the people table's and review mode's review forms are sent in
// place (the route answers JSON when asked), a recording that starts playing is marked as
// listened, and review mode gets its keys: Space plays, A approves, R asks again with a note,
// J/K or the arrows move, N goes to the next unreviewed. Without this script every control is a
// plain form and the page reloads.
(() => {
  const csrf = document.querySelector<HTMLInputElement>('input[name="csrf"]')?.value ?? '';
  const itemOf = (el: Element): HTMLElement | null => el.closest<HTMLElement>('[data-person-id]');

  // The listened marker: once per recording and page, when it really plays.
  for (const audio of Array.from(document.querySelectorAll<HTMLAudioElement>('audio[data-listened]'))) {
    let sent = false;
    audio.addEventListener('playing', () => {
      if (sent) return;
      sent = true;
      void fetch(audio.dataset.listened as string, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ csrf }),
      }).then((res) => {
        if (!res.ok) sent = false;
      });
    });
    // One recording at a time: starting one pauses any other.
    audio.addEventListener('play', () => {
      for (const other of Array.from(document.querySelectorAll('audio'))) if (other !== audio) other.pause();
    });
  }

  interface Decided {
    recording_status: string;
    review_note: string | null;
    label: { text: string; tone: string };
  }

  const say = (item: HTMLElement, text: string, failed = false) => {
    const message = item.querySelector<HTMLElement>('.review-message');
    if (!message) return;
    message.textContent = text;
    message.classList.toggle('error', failed);
  };

  const applyDecision = (item: HTMLElement, decided: Decided) => {
    item.dataset.status = decided.recording_status;
    const badge = item.querySelector('.review-status .badge');
    if (badge) {
      badge.textContent = decided.label.text;
      badge.className = `badge ${decided.label.tone}`;
    }
    const approve = item.querySelector<HTMLFormElement>('form.review-approve');
    if (approve) approve.hidden = decided.recording_status === 'approved';
    const details = item.querySelector<HTMLDetailsElement>('details.ask-again');
    if (details && decided.recording_status === 'needs_rerecord') details.open = false;
    const note = item.querySelector<HTMLTextAreaElement>('details.ask-again textarea');
    if (note && decided.recording_status === 'needs_rerecord') note.value = '';
    say(
      item,
      decided.recording_status === 'approved'
        ? 'Approved.'
        : `Asked for a new recording: “${decided.review_note ?? ''}”. They read the note on their record page.`,
    );
  };

  /** Sends one review form in place; true when the decision was saved. */
  const send = async (form: HTMLFormElement): Promise<boolean> => {
    const item = itemOf(form);
    if (!item) return false;
    const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
    if (button) button.disabled = true;
    try {
      const res = await fetch(form.action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams(new FormData(form) as unknown as Record<string, string>),
      });
      const answer = (await res.json().catch(() => null)) as (Decided & { error?: { message: string } }) | null;
      if (!res.ok || !answer || answer.error) {
        say(item, answer?.error?.message ?? 'Not saved: reload the page and try again.', true);
        return false;
      }
      applyDecision(item, answer);
      return true;
    } catch {
      say(item, 'Not saved: the connection failed. Try again.', true);
      return false;
    } finally {
      if (button) button.disabled = false;
    }
  };

  const afterDecision: { hook: ((item: HTMLElement) => void) | null } = { hook: null };
  document.addEventListener('submit', (event) => {
    const form = event.target as HTMLFormElement;
    if (!form.matches('form[data-review-form]')) return;
    if (!form.checkValidity()) return;
    event.preventDefault();
    void send(form).then((saved) => {
      const item = itemOf(form);
      if (saved && item) afterDecision.hook?.(item);
    });
  });

  // Review mode.
  const queue = document.getElementById('review-queue');
  if (!queue) return;
  const items = Array.from(queue.querySelectorAll<HTMLElement>('li.review-item'));
  const position = document.getElementById('review-position');
  const more = document.getElementById('review-more') as HTMLAnchorElement | null;
  let current = 0;

  const show = (index: number) => {
    const target = Math.max(0, Math.min(items.length - 1, index));
    items[current]?.querySelector('audio')?.pause();
    items[current]?.classList.remove('current');
    items[current]?.removeAttribute('aria-current');
    current = target;
    const item = items[current] as HTMLElement;
    item.classList.add('current');
    item.setAttribute('aria-current', 'true');
    item.focus({ preventScroll: true });
    item.scrollIntoView({ block: 'nearest' });
    // The next recording loads while this one is heard.
    const next = items[current + 1]?.querySelector('audio');
    if (next) next.preload = 'auto';
    if (position) position.textContent = `${current + 1} of ${items.length} on this page`;
  };

  const unreviewed = (item: HTMLElement) => item.dataset.status === 'recorded';
  const nextUnreviewed = () => {
    for (let step = 1; step <= items.length; step++) {
      const index = (current + step) % items.length;
      if (unreviewed(items[index] as HTMLElement)) return show(index);
    }
    // Everyone on this page is decided: the next page holds the next people awaiting a decision.
    if (more) window.location.assign(more.href);
    else if (position) position.textContent = 'Every recording on this page is decided.';
  };
  afterDecision.hook = (item) => {
    if (item === items[current]) nextUnreviewed();
  };

  queue.addEventListener('focusin', (event) => {
    const item = itemOf(event.target as Element);
    const index = item ? items.indexOf(item) : -1;
    if (index >= 0 && index !== current) {
      items[current]?.classList.remove('current');
      items[current]?.removeAttribute('aria-current');
      current = index;
      item?.classList.add('current');
      item?.setAttribute('aria-current', 'true');
      if (position) position.textContent = `${current + 1} of ${items.length} on this page`;
    }
  });

  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as HTMLElement;
    const item = items[current] as HTMLElement;
    if (target instanceof HTMLTextAreaElement) {
      if (event.key === 'Escape') {
        event.preventDefault();
        const details = target.closest('details');
        if (details) details.open = false;
        item.focus();
      } else if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        target.form?.requestSubmit();
      }
      return;
    }
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement) return;
    const onControl = target instanceof HTMLButtonElement || target instanceof HTMLAnchorElement || target.tagName === 'SUMMARY';
    switch (event.key) {
      case ' ': {
        if (onControl || target instanceof HTMLAudioElement) return;
        event.preventDefault();
        const audio = item.querySelector('audio');
        if (audio) void (audio.paused ? audio.play() : Promise.resolve(audio.pause()));
        return;
      }
      case 'a':
      case 'A': {
        const approve = item.querySelector<HTMLFormElement>('form.review-approve');
        if (!approve) return;
        event.preventDefault();
        if (approve.hidden) nextUnreviewed();
        else approve.requestSubmit();
        return;
      }
      case 'r':
      case 'R': {
        const details = item.querySelector<HTMLDetailsElement>('details.ask-again');
        if (!details) return;
        event.preventDefault();
        details.open = true;
        details.querySelector('textarea')?.focus();
        return;
      }
      case 'j':
      case 'J':
      case 'ArrowDown':
        event.preventDefault();
        show(current + 1);
        return;
      case 'k':
      case 'K':
      case 'ArrowUp':
        event.preventDefault();
        show(current - 1);
        return;
      case 'n':
      case 'N':
        event.preventDefault();
        nextUnreviewed();
        return;
    }
  });

  if (items.length > 0) show(Math.max(0, items.findIndex(unreviewed)));
})();
