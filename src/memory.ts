// Large off-heap memory given back to the system. A SharedArrayBuffer is freed only when the
// garbage collector finds it unreferenced, and an idle process collects nothing: 32 answers of a
// hundred thousand points each left 1.5 GB resident for as long as no new request came (a
// collection brought it to 0.4 GB). Whoever drops a large buffer reports it here; once enough is
// dropped, one full collection runs a moment later.
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** Bytes dropped before a collection is worth its ~10 ms. */
const COLLECT_AFTER_BYTES = 128 * 1024 * 1024
/** Drops that follow one another closely are collected together. */
const COLLECT_DELAY_MS = 1000

let dropped = 0
let timer: NodeJS.Timeout | null = null
let collect: (() => void) | null | undefined

/** V8's full collection, made callable without starting Node with --expose-gc (null if it cannot be). */
function collector (): (() => void) | null {
  if (collect !== undefined) return collect
  try {
    setFlagsFromString('--expose-gc')
    collect = runInNewContext('gc') as () => void
  } catch {
    collect = null
  }
  return collect
}

/** Shared buffers a pool thread has held for a request, each counted once. */
const touched = new WeakSet<SharedArrayBuffer>()

/**
 * A pool thread held a request's shared memory for a task. Its own heap keeps the buffer alive
 * until that thread collects, and an idle thread never does: once enough has been held, the
 * thread collects too.
 */
export function heldShared (buffer: ArrayBufferLike): void {
  if (!(buffer instanceof SharedArrayBuffer) || touched.has(buffer)) return
  touched.add(buffer)
  droppedLarge(buffer.byteLength)
}

/** `bytes` of off-heap memory are no longer referenced: collect once enough has been. */
export function droppedLarge (bytes: number): void {
  dropped += bytes
  if (dropped < COLLECT_AFTER_BYTES || timer !== null) return
  timer = setTimeout(() => {
    timer = null
    dropped = 0
    collector()?.()
  }, COLLECT_DELAY_MS)
  timer.unref()
}
