// Embedding the gateway in an existing node:http server: webhook paths go to hookpilot, the rest to your app.
// With Express or Connect it is one line: app.use(gateway.handler).
import { createServer } from 'node:http'
import { dirname, resolve } from 'node:path'
import { createGateway, loadConfig } from 'hookpilot'
import { fileTarget } from './custom-target.js'

const configPath = process.argv[2] ?? 'config.yaml'
const gateway = await createGateway(await loadConfig(configPath), [fileTarget('answers.jsonl')], {
  baseDir: dirname(resolve(configPath)), // the config file's folder: relative paths are resolved from there
})

const server = createServer((req, res) => {
  gateway.handler(req, res, () => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('my app\n')
  })
})
server.listen(3000, () => console.log('app and webhooks on http://localhost:3000'))

process.once('SIGTERM', () => {
  server.close()
  void gateway.close()
})
