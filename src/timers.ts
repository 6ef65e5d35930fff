// A wait bounded in time that a busy event loop does not cut short. In each turn of its loop Node
// runs the timers that are due before it reads what has arrived (sockets, worker threads' messages):
// after the loop was held up past a bound — by other work of this process, or a machine shared with
// others — a plain race against a timer would call late an answer that arrived in time and sat
// unread. Here the timer's verdict waits for that turn's reading (setImmediate runs after it), so a
// bound means "no answer within this long", not "the loop did not get round to it".

/**
 * `work`'s outcome, or `onLate()`'s (its value, or what it throws) once `ms` have passed with no
 * answer arrived, read or unread.
 */
export async function withinMs<T> (work: Promise<T>, ms: number, onLate: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  let immediate: NodeJS.Immediate | undefined
  const late = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      immediate = setImmediate(() => {
        try {
          resolve(onLate())
        } catch (err) {
          reject(err)
        }
      })
    }, Math.max(0, ms))
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
    clearImmediate(immediate)
  }
}
