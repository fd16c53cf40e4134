/** Chat destinations' messages (Slack, Teams): Arabic. The wording is not gendered: the person's pronouns are not known. */
export default {
  recording_completed: 'تسجيل جديد لاسم {{name}}',
  recording_deleted: 'تم حذف تسجيل اسم {{name}}',
  webhook_test: 'رسالة اختبار من voicename: ستصل إلى هذه القناة تسجيلات الأسماء',
  listen: 'استماع',
};
