/**
 * How the mock market moves when it moves like a market (`motion: 'market'`): each watched token's price wanders
 * toward a target on the other side of 0.5 from where it is, with noise, and takes a new target every 20 to 60
 * moves, so the midpoint crosses the usual levels (0.25, 0.5, 0.75) within a minute or two at the default pace;
 * trades come in many sizes, mostly small, with a block trade of 5,000 to 25,000 shares every 40 to 160 moves.
 * Everything is drawn from one seeded generator: the same seed gives the same prices and sizes, move for move.
 */

/** A small, fast seeded generator (mulberry32): the same seed, the same numbers. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A seed for a run that names none: printed by whoever starts the mock, so the run can be replayed. */
export function freshSeed(): number {
  return Math.floor(Math.random() * 2 ** 31)
}

/** Prices are kept in whole ticks: from 2 to 98, so a bid a tick below and an ask a tick above stay inside (0, 1). */
export const LOWEST_TICKS = 2
export const HIGHEST_TICKS = 98

/** One move of a token: its new price in ticks, and the trade made on it, if any. */
export interface MotionStep {
  readonly ticks: number
  readonly trade: { readonly size: number; readonly side: 'BUY' | 'SELL' } | undefined
}

interface TokenWalk {
  ticks: number
  target: number
  legLeft: number
  blockIn: number
}

/** The seeded walk of every token the market channel moves. */
export class MarketMotion {
  readonly seed: number
  readonly #random: () => number
  readonly #walks = new Map<string, TokenWalk>()

  constructor(seed: number) {
    this.seed = seed
    this.#random = seededRandom(seed)
  }

  /** Moves `tokenId` (starting at `startTicks` the first time) one step. */
  step(tokenId: string, startTicks: number): MotionStep {
    const walk = this.#walk(tokenId, startTicks)
    if (walk.legLeft-- <= 0) this.#newLeg(walk)
    const before = walk.ticks
    const pull = Math.round((walk.target - walk.ticks) * 0.08)
    const noise = this.#int(-2, 2)
    walk.ticks = clampTicks(walk.ticks + pull + noise)
    let trade: MotionStep['trade']
    const side = walk.ticks > before ? 'BUY' : walk.ticks < before ? 'SELL' : this.#random() < 0.5 ? 'BUY' : 'SELL'
    if (walk.blockIn-- <= 0) {
      walk.blockIn = this.#int(40, 160)
      trade = { size: this.#int(5_000, 25_000), side }
    } else if (this.#random() < 0.6) {
      // Mostly small, now and then hundreds or a thousand and more: 10 × e^(0..5), about 10 to 1,480 shares.
      trade = { size: Math.round(10 * Math.exp(this.#random() * 5)), side }
    }
    return { ticks: walk.ticks, trade }
  }

  /** The size of a resting level of a rebuilt book: 100 to 5,000 shares. */
  levelSize(): number {
    return this.#int(100, 5_000)
  }

  /** Puts `tokenId`'s price at `ticks` by hand; it wanders on from there, around it, for the rest of the leg. */
  moveTo(tokenId: string, ticks: number): void {
    const walk = this.#walk(tokenId, ticks)
    walk.ticks = clampTicks(ticks)
    walk.target = walk.ticks
  }

  #walk(tokenId: string, startTicks: number): TokenWalk {
    let walk = this.#walks.get(tokenId)
    if (walk === undefined) {
      walk = { ticks: clampTicks(startTicks), target: clampTicks(startTicks), legLeft: 0, blockIn: this.#int(10, 80) }
      this.#walks.set(tokenId, walk)
    }
    return walk
  }

  // A target on the other side of 0.5 from the price: every leg crosses the middle, and often 0.25 or 0.75.
  #newLeg(walk: TokenWalk): void {
    walk.target = walk.ticks < 50 ? this.#int(55, 95) : this.#int(5, 45)
    walk.legLeft = this.#int(20, 60)
  }

  #int(low: number, high: number): number {
    return low + Math.floor(this.#random() * (high - low + 1))
  }
}

function clampTicks(ticks: number): number {
  return Math.min(HIGHEST_TICKS, Math.max(LOWEST_TICKS, Math.round(ticks)))
}
