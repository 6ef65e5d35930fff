// GET / and its assets: the right types, cache rules, compression and a strict CSP, from memory.
import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { request } from 'node:http'
import { startTestService } from '../helpers/service.js'
import { EXPLORER_CSP, loadExplorer } from '../../src/http/explorer.js'
import { explorerHandlers } from '../../src/http/routes/explorer.js'

/** fetch() cannot show the wire: this returns the bytes as sent and the headers. */
function raw (url: string, headers: Record<string, string> = {}): Promise<{
  status: number, headers: Record<string, string | string[] | undefined>, body: Buffer
}> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
    }).on('error', reject).end()
  })
}

t.test('the explorer and its assets', async (t) => {
  const svc = await startTestService(t)
  const page = await raw(`${svc.url}/`)
  t.equal(page.status, 200)
  t.equal(page.headers['content-type'], 'text/html; charset=utf-8')
  t.equal(page.headers['cache-control'], 'no-cache', 'the page is revalidated: a new build is seen at once')
  t.equal(page.headers['content-security-policy'], EXPLORER_CSP)
  t.match(EXPLORER_CSP, /script-src 'self';/, 'scripts from this origin only, none inline')
  t.notMatch(EXPLORER_CSP, /unsafe-inline|unsafe-eval|\*/, 'nothing inline, nothing evaluated, no wildcard')
  t.equal(page.headers['x-content-type-options'], 'nosniff')
  const html = page.body.toString()
  t.notMatch(html, /<script>|<style>| style=| on[a-z]+=/, 'no inline script, style or handler in the page')
  const assets = [...html.matchAll(/(?:src|href)="(\/explorer\/[^"]+)"/g)].map((m) => m[1])
  t.equal(assets.length, 2, 'one script and one stylesheet')
  const weight = { raw: page.body.length, gzip: 0 }
  for (const path of assets) {
    const plain = await raw(`${svc.url}${path}`)
    t.equal(plain.status, 200, path)
    t.match(plain.headers['content-type'], path.endsWith('.js') ? 'text/javascript' : 'text/css')
    t.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable', 'hashed names are kept a year')
    const zipped = await raw(`${svc.url}${path}`, { 'accept-encoding': 'gzip, br' })
    t.equal(zipped.headers['content-encoding'], 'gzip')
    t.ok(zipped.body.length < plain.body.length / 2, `${path}: ${plain.body.length} B, ${zipped.body.length} gzipped`)
    t.same(gunzipSync(zipped.body), plain.body, 'the same bytes once unzipped')
    weight.raw += plain.body.length
    weight.gzip += zipped.body.length
    const again = await raw(`${svc.url}${path}`, { 'if-none-match': String(plain.headers.etag) })
    t.equal(again.status, 304, 'a current copy is not sent again')
    t.equal(again.body.length, 0)
  }
  t.comment(`page weight (HTML, JS, CSS; the map data aside): ${weight.raw} bytes, ${weight.gzip} gzipped + HTML`)
  const missing = await raw(`${svc.url}/explorer/app-000000000000.js`)
  t.equal(missing.status, 404)
  t.equal(JSON.parse(missing.body.toString()).code, 'not_found')
})

t.test('with ALOFT_MAP_TILES_URL the page names the tiles and its CSP allows exactly their origins', async (t) => {
  const plain = await startTestService(t)
  const svc = await startTestService(t, { env: {
    ALOFT_MAP_TILES_URL: 'https://{s}.tile.example.org:8443/{z}/{x}/{y}.png?style="a"&b',
    ALOFT_MAP_TILES_ATTRIBUTION: '© Example <Tiles>'
  } })
  const page = await raw(`${svc.url}/`)
  const html = page.body.toString()
  t.match(html, '<meta name="aloft-map-tiles" content="https://{s}.tile.example.org:8443/{z}/{x}/{y}.png' +
    '?style=&quot;a&quot;&amp;b">', 'the template, escaped for an attribute')
  t.match(html, '<meta name="aloft-map-attribution" content="© Example &lt;Tiles&gt;">')
  t.equal(page.headers['content-security-policy'], EXPLORER_CSP.replace("img-src 'self' data:;", "img-src 'self' " +
    'data: https://a.tile.example.org:8443 https://b.tile.example.org:8443 https://c.tile.example.org:8443;'))
  const before = await raw(`${plain.url}/`)
  t.not(page.headers.etag, before.headers.etag, 'the ETag is of the page as written')
  t.equal((await raw(`${svc.url}/`, { 'if-none-match': String(page.headers.etag) })).status, 304)
  t.equal((await raw(`${svc.url}/`, { 'if-none-match': String(before.headers.etag) })).status, 200,
    'a copy without the tiles is not current')
})

t.test('an instance without a built explorer says how to build one', async (t) => {
  const empty = await mkdtemp(join(tmpdir(), 'aloft-no-explorer-'))
  t.teardown(() => rm(empty, { recursive: true, force: true }))
  const none = loadExplorer(`${empty}/`)
  t.equal(none.files.size, 0)
  t.match(none.missing, 'run npm run build')
  const handlers = explorerHandlers(none)
  t.throws(() => handlers.explorer({} as never), { code: 'not_found', message: /no explorer: the explorer is not built/ },
    'GET / answers 404 saying how to build it')
  await writeFile(join(empty, 'index.html'), '<!doctype html><title>x</title>')
  await writeFile(join(empty, 'notes.txt'), 'not served')
  const built = loadExplorer(`${empty}/`)
  t.same([...built.files.keys()], ['/'], 'only known types are served')
})
