/** `search`: events (with their markets) and tags whose text matches, one page. */
import * as z from 'zod'
import { eventSummary } from '../bounds.js'
import { defineTool } from '../tool.js'

/** The most events one search page returns. */
const MAX_EVENTS = 20

/** The `search` tool. */
export const search = defineTool({
  name: 'search',
  title: 'Search markets',
  description:
    'Search prediction-market events and their markets by text (one page). Returns events with their first markets ' +
    '(slug, question, outcomes with prices and token ids, volume), matching tag slugs, and whether more pages exist.',
  input: z.strictObject({
    text: z.string().trim().min(1).max(200).describe('words to look for, e.g. "fed rate cut"'),
    status: z.enum(['active', 'closed', 'all']).optional().describe('which events: active, closed or all (default all)'),
    limit: z.int().min(1).max(MAX_EVENTS).optional().describe(`events on the page (default 5, at most ${MAX_EVENTS})`),
    page: z.int().min(1).max(100).optional().describe('the page number (default 1)'),
  }),
  async run({ text, status, limit, page }, { pm, signal }) {
    let query = pm.search(text).limitPerType(limit ?? 5).pageNumber(page ?? 1)
    if (status !== undefined) query = query.status(status)
    const result = await query.page({ signal })
    return {
      page: page ?? 1,
      hasMore: result.hasMore,
      totalResults: result.totalResults,
      // The service's page size is a hint it may exceed: the cap holds either way.
      events: result.events.slice(0, limit ?? 5).map(eventSummary),
      tags: result.tags.slice(0, 20).map((t) => t.slug),
    }
  },
})
