export default {
  language_name: 'العربية',
  skip_to_content: 'انتقل إلى المحتوى',
  seconds_one: 'ثانية واحدة',
  seconds_other: '{{count}} ثانية',
  seconds_zero: '{{count}} ثانية',
  seconds_two: 'ثانيتان',
  seconds_few: '{{count}} ثوانٍ',
  seconds_many: '{{count}} ثانية',
  from_organisation: 'من {{organisation}}',
};
