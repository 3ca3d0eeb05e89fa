/**
 * Every job a filter matches, a page at a time (the view's `before` cursor): what a bulk replay or a grouping
 * walks, holding one page of records however many jobs match.
 */
import type { JobFilter, JobsView } from '../lifecycle/jobs-view.js'
import type { JobRecord } from '../lifecycle/job-record.js'

/** Records read per page. */
export const JOB_PAGE = 200

/**
 * The jobs `filter` matches, newest first, in pages of at most `pageSize`, up to `filter.limit` in all. The
 * next page is asked for only once the caller is done with this one, so what it changed (a job replayed, and
 * so no longer failed) is not read again: the cursor only moves to older jobs.
 */
export async function* jobPages(view: Pick<JobsView, 'list'>, filter: JobFilter, pageSize = JOB_PAGE): AsyncGenerator<readonly JobRecord[]> {
  let left = filter.limit ?? Infinity
  let before = filter.before
  while (left > 0) {
    const page = await view.list({ ...filter, before, limit: Math.min(pageSize, left) })
    if (page.length === 0) return
    yield page
    left -= page.length
    before = page.at(-1)?.id
  }
}
