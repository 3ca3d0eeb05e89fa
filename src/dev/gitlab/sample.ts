/** The diff every merge request of `hookpilot dev gitlab` shows: the spec's worked example, a file of two hunks. */
import type { FakeGitlabDiff } from './state.js'

export const SAMPLE_DIFFS: readonly FakeGitlabDiff[] = [{
  old_path: 'src/app/handlers.py',
  new_path: 'src/app/handlers.py',
  diff: [
    '@@ -10,6 +10,7 @@ def handle(event):',
    '     payload = event.body',
    '     if not payload:',
    '-        return None',
    '+        log.warning("empty payload")',
    '+        return {}',
    '     route = payload.get("route")',
    '     target = ROUTES[route]',
    '     return target(payload)',
    '@@ -40,6 +41,6 @@ class Router:',
    '     def add(self, name, fn):',
    '-        self.routes[name] = fn',
    '+        self.routes.setdefault(name, fn)',
    '         return fn',
    ' ',
    '     def get(self, name):',
    '         return self.routes.get(name)',
    '',
  ].join('\n'),
}]
