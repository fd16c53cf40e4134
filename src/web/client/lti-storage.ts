// LTI platform storage (1EdTech "LTI Client Side postMessages"): talks to the course platform's
// storage frame for a launch whose browser withholds voicename's cookie in the platform's frame.
// At the login it stores the state and nonce there, then goes on to the platform; at the launch
// it reads the state back and posts it with the launch's ticket. Only answers from the
// platform's origin (its OIDC auth URL's) to the message this page sent are taken.
(() => {
  const data = document.getElementById('lti-storage')?.dataset;
  if (!data?.target || !data.origin || !data.state) return;
  const { target: targetName, origin, state, step } = data;
  const ANSWER_TIMEOUT_MS = 3000;

  const storageFrame = (): Window | null => {
    try {
      return targetName === '_parent'
        ? window.parent
        : ((window.parent.frames as unknown as Record<string, Window>)[targetName] ?? null);
    } catch {
      return null;
    }
  };

  const ask = (subject: string, fields: Record<string, string> = {}): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const frame = storageFrame();
      if (!frame || frame === window) {
        reject(new Error('no storage frame'));
        return;
      }
      const messageId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
      const timer = window.setTimeout(() => {
        window.removeEventListener('message', listen);
        reject(new Error('no answer'));
      }, ANSWER_TIMEOUT_MS);
      function listen(event: MessageEvent) {
        const answer = event.data as Record<string, unknown> | null;
        if (event.origin !== origin || typeof answer !== 'object' || answer === null) return;
        if (answer.message_id !== messageId || answer.subject !== `${subject}.response`) return;
        window.clearTimeout(timer);
        window.removeEventListener('message', listen);
        if (answer.error) reject(new Error('refused'));
        else resolve(answer);
      }
      window.addEventListener('message', listen);
      frame.postMessage({ subject, message_id: messageId, ...fields }, origin);
    });

  const supports = async (subject: string) => {
    const answer = await ask('org.imsglobal.lti.capabilities');
    const supported = Array.isArray(answer.supported_messages) ? (answer.supported_messages as { subject?: unknown }[]) : [];
    return supported.some((message) => message.subject === subject);
  };

  if (step === 'login') {
    const next = data.next ?? '';
    const goOn = () => window.location.replace(next);
    (async () => {
      if (await supports('org.imsglobal.lti.put_data')) {
        await ask('org.imsglobal.lti.put_data', { key: `state_${state}`, value: state });
        await ask('org.imsglobal.lti.put_data', { key: `nonce_${data.nonce ?? ''}`, value: data.nonce ?? '' });
      }
    })().then(goOn, goOn);
    return;
  }

  const form = document.getElementById('lti-complete') as HTMLFormElement | null;
  const status = document.getElementById('lti-storage-status');
  if (!form) return;
  ask('org.imsglobal.lti.get_data', { key: `state_${state}` }).then(
    (answer) => {
      (form.elements.namedItem('state') as HTMLInputElement).value = typeof answer.value === 'string' ? answer.value : '';
      form.submit();
    },
    () => {
      if (status) {
        status.textContent =
          'Your course platform did not confirm this launch. Go back to your course and open voicename again, or open it in a window of its own.';
      }
    },
  );
})();
