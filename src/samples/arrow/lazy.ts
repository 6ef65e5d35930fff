// The Arrow request reader and answer writer, loaded on the first Arrow request rather than at
// start-up: apache-arrow is the largest part of the service's module graph (0.7 s of CPU to load
// under a test runner's module hooks, ~0.2 s plain) and most callers send JSON.
import type * as ArrowIo from './io.js'

let io: Promise<typeof ArrowIo> | undefined

export async function loadArrow (): Promise<typeof ArrowIo> {
  io ??= import('./io.js')
  return await io
}
