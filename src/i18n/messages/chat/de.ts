/** Chat destinations' messages (Slack, Teams): German. The wording is not gendered: the person's pronouns are not known. */
export default {
  recording_completed: 'Neue Namensaufnahme von {{name}}',
  recording_deleted: 'Die Namensaufnahme von {{name}} wurde gelöscht',
  webhook_test: 'Testnachricht von voicename: Dieser Kanal erhält Namensaufnahmen',
  listen: 'Anhören',
};
