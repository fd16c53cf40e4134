export default {
  language_name: 'Français',
  skip_to_content: 'Aller au contenu',
  seconds_one: '{{count}} seconde',
  seconds_other: '{{count}} secondes',
  seconds_many: '{{count}} secondes',
  from_organisation: 'De la part de {{organisation}}',
};
