/**
 * The footer of a code host's sticky review (GitHub's sticky comment, GitLab's sticky note): the head it is of,
 * when it was written and how many pushes it covers. The gateway writes it, never the agent.
 */

/** What the footer of a sticky review says. */
export interface ReviewFooter {
  /** The full head SHA the review is of; left out when the payload holds none (or not a SHA). */
  readonly head?: string | undefined
  /** When the review was posted, in ms since the epoch. */
  readonly at: number
  /** How many accepted events (pushes) the answer covers. */
  readonly covers: number
}

const SHA = /^[0-9a-f]{7,64}$/i

/** The footer line: `Review of abc1234 · 2026-11-24 13:05 UTC · covers 3 pushes`, in small type. */
export function reviewFooter({ head, at, covers }: ReviewFooter): string {
  const when = `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`
  const pushes = `covers ${covers} ${covers === 1 ? 'push' : 'pushes'}`
  const of = head !== undefined && SHA.test(head) ? `Review of ${head.slice(0, 7)} · ` : 'Review · '
  return `<sub>${of}${when} · ${pushes}</sub>`
}
