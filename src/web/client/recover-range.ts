// The recover form on a webhook's page: the custom range's fields are read in this browser's
// time zone instead of UTC. The labels say which (e.g. "your time, UTC+11:00"), and on submit
// each hidden offset field carries the minutes east of UTC at that field's date and time, so a
// range across a daylight-saving change is read right. Typing a time chooses "a custom range".
// Without this script the server reads the fields as UTC, as the labels then say.
(() => {
  const form = document.getElementById('recover-form') as HTMLFormElement | null;
  if (!form) return;
  const fields: [HTMLInputElement | null, HTMLInputElement | null][] = [
    [
      document.getElementById('recover-since') as HTMLInputElement | null,
      document.getElementById('recover-since-offset') as HTMLInputElement | null,
    ],
    [
      document.getElementById('recover-until') as HTMLInputElement | null,
      document.getElementById('recover-until-offset') as HTMLInputElement | null,
    ],
  ];
  // Minutes east of UTC, as the server takes them (getTimezoneOffset counts west).
  const offsetAt = (at: Date) => -at.getTimezoneOffset();
  const zoneName = (minutes: number) => {
    const sign = minutes < 0 ? '−' : '+';
    const abs = Math.abs(minutes);
    return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  };
  const zone = zoneName(offsetAt(new Date()));
  for (const span of Array.from(form.querySelectorAll<HTMLElement>('span[data-zone]'))) {
    span.textContent = `(your time, ${zone}${span.dataset.zone ?? ''})`;
  }
  const note = document.getElementById('recover-zone');
  if (note) note.textContent = `Times are your time (${zone}); the result is stated in UTC, like every time on these pages.`;
  const custom = document.getElementById('recover-window-custom') as HTMLInputElement | null;
  for (const [field] of fields) {
    field?.addEventListener('input', () => {
      if (custom) custom.checked = true;
    });
  }
  form.addEventListener('submit', () => {
    for (const [field, offset] of fields) {
      if (!field || !offset) continue;
      // A datetime-local value without a zone is parsed as this browser's local time.
      const at = field.value === '' ? new Date() : new Date(field.value);
      offset.value = Number.isNaN(at.getTime()) ? '' : String(offsetAt(at));
    }
  });
})();
