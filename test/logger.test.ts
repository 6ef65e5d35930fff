// The logger redacts key-shaped text wherever a log call carries it (docs/DESIGN.md §10): the
// message, the object's string fields, an error's message and stack; nothing else is changed,
// and the caller's own object is left as it was.
import t from 'tap'
import { Writable } from 'node:stream'
import { createLogger } from '../src/logger.js'

const KEY = `aloft_${'Ab3_-'.repeat(8)}xyz`

function capture (): { lines: string[], logger: ReturnType<typeof createLogger> } {
  const lines: string[] = []
  const sink = new Writable({ write (chunk, _enc, cb) { lines.push(String(chunk)); cb() } })
  return { lines, logger: createLogger('info', sink) }
}

t.test('a key in a message, a field or an error is written redacted', async (t) => {
  const { lines, logger } = capture()
  const fields = { path: `/K/${KEY}/tawhiri`, status: 404, nested: { untouched: 'aloft_short' } }
  logger.info(fields, `request for /K/${KEY}/tawhiri`)
  logger.error({ err: new Error(`failed on /k/k/${KEY}/x`) }, 'unexpected error')
  logger.error(new Error(`thrown with ${encodeURIComponent(KEY).replace('_', '%5F')}`))
  t.equal(lines.length, 3)
  for (const line of lines) t.notOk(line.includes(KEY.slice(6, 30)), line)
  t.match(lines[0], '"path":"/K/aloft_[redacted]/tawhiri"')
  t.match(lines[0], '"msg":"request for /K/aloft_[redacted]/tawhiri"')
  t.match(lines[0], '"status":404')
  t.match(lines[1], /"message":"failed on \/k\/k\/aloft_\[redacted\]\/x"/)
  t.match(lines[1], /"stack":"Error: failed on \/k\/k\/aloft_\[redacted\]\/x\\n/)
  t.match(lines[2], 'thrown with aloft_[redacted]')
  t.equal(fields.path, `/K/${KEY}/tawhiri`, 'the caller\'s object is not changed')
})

t.test('text that only starts like a key is left as it is', async (t) => {
  const { lines, logger } = capture()
  logger.info({ metric: 'aloft_upstream_attempts_total', prefix: 'aloft_Xb3' }, 'aloft_http_requests_total')
  t.match(lines[0], '"metric":"aloft_upstream_attempts_total"')
  t.match(lines[0], '"prefix":"aloft_Xb3"')
  t.match(lines[0], '"msg":"aloft_http_requests_total"')
})
