// No key in a log (docs/DESIGN.md §10, finding 6): a key put in a path of any shape — `//k/` (a
// base URL ending in `/` joined to `/k/…`), `/K/`, `/k/k/`, dot segments — or in a query value
// never reaches a log line or an answer's body. Shapes a browser would resolve work as `/k/…`. Nor
// does a key in any spelling (issue 50, finding 7): escaped letters, in either hex case, anywhere.
import t from 'tap'
import { holdsKey, keySpellings } from '../helpers/key-spellings.js'
import { startTestService } from '../helpers/service.js'
import { stranger } from '../helpers/stranger.js'

t.test('finding 6: a key in a path of any shape is in no log line and no answer', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_PUBLIC_TAWHIRI: 'on', ALOFT_LOG_LEVEL: 'debug' } })
  const { key } = await svc.newAccount()
  const who = stranger(svc.url, '127.0.6.1')
  t.teardown(() => who.close())
  const cases: Array<[string, number]> = [
    [`//k/${key}/api/datasetcheck`, 200],
    [`/./k/${key}/api/datasetcheck`, 200],
    [`/tawhiri/../k/${key}/api/datasetcheck`, 200],
    [`///k/${key}/api/datasetcheck?x=1`, 200],
    [`/K/${key}/api/datasetcheck`, 404],
    [`/k/k/${key}/api/datasetcheck`, 404],
    [`/v1/k/${key}/account`, 404],
    [`/k/${key}`, 404],
    [`/k/${encodeURIComponent(key).replace('_', '%5F')}/nothing/${key}`, 404],
    [`/api/ruaumoko/?latitude=${key}&longitude=1`, 400],
    [`/v1/atmosphere/trajectory?launch_datetime=${key}`, 401]
  ]
  const before = svc.logs.length
  for (const [path, status] of cases) {
    const answer = await who.get(path)
    t.equal(answer.status, status, path.replace(key, '<key>'))
    t.notOk(answer.body.includes(key.slice(6, 30)), 'the answer does not echo the key')
  }
  const keyed = await who.get(`/v1/atmosphere/trajectory?launch_datetime=${key}`, { 'x-api-key': key })
  t.equal(keyed.status, 400)
  t.notOk(keyed.body.includes(key.slice(6, 30)), 'nor does a 400 echoing the query')
  t.match(keyed.body, /aloft_\[redacted\]/)
  const echoed = await who.post('/v1/atmosphere/trajectory', JSON.stringify({ launch_latitude: { k: key } }),
    { 'x-api-key': key })
  t.equal(echoed.status, 400)
  t.notOk(echoed.body.includes(key.slice(6, 30)), 'nor does an object echoed as an error item\'s input')
  const lines = svc.logs.slice(before)
  t.ok(lines.length >= cases.length, `${lines.length} log lines`)
  t.same(lines.filter((l) => l.includes(key.slice(6, 30))), [], 'no log line holds the key')
  t.ok(lines.some((l) => l.includes('aloft_[redacted]')), 'the paths are logged, the key redacted')
})

t.test('finding 7 (issue 50): a key in any spelling is taken as a key path or redacted, never logged or echoed',
  async (t) => {
    const svc = await startTestService(t, { env: { ALOFT_PUBLIC_TAWHIRI: 'on', ALOFT_LOG_LEVEL: 'debug' } })
    const { key } = await svc.newAccount()
    const who = stranger(svc.url, '127.0.6.2')
    t.teardown(() => who.close())
    const before = svc.logs.length
    for (const { name, target, status } of keySpellings(key)) {
      const answer = await who.get(target)
      t.equal(answer.status, status, name)
      t.notOk(holdsKey(answer.body, key), `${name}: the answer does not echo the key`)
    }
    const lines = svc.logs.slice(before)
    t.same(lines.filter((l) => holdsKey(l, key)), [], 'no log line holds the key')
    t.ok(lines.filter((l) => l.includes('aloft_[redacted]')).length >= 4, 'the paths are logged, the key redacted')
  })
