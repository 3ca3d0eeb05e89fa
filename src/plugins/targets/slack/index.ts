/** `deliver: slack`: the answer posted to Slack. */
export { slackDelivery, SLACK_LIMIT, type SlackOptions } from './slack-target.js'
export { slackPlugin } from './plugin.js'
