/** The data of the webhook benchmark's events, shared by the app's seed and the bare sender so both send the same bodies. */
export const eventData = (i: number) => ({
  collection_id: 'col_0123456789abcdef',
  user_id: `usr_${String(i).padStart(16, '0')}`,
  email: 'ada@example.com',
  first_name: 'Ada',
  last_name: 'Lovelace',
  play_link: 'https://voicename.test/p/abcdefghijkl',
  recorded_at: '2026-01-01T00:00:00.000Z',
});
