/**
 * Fair turns on Redis (a route's `fair_by`; core/jobs/lifecycle/fairness.ts): a job's turn is BullMQ's priority,
 * less one. BullMQ leases the lowest priority first and, within one, in the order the jobs became due (its
 * counter, taken when a job is added or a delayed one falls due), which is the lifecycle's lease order (turn,
 * then due, then id); a delayed job and one a try puts back keep their priority. Priority 0, which BullMQ leases
 * before every prioritized job, is left to the jobs it puts back itself: a job taken over from a dead instance
 * goes first, as the lifecycle's `recovered` says, and so do the jobs queued before turns existed (turn 0).
 *
 * The turn is taken inside the script that admits a job ({@link TAKE_TURN}), so two instances adding jobs of one
 * key at once take two turns, from three values the script reads there: the lowest turn of the queued jobs, the
 * highest of the running ones and the highest of the key's queued ones. They come from two sorted sets of job
 * ids by turn, kept beside BullMQ's lists: every unfinished job ({@link Keys.turns}), and every unfinished job of
 * one fairness key ({@link Keys.keyTurns}). A job is put in them when it is queued (admitted, queued again by a
 * redelivery or an operator) and taken out by the try's write that ends it (worker.ts); whether one of them runs
 * is BullMQ's active list, read in the same script, so a lease, a retry at a later time, a try put back and a
 * takeover change nothing there. A member that is neither running nor queued any more (a job a newer one of its
 * group replaced, one whose ending Redis refused to store, one whose admission never stored it) is dropped when
 * the script meets it.
 */
import { MARK_FIELD, MAX_TURN } from './records.js'
import { luaScript } from './script.js'

/**
 * Lua functions for the scripts that queue a job. `take_turn(turns, key_turns, active, admitting, job_prefix, id)`:
 * the lifecycle's `takeTurn` (fairness.ts) over the sets of this file, capped at records.ts's `MAX_TURN`; it files
 * job `id` under the turn it answers, in `turns` and, when the job has a fairness key, in `key_turns` ('' when it
 * has none). `active` is BullMQ's active list, `admitting` the admissions on their way (admission.ts: a job
 * counted there is queued before BullMQ holds it), `job_prefix` BullMQ's key of a job less its id.
 * `requeued(job, ...)`: the same for a finished job (its hash `job`) about to be moved back to the queue by
 * BullMQ (a redelivery, an operator's retry): its priority becomes its new turn, which BullMQ's move reads, and
 * its `finishedOn` goes at once, as BullMQ's move takes it away, so that an admission meanwhile counts it queued.
 */
export const TAKE_TURN = `
local function queued_now(id, running, admitting, job_prefix)
  if running[id] then return false end
  local job = job_prefix .. id
  if redis.call('HEXISTS', job, '${MARK_FIELD}') == 1 then return false end
  if redis.call('ZSCORE', admitting, id) then return true end
  if redis.call('EXISTS', job) == 0 then return false end
  return redis.call('HEXISTS', job, 'finishedOn') == 0
end
local function seen_queued(set, from_top, running, admitting, job_prefix, turns)
  local skip = 0
  while true do
    local member
    if from_top then member = redis.call('ZREVRANGE', set, skip, skip, 'WITHSCORES')
    else member = redis.call('ZRANGE', set, skip, skip, 'WITHSCORES') end
    if #member == 0 then return nil end
    if running[member[1]] then
      skip = skip + 1
    elseif queued_now(member[1], running, admitting, job_prefix) then
      return tonumber(member[2])
    else
      redis.call('ZREM', set, member[1])
      if set ~= turns then redis.call('ZREM', turns, member[1]) end
    end
  end
end
local function take_turn(turns, key_turns, active, admitting, job_prefix, id)
  local running = {}
  local last_running = nil
  for _, job in ipairs(redis.call('LRANGE', active, 0, -1)) do
    running[job] = true
    local turn = redis.call('ZSCORE', turns, job)
    if turn then last_running = math.max(last_running or 0, tonumber(turn)) end
  end
  redis.call('ZREM', turns, id)
  local first_queued = seen_queued(turns, false, running, admitting, job_prefix, turns)
  local round = math.max(first_queued or 0, last_running or 0)
  local turn = round
  if key_turns ~= '' then
    redis.call('ZREM', key_turns, id)
    local last_of_key = seen_queued(key_turns, true, running, admitting, job_prefix, turns)
    if last_of_key then turn = math.max(round, last_of_key + 1) end
  end
  turn = math.min(turn, ${MAX_TURN})
  redis.call('ZADD', turns, turn, id)
  if key_turns ~= '' then redis.call('ZADD', key_turns, turn, id) end
  return turn
end
local function requeued(job, turns, key_turns, active, admitting, job_prefix, id)
  redis.call('HDEL', job, 'finishedOn')
  local turn = take_turn(turns, key_turns, active, admitting, job_prefix, id)
  redis.call('HSET', job, 'priority', turn + 1)
  return turn
end
`

/**
 * Lua lines for a try's write that ends job `id` (done, skipped, superseded, failed): it leaves the sets of
 * this file. `turns` and `key_turns` ('' when the job has no fairness key) are the expressions naming them.
 */
export function leaveTurns(turns: string, keyTurns: string, id: string): string {
  return `redis.call('ZREM', ${turns}, ${id})
if ${keyTurns} ~= '' then redis.call('ZREM', ${keyTurns}, ${id}) end`
}

/**
 * Job ARGV[1] (its hash KEYS[5]), about to be queued again by an operator, takes a new fair turn as a new job
 * does (`requeued`: KEYS[1] the unfinished jobs, KEYS[2] its fairness key's, '' for none, KEYS[3] BullMQ's active
 * list, KEYS[4] the admissions on their way, ARGV[2] BullMQ's key of a job less its id), in one write with its mark
 * (records.ts, MARK_FIELD) as the retry decided it, when ARGV[3] is '1': ARGV[4], or none when ''. Answers the
 * turn.
 */
export const RETAKE_TURN = luaScript(`${TAKE_TURN}
if ARGV[3] == '1' then
  if ARGV[4] == '' then redis.call('HDEL', KEYS[5], '${MARK_FIELD}') else redis.call('HSET', KEYS[5], '${MARK_FIELD}', ARGV[4]) end
end
return requeued(KEYS[5], KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[2], ARGV[1])`)
