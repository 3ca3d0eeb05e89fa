/** `deliver: sms`: the answer posted to Sms. */
export { smsDelivery, SMS_LIMIT, type SmsOptions } from './sms-target.js'
export { smsPlugin } from './plugin.js'
