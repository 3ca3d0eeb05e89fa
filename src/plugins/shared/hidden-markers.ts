/**
 * hookpilot's hidden markers (`<!-- hookpilot:... -->`, how a sticky route finds its own comment again) made
 * inert in text a target writes. Every body any target writes passes through {@link inertMarkers}: an answer in
 * any mode that echoes a marker (a pull request titled with one, a prompt that steers the agent into writing one)
 * must never produce a comment a sticky route then takes as its own.
 */

/**
 * The text with any hookpilot marker it holds broken (`<!-- hookpilot:` becomes `<!-- hookpilot (quoted):`), so
 * neither this gateway nor another tool reading markers takes it for a route's. Applying it twice changes nothing.
 */
export function inertMarkers(text: string): string {
  return text.replace(/<!--(\s*)hookpilot:/gi, '<!--$1hookpilot (quoted):')
}

/**
 * A route's name as a marker writes it: percent-encoded past letters, digits, `.`, `_` and `-`, so no route name
 * can end the HTML comment or look like another route's marker.
 */
export function markerRoute(route: string): string {
  return route.replace(/[^A-Za-z0-9._-]/g, (c) => encodeURIComponent(c).replace(/[!'()*~]/g, (x) => `%${x.charCodeAt(0).toString(16).toUpperCase()}`))
}

/**
 * The hidden first line of a route's sticky summary (GitHub's sticky comment, GitLab's sticky note): the same on
 * every code host, so a route's comment is found the same way wherever it is.
 */
export function stickyMarker(route: string): string {
  return `<!-- hookpilot:review route=${markerRoute(route)} -->`
}
