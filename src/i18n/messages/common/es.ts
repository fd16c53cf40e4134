export default {
  language_name: 'Español',
  skip_to_content: 'Saltar al contenido',
  seconds_one: '{{count}} segundo',
  seconds_many: '{{count}} segundos',
  seconds_other: '{{count}} segundos',
  from_organisation: 'De {{organisation}}',
};
