/** `deliver: telegram`: the answer posted to Telegram. */
export { telegramDelivery, TELEGRAM_LIMIT, type TelegramOptions } from './telegram-target.js'
export { telegramPlugin } from './plugin.js'
