/**
 * The record page's "Hear it": the computer voice saying what is in the respelling field, alone
 * or in a sentence. While the person types, the audio is fetched once they pause (so "Hear it"
 * answers at once and a respelling outside the key is flagged while they write); a click plays
 * the field's current text, fetching it first if needed. `#guide[data-heard]` says what the
 * player last did (`playing`, `ended`, `error`). Standalone: no imports, no third-party code.
 */
export {};

const section = document.getElementById('guide');
if (section) setUp(section);

function setUp(section: HTMLElement) {
  const text: Record<string, string> = JSON.parse(document.getElementById('recorder-messages')?.textContent ?? '{}');
  const say = (key: string) => text[key] ?? key;
  const input = document.getElementById('guide-input') as HTMLInputElement;
  const status = document.getElementById('guide-status') as HTMLParagraphElement;
  const audio = document.getElementById('guide-audio') as HTMLAudioElement;
  const hear = document.getElementById('guide-hear') as HTMLButtonElement;
  const hearSentence = document.getElementById('guide-hear-sentence') as HTMLButtonElement;
  const hearUrl = section.dataset.hearUrl as string;
  const TYPING_PAUSE_MS = 600;

  /** Audio already fetched (or being fetched), by what was asked; only the latest few are kept. */
  const fetched = new Map<string, Promise<string | null>>();
  let typingTimer = 0;

  const showProblem = (message: string, invalid: boolean) => {
    status.textContent = message;
    status.classList.toggle('error', message !== '');
    if (invalid) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  };

  async function load(respelling: string, sentence: boolean): Promise<string | null> {
    const response = await fetch(hearUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sentence ? { respelling, sentence: true } : { respelling }),
    }).catch(() => null);
    if (!response) {
      showProblem(say('guide_failed'), false);
      return null;
    }
    if (response.ok) return URL.createObjectURL(await response.blob());
    if (response.status === 429) showProblem(say('guide_busy'), false);
    else if (response.status === 400) showProblem(say('guide_invalid'), true);
    else showProblem(say('guide_failed'), false);
    return null;
  }

  function audioFor(respelling: string, sentence: boolean): Promise<string | null> {
    const key = `${sentence ? 1 : 0}:${respelling}`;
    let url = fetched.get(key);
    if (!url) {
      url = load(respelling, sentence);
      // A failure is not kept: the next try asks again.
      void url.then((value) => value ?? fetched.delete(key));
      fetched.set(key, url);
      while (fetched.size > 6) {
        const [oldest, old] = fetched.entries().next().value as [string, Promise<string | null>];
        fetched.delete(oldest);
        void old.then((value) => value && URL.revokeObjectURL(value));
      }
    }
    return url;
  }

  async function play(sentence: boolean) {
    window.clearTimeout(typingTimer);
    const respelling = input.value.trim();
    if (respelling === '') {
      showProblem(say('guide_invalid'), true);
      input.focus();
      return;
    }
    status.textContent = say('guide_loading');
    const url = await audioFor(respelling, sentence);
    if (!url) {
      section.dataset.heard = 'error';
      return;
    }
    showProblem('', false);
    audio.src = url;
    audio.currentTime = 0;
    await audio.play().catch(() => {
      section.dataset.heard = 'error';
      showProblem(say('guide_failed'), false);
    });
  }

  audio.addEventListener('playing', () => (section.dataset.heard = 'playing'));
  audio.addEventListener('ended', () => (section.dataset.heard = 'ended'));
  hear.addEventListener('click', () => void play(false));
  hearSentence.addEventListener('click', () => void play(true));
  input.addEventListener('input', () => {
    showProblem('', false);
    document.getElementById('guide-error')?.remove();
    window.clearTimeout(typingTimer);
    const respelling = input.value.trim();
    if (respelling !== '') typingTimer = window.setTimeout(() => void audioFor(respelling, false), TYPING_PAUSE_MS);
  });
  hear.hidden = false;
  hearSentence.hidden = false;
}
