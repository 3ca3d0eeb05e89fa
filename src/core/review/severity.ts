/**
 * Severity thresholds, the same for every code host: a route's `fail_on` (the check or status fails) and GitHub's
 * `request_changes_at` compare a finding's severity with a threshold here.
 */
import type { Finding, Severity } from './document.js'
import { SEVERITIES } from './schema.js'

/** Whether `finding` is as severe as `threshold` or more (`critical` is the most severe). */
export function reaches(finding: Pick<Finding, 'severity'>, threshold: Severity): boolean {
  return SEVERITIES.indexOf(finding.severity) <= SEVERITIES.indexOf(threshold)
}

/** The findings of `findings` that reach `threshold`; none when there is no threshold. */
export function findingsAtOrAbove<F extends Pick<Finding, 'severity'>>(findings: readonly F[], threshold: Severity | undefined): F[] {
  return threshold === undefined ? [] : findings.filter((f) => reaches(f, threshold))
}

/** `2 major, 1 nit`, or `no findings`: the findings counted by severity, most severe first. */
export function severityTally(findings: readonly Pick<Finding, 'severity'>[]): string {
  const counts = SEVERITIES.map((s) => [s, findings.filter((f) => f.severity === s).length] as const).filter(([, n]) => n > 0)
  return counts.length === 0 ? 'no findings' : counts.map(([s, n]) => `${n} ${s}`).join(', ')
}
