// Answers that wait on a client that reads nothing. An answer the socket cannot take stays in
// memory (a samples answer is tens of MB) for as long as its client keeps the connection open;
// here every unfinished response is looked at once a second, and one whose bytes have not moved
// for the write timeout is cut off, so its memory goes back.
import type { ServerResponse } from 'node:http'

interface Progress {
  /** The socket's bytes handed to the system when last seen moving (or idle). */
  sent: number
  /** When the answer was last seen moving, or had nothing queued. */
  since: number
}

export class WriteWatch {
  readonly #watched = new Map<ServerResponse, Progress>()
  readonly #timer: NodeJS.Timeout

  /**
   * @param timeoutMs how long queued answer bytes may wait without any leaving
   * @param onStall told of each response cut off, before it is destroyed (with the bytes still queued)
   */
  constructor (readonly timeoutMs: number, private readonly onStall: (res: ServerResponse, queued: number) => void) {
    this.#timer = setInterval(() => this.sweep(), Math.min(1000, Math.max(50, Math.floor(timeoutMs / 4))))
    this.#timer.unref()
  }

  /** Watches a response until it closes. */
  watch (res: ServerResponse): void {
    this.#watched.set(res, { sent: 0, since: performance.now() })
    res.once('close', () => this.#watched.delete(res))
  }

  /** Responses watched now (tests). */
  get size (): number {
    return this.#watched.size
  }

  sweep (now = performance.now()): void {
    for (const [res, progress] of this.#watched) {
      const socket = res.socket
      // OutgoingMessage's writableLength counts its own queue and its socket's; a socket's
      // bytesWritten counts what it queued too, so what left it is the difference
      const queued = socket === null ? 0 : res.writableLength
      const sent = socket === null ? 0 : socket.bytesWritten - socket.writableLength
      if (queued === 0 || sent !== progress.sent) {
        progress.sent = sent
        progress.since = now
        continue
      }
      if (now - progress.since < this.timeoutMs) continue
      this.#watched.delete(res)
      this.onStall(res, queued)
      res.destroy()
    }
  }

  close (): void {
    clearInterval(this.#timer)
  }
}
