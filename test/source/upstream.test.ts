// The local NOAA stand-in itself: bucket objects with Range, ListObjectsV2 paging, NOMADS
// listing pages and filter, failure injection, and `aloft upstream` by hand.
import t from 'tap'
import { spawn } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import { scanMessages } from '../../src/grib/index.js'
import { run } from '../../src/cli/upstream.js'
import { startSampleUpstream } from '../helpers/upstream.js'
import { compiled } from '../helpers/paths.js'

const KEY = 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f006'

t.test('bucket layout', async (t) => {
  const { server } = await startSampleUpstream(t, { idx: true })
  const base = server.bucketUrl
  const whole = await fetch(`${base}/${KEY}`)
  t.equal(whole.status, 200)
  t.equal((await whole.arrayBuffer()).byteLength, 1_092_817)
  const part = await fetch(`${base}/${KEY}`, { headers: { range: 'bytes=0-15' } })
  t.equal(part.status, 206)
  t.equal(part.headers.get('content-range'), 'bytes 0-15/1092817')
  t.same([...new Uint8Array(await part.arrayBuffer())].slice(0, 4), [0x47, 0x52, 0x49, 0x42])
  const tail = await fetch(`${base}/${KEY}`, { headers: { range: 'bytes=-4' } })
  t.equal(new TextDecoder().decode(await tail.arrayBuffer()), '7777')
  const open = await fetch(`${base}/${KEY}`, { headers: { range: 'bytes=1092813-' } })
  t.equal(open.headers.get('content-range'), 'bytes 1092813-1092816/1092817')
  t.equal((await fetch(`${base}/${KEY}`, { headers: { range: 'bytes=2000000-' } })).status, 416)
  const idx = await (await fetch(`${base}/${KEY}.idx`)).text()
  t.match(idx, /^1:0:d=2020080412:CLWMR:level type 105 1:6 hour fcst:\n2:1190:/)
  t.match(idx, /:HGT:500 mb:6 hour fcst:\n/)
  t.match(idx, /:HGT:surface:6 hour fcst:\n/)
  t.equal((await fetch(`${base}/nope`)).status, 404)
  t.match(await (await fetch(`${base}/gfs.2099/x`)).text(), /NoSuchKey/)
  t.equal((await fetch(`${base}/${KEY}`, { method: 'HEAD' })).headers.get('content-length'), '1092817')
  t.equal((await fetch(`${base}/${KEY}`, { method: 'POST' })).status, 405)
  t.equal((await fetch(`${base}/%2E%2E/%2E%2E/etc/passwd`)).status, 404, 'never outside the root')

  const list = await (await fetch(`${base}/?list-type=2&prefix=gfs.&delimiter=%2F`)).text()
  t.same(
    [...list.matchAll(/<CommonPrefixes><Prefix>([^<]*)<\/Prefix>/g)].map((m) => m[1]),
    ['gfs.20200721/', 'gfs.20200722/', 'gfs.20200728/', 'gfs.20200804/', 'gfs.20200815/', 'gfs.20200829/']
  )
  const files = await (await fetch(`${base}/?list-type=2&prefix=gfs.20200804%2F12%2Fatmos%2F&delimiter=%2F`)).text()
  t.equal([...files.matchAll(/<Key>/g)].length, 6, 'three files and their .idx')
  // paging: two keys a page
  const keys: string[] = []
  let token: string | undefined
  let pages = 0
  do {
    const continuation = token === undefined ? '' : `&continuation-token=${token}`
    const page: string = await (
      await fetch(`${base}/?list-type=2&prefix=gfs.20200804%2F&max-keys=2${continuation}`)
    ).text()
    keys.push(...[...page.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]))
    token = /<NextContinuationToken>([^<]*)</.exec(page)?.[1]
    pages++
  } while (token !== undefined && pages < 10)
  t.equal(pages, 3)
  t.equal(keys.length, 6)
  t.equal(server.count(/list-type=2/), 5)
  t.equal(server.count('list-type=2'), 0, 'a string looks at the path only')
})

t.test('NOMADS layout: listing pages and the grib filter', async (t) => {
  const { server } = await startSampleUpstream(t, { only: [KEY] })
  const top = await (await fetch(server.listingUrl)).text()
  t.match(top, /<a href="gfs\.20200804\/">gfs\.20200804\/<\/a>/)
  t.equal((await fetch(server.listingUrl + 'gfs.20990101/')).status, 404)
  const q = (extra: string): string =>
    `${server.filterUrl}?dir=%2Fgfs.20200804%2F12%2Fatmos&file=gfs.t12z.pgrb2.0p25.f006&${extra}`
  const all = new Uint8Array(await (await fetch(q('var_TMP=on&lev_500_mb=on&lev_surface=on'))).arrayBuffer())
  const fields = scanMessages(all)
  t.same(
    fields.map((f) => `${f.name}:${f.level.name}`),
    ['TMP:isobaric', 'TMP:surface'],
    'no subregion: the original messages'
  )
  t.equal(fields[0].packing, 0)
  t.equal(fields[0].grid.ni, 49)
  const cut = scanMessages(new Uint8Array(await (
    await fetch(q('var_HGT=on&lev_0.4_mb=on&subregion=&leftlon=14&rightlon=15&toplat=50&bottomlat=49'))
  ).arrayBuffer()))
  t.same(cut.map((f) => [f.name, f.level.value, f.grid.ni, f.grid.nj]), [['HGT', 40, 5, 5]])
  t.match(
    await (await fetch(q('all_var=on&all_lev=on&subregion=&leftlon=x&rightlon=1&toplat=1&bottomlat=0'))).text(),
    /bad subregion/
  )
  t.match(await (await fetch(q('var_NOPE=on&lev_500_mb=on'))).text(), /no data matched/)
  const missing = await fetch(
    `${server.filterUrl}?dir=%2Fgfs.20990101%2F00%2Fatmos&file=gfs.t00z.pgrb2.0p25.f000&var_TMP=on`
  )
  t.equal(missing.status, 200, 'NOMADS answers a missing file with 200 …')
  t.match(await missing.text(), /data file is not present/, '… and an HTML page')
  t.match(await (await fetch(`${server.filterUrl}?dir=..%2F..&file=x`)).text(), /not present/)
})

t.test('failure injection', async (t) => {
  const { server } = await startSampleUpstream(t, { only: [KEY] })
  const url = `${server.bucketUrl}/${KEY}`
  const once = server.fail({ match: KEY, mode: 429, times: 1 })
  const r = await fetch(url)
  t.equal(r.status, 429)
  t.equal(r.headers.get('retry-after'), '1')
  t.equal((await fetch(url)).status, 200, 'the rule lapsed after one use')
  once()
  server.fail({ match: KEY, mode: 'truncated' })
  t.equal((await (await fetch(url)).arrayBuffer()).byteLength, Math.floor(1_092_817 / 2))
  server.clearFailures()
  server.fail({ match: KEY, mode: 'not_present' })
  t.match(await (await fetch(url)).text(), /data file is not present/)
  server.clearFailures()
  server.fail({ match: /f006$/, mode: 'reset' })
  await t.rejects(fetch(url))
  server.clearFailures()
  server.fail({ match: KEY, mode: { slowMs: 120 } })
  const started = Date.now()
  t.equal((await fetch(url)).status, 200)
  t.ok(Date.now() - started >= 110)
  t.ok(server.requests.every((q) => q.at > 0))
})

t.test('aloft upstream: arguments', async (t) => {
  const errors: string[] = []
  const logs: string[] = []
  t.intercept(console, 'error', { value: (m: string) => errors.push(m) })
  t.intercept(console, 'log', { value: (m: string) => logs.push(m) })
  t.equal(await run(['--help']), 0)
  t.match(logs.join('\n'), /usage: aloft upstream --root DIR/)
  t.equal(await run([]), 2)
  t.equal(await run(['--root']), 2)
  t.equal(await run(['--what']), 2)
  t.equal(await run(['--root', '/nonexistent-aloft-root']), 2)
  t.equal(await run(['--root=.', '--port', 'x']), 2)
  t.match(
    errors.join('\n'),
    /--root is required[\s\S]*needs a value[\s\S]*unknown argument[\s\S]*not a directory[\s\S]*not a port/
  )
})

t.test('aloft upstream: runs by hand until SIGTERM', async (t) => {
  const { root } = await startSampleUpstream(t, { only: [KEY] })
  const cli = pathToFileURL(compiled('src/cli/upstream')).href
  const child = spawn(process.execPath, ['--input-type=module', '-e',
    `const m = await import(${JSON.stringify(cli)}); ` +
    `process.exitCode = await m.run(['--root', ${JSON.stringify(root)}, '--port', '0'])`],
  { stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  let out = ''
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /bucket \/ mirror: (http:\/\/\S+)/.exec(out)
      if (m !== null) resolve(m[1])
    })
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
  t.equal((await fetch(`${base}/${KEY}`, { method: 'HEAD' })).status, 200)
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  child.kill('SIGTERM')
  t.equal(await exited, 0)
})
