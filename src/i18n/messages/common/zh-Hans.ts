export default {
  language_name: '简体中文',
  skip_to_content: '跳到内容',
  seconds_one: '{{count}} 秒',
  seconds_other: '{{count}} 秒',
  from_organisation: '来自 {{organisation}}',
};
