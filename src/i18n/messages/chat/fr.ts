/** Chat destinations' messages (Slack, Teams): French. The wording is not gendered: the person's pronouns are not known. */
export default {
  recording_completed: '{{name}} a enregistré son nom',
  recording_deleted: 'L’enregistrement du nom de {{name}} a été supprimé',
  webhook_test: 'Message de test de voicename : ce canal recevra les enregistrements de noms',
  listen: 'Écouter',
};
