// Refusals a page can read (docs/DESIGN.md §10; issue 50, finding 6): on a Tawhiri path or under
// one, with the key in the path (`/k/<key>/…`) or without, every refusal carries CORS and is in
// Tawhiri's shape, so a page on another origin reads the reason instead of a CORS error: a 404 for
// a path no route takes, a 405 for a method the path does not take, and the 431 Node's parser
// answers before any route runs. Elsewhere they stay problem documents.
import t from 'tap'
import type { Test } from 'tap'
import { RawConnection, type RawAnswer } from '../helpers/raw-http.js'
import { startTestService } from '../helpers/service.js'

const svc = await startTestService(t, { env: { ALOFT_PUBLIC_TAWHIRI: 'on' } })
const { key } = await svc.newAccount()
const port = Number(new URL(svc.url).port)
const ORIGIN = 'https://predict.sondehub.org'
/** A header section over the 16 KiB limit. */
const BIG = { 'X-Padding': 'x'.repeat(20_000) }

/** One request from a page on another origin, on a connection of its own, written as given. */
async function ask (method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const connection = new RawConnection(port)
  t.teardown(() => connection.destroy())
  await connection.opened
  const lines = Object.entries({ Host: 'aloft', Origin: ORIGIN, 'Content-Length': '0', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`).join('')
  return await connection.request(`${method} ${path} HTTP/1.1\r\n${lines}\r\n`)
}

/** Each path as written and under the key's path. */
const withKey = (paths: string[]): string[] => paths.flatMap((p) => [p, `/k/${key}${p}`])
/** A request named in the test's output, without the key. */
const named = (method: string, path: string): string => `${method} ${path.replace(key, '<key>')}`

/** The answer is the status, readable by any origin, in Tawhiri's shape, without the key. */
function readableRefusal (t: Test, answer: RawAnswer, status: number, what: string): void {
  t.equal(answer.status, status, what)
  t.equal(answer.headers['access-control-allow-origin'], '*', `${what}: any origin may read it`)
  t.match(answer.headers['content-type'], /^application\/json/, `${what}: JSON`)
  t.match(JSON.parse(answer.body), {
    error: { type: 'RequestException', description: String },
    metadata: { start_datetime: String, complete_datetime: String }
  }, `${what}: Tawhiri's error shape`)
  t.notOk(answer.body.includes(key.slice(6)), `${what}: the key is not echoed`)
}

t.test('a path under a Tawhiri path that no route takes: a 404 a page can read', async (t) => {
  for (const path of withKey(['/tawhiri/x', '/api/v1/nope', '/api/datasetcheck/x', '/API/RUAUMOKO/x/y?latitude=1'])) {
    readableRefusal(t, await ask('GET', path), 404, named('GET', path))
  }
})

t.test('a method a Tawhiri path does not take: a 405 a page can read, with Allow', async (t) => {
  for (const [method, path] of [['POST', '/tawhiri'], ['PUT', '/api/v1/'], ['DELETE', '/api/datasetcheck']]) {
    for (const keyed of withKey([path])) {
      const answer = await ask(method, keyed)
      readableRefusal(t, answer, 405, named(method, keyed))
      t.match(answer.headers.allow, /\bGET\b/, `${named(method, keyed)}: Allow names GET`)
    }
  }
})

t.test('a header section over 16 KiB on a Tawhiri path: a 431 a page can read', async (t) => {
  for (const path of withKey(['/api/datasetcheck', '/tawhiri?launch_latitude=1', '/api/v1/nope'])) {
    const answer = await ask('GET', path, BIG)
    readableRefusal(t, answer, 431, named('GET', path))
    t.equal(answer.headers.connection, 'close', `${named('GET', path)}: the connection closed`)
    t.ok(answer.headers['x-request-id'], `${named('GET', path)}: a request id`)
  }
})

t.test('elsewhere the same refusals stay problem documents, without CORS', async (t) => {
  const cases: Array<[string, string, Record<string, string>, number]> = [
    ['GET', '/v1/nope', {}, 404],
    ['GET', '/tawhirix', {}, 404],
    ['PUT', '/v1/account', {}, 405],
    ['GET', '/v1/account', BIG, 431],
    ['GET', '/', BIG, 431]
  ]
  for (const [method, path, headers, status] of cases) {
    const answer = await ask(method, path, headers)
    t.equal(answer.status, status, `${method} ${path}`)
    t.equal(answer.headers['content-type'], 'application/problem+json', `${method} ${path}: a problem document`)
    t.equal(answer.headers['access-control-allow-origin'], undefined, `${method} ${path}: no CORS`)
  }
})
