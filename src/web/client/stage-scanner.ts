// The stage scanner (dashboard, on a phone at the stage stairs): reads a name card's QR code with
// the camera where the browser can (BarcodeDetector), else takes the code typed; either way the
// code is posted and the person comes up on every open reader. The form works without this
// script; with it, the page stays put and says who is on the readers now.
(() => {
  const form = document.getElementById('code-form') as HTMLFormElement | null;
  const input = document.getElementById('card-code') as HTMLInputElement | null;
  const status = document.getElementById('scan-status');
  const start = document.getElementById('camera-start') as HTMLButtonElement | null;
  const stop = document.getElementById('camera-stop') as HTMLButtonElement | null;
  const camera = document.getElementById('camera');
  const video = document.getElementById('camera-view') as HTMLVideoElement | null;
  if (!form || !input || !status || !start || !stop || !camera || !video) return;

  /** The same card in front of the camera for a while is one scan. */
  const REPEAT_AFTER_MS = 5_000;
  let last = { code: '', at: 0 };

  const say = (text: string, isError: boolean, name?: string) => {
    status.className = isError ? 'alert' : 'scan-status';
    status.textContent = text;
    if (name !== undefined) {
      const strong = document.createElement('strong');
      strong.dir = 'auto';
      strong.textContent = name;
      status.append(strong);
    }
    if (isError) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  };

  const send = async (code: string) => {
    const body = new URLSearchParams(new FormData(form) as unknown as Record<string, string>);
    body.set('code', code);
    try {
      const response = await fetch(form.action, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      const result = (await response.json()) as { shown?: string; error?: string };
      if (result.shown !== undefined) say('Now on the readers: ', false, result.shown);
      else say(result.error ?? 'That did not work. Try again.', true);
      return result.shown !== undefined;
    } catch {
      say('No connection to the server. Try again.', true);
      return false;
    }
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void send(input.value).then((shown) => {
      if (shown) input.value = '';
      input.focus();
    });
  });

  type Detector = { detect(source: HTMLVideoElement): Promise<{ rawValue: string }[]> };
  const BarcodeDetectorClass = (window as unknown as { BarcodeDetector?: new (options: { formats: string[] }) => Detector })
    .BarcodeDetector;
  if (!BarcodeDetectorClass || !navigator.mediaDevices?.getUserMedia) return;
  start.hidden = false;
  let stream: MediaStream | null = null;
  let timer: number | undefined;

  const stopCamera = () => {
    window.clearInterval(timer);
    for (const track of stream?.getTracks() ?? []) track.stop();
    stream = null;
    camera.hidden = true;
    start.hidden = false;
  };

  const startCamera = async () => {
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
    } catch {
      say('The camera is not available: type the code instead.', true);
      return;
    }
    const detector = new BarcodeDetectorClass({ formats: ['qr_code'] });
    video.srcObject = stream;
    await video.play().catch(() => {});
    camera.hidden = false;
    start.hidden = true;
    let busy = false;
    timer = window.setInterval(() => {
      if (busy || video.readyState < 2) return;
      busy = true;
      detector
        .detect(video)
        .then(async (found) => {
          const code = found[0]?.rawValue;
          const now = Date.now();
          if (!code || (code === last.code && now - last.at < REPEAT_AFTER_MS)) return;
          last = { code, at: now };
          await send(code);
        })
        .catch(() => {})
        .finally(() => (busy = false));
    }, 200);
  };
  start.addEventListener('click', () => void startCamera());
  stop.addEventListener('click', stopCamera);
})();
