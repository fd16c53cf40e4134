/** Chat destinations' messages (Slack, Teams): English. The wording is not gendered: the person's pronouns are not known. */
export default {
  recording_completed: '{{name}} recorded their name',
  recording_deleted: 'The recording of the name of {{name}} was deleted',
  webhook_test: 'Test message from voicename: this channel will receive name recordings',
  listen: 'Listen',
};
