/**
 * The recorder page script. States (on `#recorder[data-state]`): idle → asking → countdown →
 * recording → review → uploading → done, with denied / nodevice / error on the way. The
 * microphone is opened with echo cancellation, noise suppression and auto gain off, so the
 * server receives the voice as spoken. Standalone: no imports, no third-party code.
 */
export {};

const root = document.getElementById('recorder') as HTMLElement;
/** The page's messages in its language (the server's `recorder` catalogue, keys without `js_`). */
const text: Record<string, string> = JSON.parse(document.getElementById('recorder-messages')?.textContent ?? '{}');
const say = (key: string, variables: Record<string, string | number> = {}) =>
  (text[key] ?? key).replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => String(variables[name] ?? ''));
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $<HTMLParagraphElement>('status');
const countdown = $<HTMLParagraphElement>('countdown');
const meter = $<HTMLDivElement>('meter');
const meterFill = $<HTMLDivElement>('meter-fill');
const timer = $<HTMLParagraphElement>('timer');
const startButton = $<HTMLButtonElement>('start');
const stopButton = $<HTMLButtonElement>('stop');
const listenButton = $<HTMLButtonElement>('listen');
const rerecordButton = $<HTMLButtonElement>('rerecord');
const submitButton = $<HTMLButtonElement>('submit');
const preview = $<HTMLAudioElement>('preview');
const fileInput = $<HTMLInputElement>('file');
const uploadButton = $<HTMLButtonElement>('upload');
const phonetic = $<HTMLInputElement>('phonetic');
const result = $<HTMLElement>('result');
const playLink = $<HTMLAnchorElement>('play-link');

const uploadUrl = root.dataset.uploadUrl as string;
const maxSeconds = Number(root.dataset.maxSeconds ?? '10');
const maxBytes = Number(root.dataset.maxBytes ?? String(5 * 1024 * 1024));
/** Below this RMS (about -45 dBFS) for the whole take, we tell the person we heard nothing. */
const SILENT_RMS = 0.0056;
const MIN_TAKE_MS = 500;

let stream: MediaStream | null = null;
let audioContext: AudioContext | null = null;
let analyser: AnalyserNode | null = null;
let recorder: MediaRecorder | null = null;
let take: Blob | null = null;
let takeUrl: string | null = null;
let loudest = 0;
let meterFrame = 0;
let stopTimer = 0;

type State = 'idle' | 'asking' | 'denied' | 'nodevice' | 'countdown' | 'recording' | 'review' | 'uploading' | 'done' | 'error';

function show(element: HTMLElement, visible: boolean) {
  element.hidden = !visible;
}

function setState(state: State, message: string) {
  root.dataset.state = state;
  status.textContent = message;
  const busy = state === 'asking' || state === 'countdown' || state === 'recording' || state === 'uploading';
  show(startButton, !busy && state !== 'review' && state !== 'done');
  startButton.textContent = state === 'idle' ? say('start') : say('try_again');
  show(stopButton, state === 'recording');
  show(listenButton, state === 'review');
  show(rerecordButton, state === 'review' || state === 'done');
  show(submitButton, state === 'review');
  show(preview, state === 'review' && take !== null);
  show(countdown, state === 'countdown');
  show(meter, state === 'countdown' || state === 'recording');
  show(timer, state === 'recording');
  show(result, state === 'done');
  uploadButton.disabled = busy;
  const focusTarget = { recording: stopButton, review: submitButton, done: playLink } as Partial<Record<State, HTMLElement>>;
  focusTarget[state]?.focus();
}

async function openMicrophone(): Promise<boolean> {
  if (stream) return true;
  if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === 'undefined') {
    setState('nodevice', say('no_device'));
    return false;
  }
  setState('asking', say('allow_mic'));
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false, channelCount: 1 },
    });
  } catch (error) {
    const name = (error as DOMException).name;
    if (name === 'NotFoundError' || name === 'OverconstrainedError' || name === 'NotReadableError') {
      setState('nodevice', say('no_mic'));
    } else {
      setState('denied', say('blocked'));
    }
    return false;
  }
  audioContext = new AudioContext();
  analyser = audioContext.createAnalyser();
  analyser.fftSize = 2048;
  audioContext.createMediaStreamSource(stream).connect(analyser);
  return true;
}

function runMeter() {
  const samples = new Float32Array(analyser?.fftSize ?? 2048);
  const tick = () => {
    if (!analyser) return;
    analyser.getFloatTimeDomainData(samples);
    let sum = 0;
    for (const s of samples) sum += s * s;
    const rms = Math.sqrt(sum / samples.length);
    if (root.dataset.state === 'recording') loudest = Math.max(loudest, rms);
    // Show level on a dB scale from -60 to 0 dBFS.
    const db = rms > 0 ? 20 * Math.log10(rms) : -100;
    const level = Math.max(0, Math.min(100, ((db + 60) / 60) * 100));
    meterFill.style.width = `${level}%`;
    // The meter's value for assistive technology, in whole percent (written only when it changes).
    const now = String(Math.round(level));
    if (meter.getAttribute('aria-valuenow') !== now) meter.setAttribute('aria-valuenow', now);
    meterFrame = requestAnimationFrame(tick);
  };
  cancelAnimationFrame(meterFrame);
  meterFrame = requestAnimationFrame(tick);
}

function pickMimeType(): string | undefined {
  for (const type of ['audio/webm;codecs=opus', 'audio/ogg;codecs=opus', 'audio/mp4', 'audio/webm']) {
    if (MediaRecorder.isTypeSupported(type)) return type;
  }
  return undefined;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function startRecording() {
  if (!(await openMicrophone()) || !stream) return;
  await audioContext?.resume();
  runMeter();
  setState('countdown', say('get_ready'));
  for (const n of [3, 2, 1]) {
    countdown.textContent = String(n);
    await wait(1000);
  }
  const mimeType = pickMimeType();
  const chunks: Blob[] = [];
  recorder = new MediaRecorder(stream, mimeType ? { mimeType } : {});
  recorder.ondataavailable = (event) => {
    if (event.data.size > 0) chunks.push(event.data);
  };
  const startedAt = performance.now();
  recorder.onstop = () => {
    clearInterval(stopTimer);
    take = new Blob(chunks, { type: recorder?.mimeType || mimeType || 'audio/webm' });
    if (takeUrl) URL.revokeObjectURL(takeUrl);
    takeUrl = URL.createObjectURL(take);
    preview.src = takeUrl;
    const elapsed = performance.now() - startedAt;
    if (loudest < SILENT_RMS) {
      take = null;
      setState('error', say('heard_nothing'));
    } else if (elapsed < MIN_TAKE_MS) {
      take = null;
      setState('error', say('take_too_short'));
    } else {
      setState('review', say('review'));
    }
  };
  loudest = 0;
  recorder.start(250);
  setState('recording', say('recording'));
  const tickTimer = () => {
    const left = Math.max(0, maxSeconds - (performance.now() - startedAt) / 1000);
    timer.textContent = `${left.toFixed(0)} s left`;
    if (left <= 0) stopRecording();
  };
  tickTimer();
  stopTimer = window.setInterval(tickTimer, 200);
}

function stopRecording() {
  if (recorder && recorder.state !== 'inactive') recorder.stop();
}

async function upload(body: Blob, type: string) {
  if (body.size > maxBytes) {
    setState('error', say('audio_too_large'));
    return;
  }
  setState('uploading', say('uploading'));
  const query = phonetic.value.trim() === '' ? '' : `?phonetic_spelling=${encodeURIComponent(phonetic.value.trim())}`;
  try {
    const response = await fetch(uploadUrl + query, {
      method: 'POST',
      headers: { 'content-type': type.startsWith('audio/') ? type : 'application/octet-stream' },
      body,
    });
    const payload = await response.json().catch(() => null);
    if (!response.ok) {
      const code = payload?.error?.code as string | undefined;
      // The page's messages hold its own words for every audio_* refusal of the API.
      setState('error', code?.startsWith('audio_') && code in text ? say(code) : payload?.error?.message || say('failed'));
      return;
    }
    playLink.href = payload.play_link;
    playLink.textContent = payload.play_link;
    setState('done', say('saved', { seconds: payload.duration_seconds }));
  } catch {
    setState('error', say('upload_failed'));
  }
}

startButton.addEventListener('click', () => void startRecording());
stopButton.addEventListener('click', stopRecording);
rerecordButton.addEventListener('click', () => void startRecording());
listenButton.addEventListener('click', () => {
  preview.currentTime = 0;
  void preview.play();
});
submitButton.addEventListener('click', () => {
  if (take) void upload(take, take.type);
});
uploadButton.addEventListener('click', () => {
  const file = fileInput.files?.[0];
  if (!file) {
    setState('error', say('choose_file'));
    fileInput.focus();
    return;
  }
  void upload(file, file.type);
});

// Say up front when the microphone is already blocked (where the browser lets us ask).
navigator.permissions
  ?.query({ name: 'microphone' })
  .then((permission) => {
    if (permission.state === 'denied' && root.dataset.state === 'idle') {
      setState('denied', say('blocked_already'));
    }
  })
  .catch(() => {});

// Copy buttons: `button[data-copy="<field id>"]` copies that read-only field and says so.
for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-copy]'))) {
  const field = document.getElementById(button.dataset.copy ?? '') as HTMLInputElement | HTMLTextAreaElement | null;
  if (!field) continue;
  const label = button.textContent ?? '';
  button.addEventListener('click', () => {
    field.select();
    const done = () => {
      button.textContent = say('copied');
      setTimeout(() => (button.textContent = label), 2000);
    };
    // The Clipboard API where the page may use it; the selection and execCommand otherwise.
    const fallback = () => {
      if (document.execCommand('copy')) done();
    };
    if (navigator.clipboard) void navigator.clipboard.writeText(field.value).then(done, fallback);
    else fallback();
  });
}
