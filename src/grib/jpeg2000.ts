// Template 5.40: the integers are the samples of a JPEG 2000 code stream, decoded by OpenJPEG, then
// scaled like simple packing. Two builds of that library: the system's libopenjp2 (the one ecCodes
// links) through the small addon in native/openjpeg, built by `npm ci` where a compiler and the
// library's headers are found; and OpenJPEG compiled to WebAssembly (@cornerstonejs/codec-openjpeg),
// which works everywhere and runs ~1.3× slower. Both give the same integers (test/grib/jpeg-init.test.ts).
// A codec loads once per thread: call `initJpeg2000()` (via `initGrib()`) first.
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { u16, u32 } from './bytes.js'
import { GribError } from './errors.js'
import { power } from './scaling.js'
import type { DataParams } from './section5.js'

interface FrameInfo { width: number, height: number, bitsPerSample: number, componentCount: number, isSigned: boolean }
interface J2KDecoder {
  getEncodedBuffer: (length: number) => Uint8Array
  getDecodedBuffer: () => Uint8Array
  getFrameInfo: () => FrameInfo
  decode: () => void
  delete: () => void
}
interface OpenJpegModule { J2KDecoder: new () => J2KDecoder }
/** native/openjpeg/decode.c: writes `out` only for one unsigned component of ≤ 16 bits and out.length samples. */
interface NativeOpenJpeg {
  decode: (codestream: Uint8Array, out: Float32Array, binaryFactor: number, reference: number,
    decimalFactor: number) => [width: number, height: number, components: number, bits: number, signed: number]
  version: () => string
}

/** Which build decodes: `auto` takes the native one when it was built. */
export type Jpeg2000Choice = 'auto' | 'native' | 'wasm'
export type Jpeg2000Codec = 'native' | 'wasm'

const require = createRequire(import.meta.url)
let wasm: OpenJpegModule | null = null
let wasmLoading: Promise<void> | null = null
let native: NativeOpenJpeg | null | undefined // undefined: not looked for yet; null: not built
let nativeMissing = ''
let active: Jpeg2000Codec | null = null

/** The addon beside the sources (src/grib/ under tap, dist/src/grib/ once built). */
function loadNative (): NativeOpenJpeg | null {
  if (native !== undefined) return native
  native = null
  const tried: string[] = []
  for (const up of ['../../', '../../../']) {
    const path = fileURLToPath(new URL(`${up}native/openjpeg/build/Release/aloft_openjpeg.node`, import.meta.url))
    try {
      native = require(path) as NativeOpenJpeg
      return native
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code !== 'MODULE_NOT_FOUND') {
        nativeMissing = `not usable: ${path}: ${err instanceof Error ? err.message : String(err)}`
        return null
      }
      tried.push(path)
    }
  }
  nativeMissing = `not built (no ${tried.join(' or ')}; \`npm ci\` builds it where libopenjp2's headers are installed)`
  return null
}

/** Loads the chosen build (idempotent; a later call may switch builds, as the tests and bench/decode do). */
export async function initJpeg2000 (choice: Jpeg2000Choice = 'auto'): Promise<void> {
  if (choice !== 'wasm') {
    if (loadNative() !== null) {
      active = 'native'
      return
    }
    if (choice === 'native') throw new GribError('codec_not_ready', `native OpenJPEG is ${nativeMissing}`)
  }
  wasmLoading ??= (async () => {
    // the package is CommonJS and ships no types; its factory resolves the .wasm beside itself
    const factory = require('@cornerstonejs/codec-openjpeg/decodewasmjs') as (m: object) => Promise<OpenJpegModule>
    // OpenJPEG logs every header it reads; keep the CLI's stdout for its own output
    wasm = await factory({ print: () => {}, printErr: () => {} })
  })()
  await wasmLoading
  active = 'wasm'
}

/** The build decoding 5.40 fields in this thread, with its library version; null before `initJpeg2000()`. */
export function jpeg2000Codec (): { codec: Jpeg2000Codec, version?: string } | null {
  if (active === null) return null
  return active === 'native' ? { codec: 'native', version: (native as NativeOpenJpeg).version() } : { codec: 'wasm' }
}

/**
 * Read the SIZ marker before OpenJPEG does: a corrupt size or tiling would make it allocate
 * without bound or spend minutes on millions of tiles.
 */
function checkCodestream (data: Uint8Array, n: number): void {
  if (data.length < 42 || u16(data, 0) !== 0xff4f || u16(data, 2) !== 0xff51) {
    throw new GribError('corrupt_section',
      'section 7 of a 5.40 field does not start with a JPEG 2000 codestream (SOC, SIZ)')
  }
  const width = u32(data, 8) - u32(data, 16); const height = u32(data, 12) - u32(data, 20)
  const tw = u32(data, 24); const th = u32(data, 28)
  const components = u16(data, 40)
  if (width * height !== n || components !== 1) {
    throw new GribError('corrupt_section',
      `JPEG 2000 image is ${width}×${height}×${components}, section 5 says ${n} values`)
  }
  if (tw === 0 || th === 0 || Math.ceil(width / tw) * Math.ceil(height / th) > 4096) {
    throw new GribError('unsupported_packing', `JPEG 2000 tiling ${tw}×${th} for a ${width}×${height} image`)
  }
}

export function decode (p: DataParams, data: Uint8Array, out: Float32Array): void {
  const n = out.length
  if (p.bitsPerValue === 0) { out.fill(p.reference); return } // constant, as ecCodes
  if (active === null) {
    throw new GribError('codec_not_ready', 'JPEG 2000 field (template 5.40) decoded before `await initGrib()`')
  }
  checkCodestream(data, n)
  const bs = power(p.binaryScale, 2)
  const ds = power(-p.decimalScale, 10)
  if (active === 'native') decodeNative(native as NativeOpenJpeg, data, out, bs, p.reference, ds)
  else decodeWasm(wasm as OpenJpegModule, data, out, bs, p.reference, ds)
}

function checkImage (n: number, width: number, height: number, components: number, bits: number,
  signed: boolean): void {
  if (width * height !== n || components !== 1) {
    throw new GribError('corrupt_section',
      `JPEG 2000 image is ${width}×${height}×${components}, section 5 says ${n} values`)
  }
  if (bits > 16 || signed) {
    throw new GribError('unsupported_packing', `JPEG 2000 with ${bits}-bit ${signed ? 'signed' : 'unsigned'} samples`)
  }
}

function decodeNative (codec: NativeOpenJpeg, data: Uint8Array, out: Float32Array, bs: number, R: number,
  ds: number): void {
  let facts: ReturnType<NativeOpenJpeg['decode']>
  try {
    facts = codec.decode(data, out, bs, R, ds) // (v × bs + R) × ds in double, once to float32, as below
  } catch (err) {
    throw new GribError('corrupt_section',
      `JPEG 2000 stream does not decode: ${err instanceof Error ? err.message.trim() : String(err)}`)
  }
  checkImage(out.length, facts[0], facts[1], facts[2], facts[3], facts[4] !== 0)
}

function decodeWasm (codec: OpenJpegModule, data: Uint8Array, out: Float32Array, bs: number, R: number,
  ds: number): void {
  const n = out.length
  // A decoder per field, not one reused: nearly all the time is OpenJPEG's own decoding inside
  // WebAssembly (a reused decoder measured no faster on a 0.25° field), and after a stream that
  // fails to decode a reused one still reports the previous image, whose values would come back.
  const decoder = new codec.J2KDecoder()
  try {
    decoder.getEncodedBuffer(data.length).set(data)
    try {
      decoder.decode()
    } catch (err) {
      throw new GribError('corrupt_section',
        `JPEG 2000 stream does not decode: ${err instanceof Error ? err.message : String(err)}`)
    }
    const info = decoder.getFrameInfo()
    checkImage(n, info.width, info.height, info.componentCount, info.bitsPerSample, info.isSigned)
    const bytes = decoder.getDecodedBuffer() // a view into WebAssembly memory: read before the next call
    if (info.bitsPerSample <= 8) {
      for (let i = 0; i < n; i++) out[i] = (bytes[i] * bs + R) * ds
    } else {
      for (let i = 0, k = 0; i < n; i++, k += 2) out[i] = ((bytes[k] | (bytes[k + 1] << 8)) * bs + R) * ds
    }
  } finally {
    decoder.delete()
  }
}
