/**
 * `pm.watchBooks(tokens)`: local order books kept from the market channel, one update after every change. A book
 * starts at its snapshot, takes the deltas, is checked against the best bid/ask a frame carries (a mismatch fetches
 * the book again over REST), and is dropped on a reconnect until the fresh snapshot rebuilds it.
 */
import type { Book } from '../clob/model.js'
import { MarketUsageError } from '../errors.js'
import { LocalBook, type LiveBook } from './order-book.js'
import type { EventFeed, MarketStream } from './watch.js'

/** Why a book was yielded. */
export type BookUpdateSource = 'snapshot' | 'change' | 'resync'

/** One update of `pm.watchBooks()`: the token's whole book after the change. */
export interface BookUpdate {
  readonly tokenId: string
  readonly book: LiveBook
  /** `snapshot` (a `book` frame), `change` (a delta or a tick-size change), `resync` (refetched after a mismatch). */
  readonly source: BookUpdateSource
}

/** Fetches one token's book over REST (the client's `/book`), for a resync. */
export type BookFetcher = (tokenId: string) => Promise<Book>

/** Turns a stream of events into a stream of book updates. */
export function booksOf(events: EventFeed, fetchBook: BookFetcher): MarketStream<BookUpdate> {
  const books = new Map<string, LocalBook>()

  async function resync(tokenId: string): Promise<BookUpdate | undefined> {
    books.delete(tokenId)
    try {
      const rest = await fetchBook(tokenId)
      const local = LocalBook.fromSnapshot({ ...rest, type: 'book', hash: null })
      books.set(tokenId, local)
      return { tokenId, book: local.book, source: 'resync' }
    } catch {
      // The book stays unknown until the channel's next snapshot of it (after its next trade, or a reconnect).
      return undefined
    }
  }

  async function* run(): AsyncGenerator<BookUpdate, void, undefined> {
    try {
      for (;;) {
        // What is queued is taken without a promise (a burst of frames costs one wait, not one per event).
        let event = events.take()
        if (event === undefined) {
          const next = await events.next()
          if (next.done) return
          event = next.value
        }
        switch (event.type) {
          case 'book': {
            const local = LocalBook.fromSnapshot(event)
            books.set(event.tokenId, local)
            yield { tokenId: event.tokenId, book: local.book, source: 'snapshot' }
            break
          }
          case 'price_change':
            for (const c of event.changes) {
              const local = books.get(c.tokenId)
              // A delta before the token's snapshot has nothing to apply to.
              if (local === undefined) continue
              local.set(c.side, c.price, c.size, event.timestamp)
              if (local.agrees(c.bestBid, c.bestAsk)) yield { tokenId: c.tokenId, book: local.book, source: 'change' }
              else {
                const update = await resync(c.tokenId)
                if (update !== undefined) yield update
              }
            }
            break
          case 'best_bid_ask': {
            const local = books.get(event.tokenId)
            if (local !== undefined && !local.agrees(event.bestBid, event.bestAsk)) {
              const update = await resync(event.tokenId)
              if (update !== undefined) yield update
            }
            break
          }
          case 'tick_size_change': {
            const local = books.get(event.tokenId)
            if (local === undefined) break
            local.setTick(event.newTickSize, event.timestamp)
            yield { tokenId: event.tokenId, book: local.book, source: 'change' }
            break
          }
          case 'reconnected':
            // Whatever happened while the connection was down is lost: these books wait for their fresh snapshot.
            for (const id of event.tokenIds) books.delete(id)
            break
          default:
            break
        }
      }
    } finally {
      events.close()
    }
  }

  const generator = run()
  let started = false
  return {
    [Symbol.asyncIterator]() {
      if (started) throw new MarketUsageError('A book stream can be iterated once; call watchBooks() again for another loop')
      started = true
      return generator
    },
    close: () => events.close(),
  }
}
