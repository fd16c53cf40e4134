export default {
  language_name: 'English',
  skip_to_content: 'Skip to content',
  seconds_one: '{{count}} second',
  seconds_other: '{{count}} seconds',
  from_organisation: 'From {{organisation}}',
};
