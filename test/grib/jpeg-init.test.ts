// The JPEG 2000 codec loads asynchronously: decoding a 5.40 field before initGrib() is a clear
// error, after it the field decodes. (Its own file: the codec, once loaded, stays loaded.)
import t from 'tap'
import { decodeField, GribError, initGrib, scanMessages } from '../../src/grib/index.js'
import { expectedFile, fixture, sha256f32 } from './helpers.js'

const JPEG = 'NOAA-MDL+grib2io/tests/input_data/gfs.jpeg.grib2'

t.test('5.40 before initGrib() is codec_not_ready; after it decodes', async (t) => {
  const bytes = fixture(JPEG)
  const [f] = scanMessages(bytes)
  t.throws(() => decodeField(bytes, f), { name: 'GribError', reason: 'codec_not_ready' })
  await Promise.all([initGrib(), initGrib()]) // idempotent, also when raced
  t.equal(sha256f32(decodeField(bytes, f)), expectedFile(JPEG).fields[0].sha256)
})

t.test('a damaged JPEG 2000 or PNG stream is corrupt_section', async (t) => {
  await initGrib()
  for (const file of [JPEG, 'NOAA-MDL+grib2io/tests/input_data/gfs.png.grib2']) {
    const bytes = fixture(file).slice()
    const [f] = scanMessages(bytes)
    bytes[f.sections.data] ^= 0xff // the stream's first marker byte
    t.throws(() => decodeField(bytes, f), { name: 'GribError', reason: 'corrupt_section' }, file)
    const deep = fixture(file).slice()
    deep.fill(0x55, f.sections.data + 200, f.sections.data + 4000) // header intact, coded data garbage
    // a codec may well decode garbage to garbage values; what matters is that nothing else escapes
    let outcome = 'decoded'
    try { decodeField(deep, f) } catch (err) { outcome = err instanceof GribError ? 'GribError' : String(err) }
    t.ok(['decoded', 'GribError'].includes(outcome), `${file} garbage after the header: ${outcome}`)
  }
})
