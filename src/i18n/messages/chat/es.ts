/** Chat destinations' messages (Slack, Teams): Spanish. The wording is not gendered: the person's pronouns are not known. */
export default {
  recording_completed: '{{name}} grabó su nombre',
  recording_deleted: 'Se eliminó la grabación del nombre de {{name}}',
  webhook_test: 'Mensaje de prueba de voicename: este canal recibirá las grabaciones de nombres',
  listen: 'Escuchar',
};
