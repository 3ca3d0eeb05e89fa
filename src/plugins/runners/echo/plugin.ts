/** `agent.runner: echo` (the default): answers with its prompt, so the pipeline can be watched with nothing installed. */
import { definePlugin } from '../../../core/plugin-api/plugin.js'
import { echoAgent } from './echo-runner.js'

/** The echo runner. */
export const echoPlugin = definePlugin({
  name: 'echo',
  section: 'agent',
  selectedBy: { key: 'runner', value: 'echo' },
  setup: () => ({ name: 'echo', agentRunner: echoAgent() }),
})
