/** Chat destinations' messages (Slack, Teams): Simplified Chinese. The wording is not gendered: the person's pronouns are not known. */
export default {
  recording_completed: '{{name}} 录制了自己的名字',
  recording_deleted: '{{name}} 的姓名录音已删除',
  webhook_test: '来自 voicename 的测试消息：此频道将接收姓名录音',
  listen: '收听',
};
