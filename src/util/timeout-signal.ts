/**
 * A signal aborted after `ms` (a `TimeoutError`) or when `parent` aborts, whichever comes first. Not
 * `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: Node may collect a timeout signal that only a composite
 * holds before it fires (nodejs/node#57736), and the composite's abort then never comes. Here the timer holds the
 * controller, and both the timer and the listener on `parent` are dropped once the signal aborts.
 */
export function timeoutSignal(parent: AbortSignal, ms: number): AbortSignal {
  const controller = new AbortController()
  const onParent = () => controller.abort(parent.reason)
  const timer = setTimeout(() => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')), ms)
  // A pending budget never keeps the process alive by itself.
  timer.unref()
  controller.signal.addEventListener('abort', () => {
    clearTimeout(timer)
    parent.removeEventListener('abort', onParent)
  }, { once: true })
  if (parent.aborted) onParent()
  else parent.addEventListener('abort', onParent, { once: true })
  return controller.signal
}
