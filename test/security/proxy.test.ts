// Behind a proxy (docs/DESIGN.md §10, finding 8): with ALOFT_TRUSTED_PROXIES the client is the
// right-most X-Forwarded-For (or Forwarded: for=) hop that is not a trusted proxy, so strangers
// forwarded from different addresses get buckets of their own; from any other peer the headers
// are ignored; a trusted proxy's connections are not held to the per-address cap. IPv6 clients
// are counted per /64 (finding 9), and a wildcard tile host is refused.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { ConfigError, loadConfig } from '../../src/config/index.js'
import { repoPath } from '../helpers/paths.js'
import { startTestService } from '../helpers/service.js'
import { stranger } from '../helpers/stranger.js'

const PROXY = '127.0.8.1'
const env = { ALOFT_PUBLIC_TAWHIRI: 'on', ALOFT_PUBLIC_RATE_PER_SECOND: '0.01', ALOFT_PUBLIC_RATE_BURST: '2',
  ALOFT_TAWHIRI_BURST_WAIT_MS: '0', ALOFT_TRUSTED_PROXIES: `${PROXY}, 10.0.0.0/8`,
  ALOFT_MAX_CONNECTIONS_PER_ADDRESS: '2' }
const svc = await startTestService(t, { env })
const proxy = stranger(svc.url, PROXY, 8)
const untrusted = stranger(svc.url, '127.0.8.2', 1)
t.teardown(() => { proxy.close(); untrusted.close() })

/** The statuses of `n` datasetchecks with these headers, one after the other. */
async function asks (from: typeof proxy, n: number, headers: Record<string, string>): Promise<number[]> {
  const out: number[] = []
  for (let k = 0; k < n; k++) out.push((await from.get('/api/datasetcheck', headers)).status)
  return out
}

t.test('finding 8: clients forwarded by a trusted proxy each have their own bucket', async (t) => {
  t.same(await asks(proxy, 3, { 'x-forwarded-for': '203.0.113.5' }), [200, 200, 429], 'one client: its burst of 2')
  t.same(await asks(proxy, 2, { 'x-forwarded-for': '203.0.113.6' }), [200, 200], 'another client')
  t.same(await asks(proxy, 1, { 'x-forwarded-for': '192.0.2.1, 203.0.113.5' }), [429],
    'what the client wrote to the left of its own address changes nothing')
  t.same(await asks(proxy, 2, { 'x-forwarded-for': '203.0.113.7, 10.1.2.3' }), [200, 200],
    'the right-most hop not a trusted proxy (10.0.0.0/8 is one)')
  t.same(await asks(proxy, 2, { forwarded: 'for="[2001:db8::9]:4711";proto=https' }), [200, 200],
    'RFC 7239 Forwarded without X-Forwarded-For')
  t.same(await asks(proxy, 1, { 'x-forwarded-for': '198.51.100.1', forwarded: 'for=203.0.113.5' }), [200],
    'X-Forwarded-For first when both are sent')
})

t.test('finding 8: from a peer that is no trusted proxy the headers are ignored', async (t) => {
  t.same(await asks(untrusted, 3, { 'x-forwarded-for': '198.51.100.20' }).then(async (first) =>
    [...first, ...await asks(untrusted, 1, { 'x-forwarded-for': '198.51.100.21' })]), [200, 200, 429, 429],
  'one bucket, the peer\'s, whatever it claims')
})

t.test('finding 8: a trusted proxy\'s connections are not held to the per-address cap', async (t) => {
  const answers = await Promise.all(Array.from({ length: 6 }, async (_, k) =>
    (await proxy.get('/healthz', { 'x-forwarded-for': `203.0.113.${100 + k}` })).status))
  t.same(answers, [200, 200, 200, 200, 200, 200], 'six connections at once from the proxy, cap 2')
})

t.test('finding 9: IPv6 clients are counted per /64', async (t) => {
  t.same(await asks(proxy, 2, { 'x-forwarded-for': '2001:db8:1:2::5' }), [200, 200])
  t.same(await asks(proxy, 1, { 'x-forwarded-for': '2001:db8:1:2:ffff::6' }), [429], 'the same /64')
  t.same(await asks(proxy, 1, { 'x-forwarded-for': '2001:db8:1:3::5' }), [200], 'another /64')
  t.same(await asks(proxy, 1, { 'x-forwarded-for': '::ffff:203.0.113.6' }), [429],
    'an IPv4-mapped address is its IPv4 address')
})

t.test('finding 9: a wildcard tile host is refused', async (t) => {
  for (const url of ['https://*/{z}/{x}/{y}.png', 'https://*.tiles.example/{z}/{x}/{y}.png']) {
    t.throws(() => loadConfig({ ALOFT_MAP_TILES_URL: url }), ConfigError, url)
  }
  t.doesNotThrow(() => loadConfig({ ALOFT_MAP_TILES_URL: 'https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png' }))
})

t.test('ALOFT_TRUSTED_PROXIES takes addresses and CIDR blocks, nothing else', async (t) => {
  t.match(loadConfig({ ALOFT_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8, fd00::/8, ::1' }).trustedProxies, [
    { network: '127.0.0.1', prefix: 32, family: 'ipv4' }, { network: '10.0.0.0', prefix: 8, family: 'ipv4' },
    { network: 'fd00::', prefix: 8, family: 'ipv6' }, { network: '::1', prefix: 128, family: 'ipv6' }])
  for (const bad of ['proxy.example', '10.0.0.0/33', '10.0.0.0/', '1.2.3.4/8x']) {
    const refused = ((): unknown => {
      try {
        return loadConfig({ ALOFT_TRUSTED_PROXIES: bad })
      } catch (err) {
        return err
      }
    })()
    t.match(refused, { problems: [/^ALOFT_TRUSTED_PROXIES=.* is invalid: expected addresses or CIDR blocks/] }, bad)
  }
})

t.test('where ALOFT_TRUSTED_PROXIES is described, a client whose address is listed chooses its identity, and ' +
  'the example is the proxy\'s own address', async (t) => {
  const row = (text: string): string => text.split('\n').find((l) => l.startsWith('| `ALOFT_TRUSTED_PROXIES` |')) ?? ''
  const docs = { 'README.md': row(await readFile(repoPath('README.md'), 'utf8')),
    'docs/DEPLOY.md': row(await readFile(repoPath('docs/DEPLOY.md'), 'utf8')) }
  for (const [file, text] of Object.entries(docs)) {
    t.match(text, /a client whose own address is listed is believed too/i, `${file}: a listed client is believed`)
    t.match(text, /\(`127\.0\.0\.1`[,;]/, `${file}: the example is the proxy's own address`)
    t.notMatch(text, /\(`127\.0\.0\.1`, or its subnet|`127\.0\.0\.1, 10\.0\.0\.0\/8`/, `${file}: no subnet offered as the example`)
  }
})
