import { describe, expect, it } from 'vitest';
import { chatMessage, slackBody, teamsBody } from './payloads.js';

const recorded = (first_name: string, last_name: string) => ({
  type: 'recording.completed',
  timestamp: '2026-01-15T12:00:00.000Z',
  data: { collection_id: 'c', user_id: 'u', first_name, last_name, play_link: 'https://example.com/p/abc' },
});

describe('chat messages', () => {
  it('a name cannot mention a whole Slack channel or add a link: & < > are escaped', () => {
    const message = chatMessage(recorded('<!channel>', '& <https://evil.test|Co>'), 'en')!;
    const body = JSON.parse(slackBody(message));
    expect(body.blocks[0].text.text).toBe('&lt;!channel&gt; &amp; &lt;https://evil.test|Co&gt; recorded their name');
    expect(body.text).not.toContain('<!channel>');
    expect(body.text).not.toContain('<https://evil.test');
  });

  it('speaks the collection’s language, in Arabic and Simplified Chinese too', () => {
    expect(chatMessage(recorded('Aoife', 'Byrne'), 'ar')!.text).toBe('تسجيل جديد لاسم Aoife Byrne');
    const card = JSON.parse(teamsBody(chatMessage(recorded('Aoife', 'Byrne'), 'zh-Hans')!, 'zh-Hans')).attachments[0].content;
    expect(card).toMatchObject({
      lang: 'zh-Hans',
      body: [{ text: 'Aoife Byrne 录制了自己的名字' }],
      actions: [{ title: '收听' }],
    });
  });

  it('has no message for events a chat destination does not receive', () => {
    expect(chatMessage({ ...recorded('A', 'B'), type: 'invitation.failed' }, 'en')).toBeNull();
  });
});
