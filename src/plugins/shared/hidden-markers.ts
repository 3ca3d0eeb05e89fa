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
