/**
 * The status page's HTML, script and style, fixed texts served from their own paths: the page holds no job
 * data (the script fetches it as JSON and writes it with `textContent`, never as markup; a job's link is an
 * element whose `href` is set only to an https URL, `rel="noopener noreferrer"`), so the strict
 * Content-Security-Policy allows scripts and styles from this origin only, and nothing inline.
 */

/** The login form: a POST to /status/login; the token is never in a URL. */
export function loginHtml(problem?: string): string {
  return page('hookpilot: sign in', `<main class="login">
<h1>hookpilot status</h1>
${problem === undefined ? '' : `<p class="problem" role="alert">${problem}</p>\n`}<form method="post" action="/status/login">
<label for="token">Status token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form>
</main>`)
}

/** The page, empty until the script fills it. */
export const STATUS_HTML = page('hookpilot status', `<header><h1>hookpilot status</h1><p id="updated" aria-live="polite">loading…</p></header>
<main>
<section><h2>Queue</h2><dl id="counts"></dl></section>
<section><h2>Running</h2><table id="running"><thead><tr><th>job</th><th>route</th><th>event</th><th>delivery</th><th>link</th><th>tries</th><th>for</th><th>received</th></tr></thead><tbody></tbody></table></section>
<section><h2>Waiting to retry</h2><p id="retrying-more"></p><table id="retrying"><thead><tr><th>job</th><th>route</th><th>event</th><th>delivery</th><th>link</th><th>why</th><th>tries</th><th>next try</th><th>received</th></tr></thead><tbody></tbody></table></section>
<section><h2>Failed, by reason</h2><table id="failed"><thead><tr><th>jobs</th><th>reason</th><th>routes</th><th>latest</th><th>earliest</th></tr></thead><tbody></tbody></table></section>
<section><h2>Last finished</h2><table id="finished"><thead><tr><th>job</th><th>route</th><th>event</th><th>delivery</th><th>link</th><th>outcome</th><th>reason</th><th>tries</th><th>usage</th><th>received</th><th>finished</th></tr></thead><tbody></tbody></table></section>
</main>
<script src="/status/app.js"></script>`)

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="stylesheet" href="/status/app.css"></head>
<body>
${body}
</body></html>
`
}

/** Fetches /status/jobs.json every few seconds and re-renders the tables (textContent only). */
export const STATUS_JS = `'use strict'
;(() => {
  const REFRESH_MS = 2000
  // With its zone: a bare "2026-11-27 20:30:00" read as the viewer's local time when it is UTC.
  const time = (ms) => (ms === undefined || ms === null ? '' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC')
  // A job's page, as a link only when it is https (the server checked it too); shown as host and path.
  function link(href) {
    if (typeof href !== 'string' || !href.startsWith('https://')) return undefined
    let url
    try { url = new URL(href) } catch { return undefined }
    if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') return undefined
    const a = document.createElement('a')
    a.href = url.href
    a.rel = 'noopener noreferrer'
    a.target = '_blank'
    const shown = url.host + url.pathname
    a.textContent = shown.length > 60 ? shown.slice(0, 59) + '…' : shown
    return a
  }
  const age = (ms) => (ms < 60000 ? Math.round(ms / 1000) + ' s' : ms < 3600000 ? Math.round(ms / 60000) + ' min' : (ms / 3600000).toFixed(1) + ' h')
  function rows(id, items, cells) {
    const body = document.querySelector('#' + id + ' tbody')
    const fresh = document.createElement('tbody')
    for (const item of items) {
      const tr = document.createElement('tr')
      tr.dataset.job = item.id === undefined ? '' : String(item.id)
      // A check's link names the job (/status#job-ID): its row is the fragment's target, highlighted.
      if (item.id !== undefined) tr.id = 'job-' + String(item.id)
      for (const value of cells(item)) {
        const td = document.createElement('td')
        if (value instanceof Node) td.append(value)
        else td.textContent = value === undefined || value === null ? '' : String(value)
        tr.append(td)
      }
      fresh.append(tr)
    }
    body.replaceWith(fresh)
  }
  function render(s) {
    const counts = document.getElementById('counts')
    counts.replaceChildren()
    for (const [state, n] of Object.entries(s.counts)) {
      const dt = document.createElement('dt')
      dt.textContent = state
      const dd = document.createElement('dd')
      dd.id = 'count-' + state
      dd.textContent = String(n)
      counts.append(dt, dd)
    }
    rows('running', s.running, (j) => [j.id, j.route, j.event, j.deliveryId, link(j.link), j.attempts, age(j.ageMs), time(j.receivedAt)])
    // When the next try runs, and in how long (or "due now": the queue takes it at its next turn).
    const next = (at) => time(at) + (at > s.at ? ' (in ' + age(at - s.at) + ')' : ' (due now)')
    rows('retrying', s.retrying, (j) => [j.id, j.route, j.event, j.deliveryId, link(j.link), j.reason, j.attempts, next(j.runsAt), time(j.receivedAt)])
    document.getElementById('retrying-more').textContent = s.retryingCount > s.retrying.length ? s.retrying.length + ' of ' + s.retryingCount + ' shown, the soonest first' : ''
    rows('failed', s.failed, (g) => [g.count, g.reason, g.routes.join(', '), time(g.latest), time(g.earliest)])
    rows('finished', s.finished, (j) => [j.id, j.route, j.event, j.deliveryId, link(j.link), j.state, j.reason, j.attempts, j.usage ?? '', time(j.receivedAt), time(j.finishedAt)])
    document.getElementById('updated').textContent = 'updated ' + time(s.at)
  }
  async function refresh() {
    try {
      const res = await fetch('/status/jobs.json', { credentials: 'same-origin', cache: 'no-store' })
      if (res.status === 401) return location.reload() // the login ended: show the form
      if (!res.ok) throw new Error('HTTP ' + res.status)
      render(await res.json())
    } catch (err) {
      document.getElementById('updated').textContent = 'cannot refresh: ' + err.message
    } finally {
      setTimeout(refresh, REFRESH_MS)
    }
  }
  refresh()
})()
`

export const STATUS_CSS = `body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1b1f24; }
table { border-collapse: collapse; width: 100%; margin-bottom: 1.5rem; }
tr:target { background: #fff8c5; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #d0d7de; vertical-align: top; }
td { overflow-wrap: anywhere; }
dl { display: flex; gap: 1.5rem; } dt { font-weight: 600; } dd { margin: 0 0 0 .4rem; }
.login { max-width: 22rem; } .login input { display: block; width: 100%; margin: .5rem 0; } .problem { color: #b42318; }
`
