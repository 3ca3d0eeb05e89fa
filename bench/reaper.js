/**
 * Kills a process the bench spawned without an IPC channel (its redis-server) if the bench itself dies without
 * cleaning up (kill -9): forked with IPC by bench/redis.js, it waits, and when the channel closes it sends
 * SIGKILL to the pid it was given. On a normal end the bench stops that process itself, then this one.
 *
 *   node bench/reaper.js <pid>
 */
const pid = Number(process.argv[2])

process.on('disconnect', () => {
  try {
    process.kill(pid, 'SIGKILL')
  } catch {
    // already gone
  }
  process.exit(0)
})
process.on('message', (message) => {
  if (message?.type === 'stop') process.exit(0) // the bench stops the process itself
})
process.send({ type: 'ready' })
