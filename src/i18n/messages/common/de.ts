export default {
  language_name: 'Deutsch',
  skip_to_content: 'Zum Inhalt springen',
  seconds_one: '{{count}} Sekunde',
  seconds_other: '{{count}} Sekunden',
  from_organisation: 'Von {{organisation}}',
};
