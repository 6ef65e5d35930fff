// The JPEG 2000 codec loads asynchronously: decoding a 5.40 field before initGrib() is a clear
// error, after it the field decodes. Two builds of OpenJPEG can decode (the system's libopenjp2
// through native/openjpeg, and WebAssembly): each must give ecCodes' values, and the same ones.
// (Its own file: a codec, once loaded, stays loaded.)
import t, { type Test } from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { decodeField, GribError, initGrib, jpeg2000Codec, scanMessages } from '../../src/grib/index.js'
import { expectedFile, fixture, sha256f32 } from './helpers.js'
import { repoPath } from '../helpers/paths.js'

const run = promisify(execFile)

const JPEG = 'NOAA-MDL+grib2io/tests/input_data/gfs.jpeg.grib2' // 0.25°, 16 bits
const CMC = 'noritada+grib-rs/testdata/CMC_glb_TMP_ISBL_1_latlon.24x.24_2021051800_P000.grib2' // 0.24°, 12 bits
// CI builds the native codec (.ci/run installs libopenjp2's headers) and sets this, so there its
// tests cannot quietly skip; elsewhere a machine without the headers skips them
const NATIVE_EXPECTED = process.env.ALOFT_EXPECT_NATIVE_JPEG2000 === '1'

/** Loads the native build, or says why not: a failure where CI expects it, a skip elsewhere. */
async function native (t: Test): Promise<boolean> {
  try {
    await initGrib({ jpeg2000: 'native' })
    return true
  } catch (err) {
    t.ok(err instanceof GribError && err.reason === 'codec_not_ready', 'refused as codec_not_ready')
    if (NATIVE_EXPECTED) t.fail(`native OpenJPEG expected here: ${(err as Error).message}`)
    else t.skip(`native OpenJPEG: ${(err as Error).message}`, () => {})
    return false
  }
}

t.test('5.40 before initGrib() is codec_not_ready; after it decodes', async (t) => {
  const bytes = fixture(JPEG)
  const [f] = scanMessages(bytes)
  t.equal(jpeg2000Codec(), null)
  t.throws(() => decodeField(bytes, f), { name: 'GribError', reason: 'codec_not_ready' })
  await Promise.all([initGrib(), initGrib()]) // idempotent, also when raced
  t.equal(sha256f32(decodeField(bytes, f)), expectedFile(JPEG).fields[0].sha256)
})

t.test('the WebAssembly build gives ecCodes\' values', async (t) => {
  await initGrib({ jpeg2000: 'wasm' })
  t.same(jpeg2000Codec(), { codec: 'wasm' })
  for (const file of [JPEG, CMC]) {
    const bytes = fixture(file)
    t.equal(sha256f32(decodeField(bytes, scanMessages(bytes)[0])), expectedFile(file).fields[0].sha256, file)
  }
})

t.test('the native build gives ecCodes\' values, the same as the WebAssembly build\'s', async (t) => {
  if (!await native(t)) return
  t.equal(jpeg2000Codec()?.codec, 'native')
  t.match(jpeg2000Codec()?.version, /^2\.\d+\.\d+/, 'libopenjp2 reports its version')
  for (const file of [JPEG, CMC]) {
    const bytes = fixture(file)
    t.equal(sha256f32(decodeField(bytes, scanMessages(bytes)[0])), expectedFile(file).fields[0].sha256, file)
  }
})

t.test('auto takes the native build when it was built, else the WebAssembly one', async (t) => {
  const built = await native(t)
  await initGrib({ jpeg2000: 'auto' })
  t.equal(jpeg2000Codec()?.codec, built ? 'native' : 'wasm')
})

t.test('a damaged JPEG 2000 or PNG stream is corrupt_section, with either build', async (t) => {
  const choices = ['wasm', ...(await native(t) ? ['native'] as const : [])] as const
  for (const choice of choices) {
    await initGrib({ jpeg2000: choice })
    for (const file of [JPEG, 'NOAA-MDL+grib2io/tests/input_data/gfs.png.grib2']) {
      const bytes = fixture(file).slice()
      const [f] = scanMessages(bytes)
      bytes[f.sections.data] ^= 0xff // the stream's first marker byte
      t.throws(() => decodeField(bytes, f), { name: 'GribError', reason: 'corrupt_section' }, `${choice} ${file}`)
      const deep = fixture(file).slice()
      deep.fill(0x55, f.sections.data + 200, f.sections.data + 4000) // header intact, coded data garbage
      // a codec may well decode garbage to garbage values; what matters is that nothing else escapes
      let outcome = 'decoded'
      try { decodeField(deep, f) } catch (err) { outcome = err instanceof GribError ? 'GribError' : String(err) }
      t.ok(['decoded', 'GribError'].includes(outcome), `${choice} ${file} garbage after the header: ${outcome}`)
    }
  }
})

t.test('a pool worker that loaded the native build leaves it loaded when it ends', async (t) => {
  // Node unloads a worker's addons when the worker ends; unmapping libopenjp2 under a pool that
  // starts and stops workers once aborted a CI run, so the addon is linked never to be unloaded.
  // A process of its own, where only the worker loads it (this one already has).
  if (!await native(t)) return
  if (process.platform !== 'linux') { t.skip('reads /proc/self/maps', () => {}); return }
  const addon = repoPath('native/openjpeg/build/Release/aloft_openjpeg.node')
  const script = `
    const { Worker } = require('node:worker_threads')
    const mapped = () => require('node:fs').readFileSync('/proc/self/maps', 'utf8').includes('libopenjp2')
    const before = mapped()
    const worker = new Worker(\`require('node:worker_threads').parentPort.postMessage(
      require(\${JSON.stringify(process.argv[1])}).version())\`, { eval: true })
    worker.once('message', async (version) => {
      const during = mapped()
      await worker.terminate()
      console.log(JSON.stringify({ before, version, during, after: mapped() }))
    })`
  const { stdout } = await run(process.execPath, ['-e', script, addon])
  t.same(JSON.parse(stdout), { before: false, version: jpeg2000Codec()?.version, during: true, after: true })
})
