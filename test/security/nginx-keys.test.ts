// No key in a log behind nginx either (docs/DESIGN.md §10; issue 50, finding 7): each spelling of
// a key (test/helpers/key-spellings.ts) sent through Debian's nginx running the shipped
// configuration (deploy/nginx/aloft.conf, set up as the deployment test sets it up) is in no answer,
// no line of aloft's log and no line of nginx's access log, which still logs each request.
import t from 'tap'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getOnce } from '../../bench/lib/deploy/http.js'
import { NGINX, selfSigned, startNginx } from '../../bench/lib/nginx.js'
import { freePort, waitFor } from '../../bench/lib/processes.js'
import { holdsKey, keySpellings } from '../helpers/key-spellings.js'
import { startTestService } from '../helpers/service.js'

const skip = existsSync(NGINX) ? false : `no nginx at ${NGINX} (Debian's nginx package, or NGINX_PATH)`
if (skip !== false) t.comment(skip)

t.test('a key in any spelling through nginx: in no answer, no aloft log line, no access log line', { skip },
  async (t) => {
    const svc = await startTestService(t, { env: { ALOFT_PUBLIC_TAWHIRI: 'on', ALOFT_LOG_LEVEL: 'debug' } })
    const { key } = await svc.newAccount()
    const dir = await mkdtemp(join(tmpdir(), 'aloft-nginx-keys-'))
    t.teardown(async () => await rm(dir, { recursive: true, force: true }))
    const tls = await selfSigned(dir)
    const nginx = await startNginx(dir, [svc.url], await freePort(), tls)
    t.teardown(async () => await nginx.stop())
    const spellings = keySpellings(key)
    const before = svc.logs.length
    for (const { name, target, status } of spellings) {
      const answer = await getOnce(`${nginx.url}/`, { path: target, ca: tls.pem })
      t.equal(answer.status, status, name)
      t.notOk(holdsKey(answer.body, key), `${name}: the answer does not echo the key`)
    }
    await waitFor('the access log', async () => (await nginx.accessLog()).length >= spellings.length, 5000)
    const logged = await nginx.accessLog()
    t.equal(logged.length, spellings.length, 'nginx logs each request')
    t.same(logged.filter((l) => holdsKey(l, key)), [], 'no access log line holds the key')
    t.same(svc.logs.slice(before).filter((l) => holdsKey(l, key)), [], 'no aloft log line holds the key')
  })
