/** `deliver: discord`: the answer posted to Discord. */
export { discordDelivery, DISCORD_LIMIT, type DiscordOptions } from './discord-target.js'
export { discordPlugin } from './plugin.js'
