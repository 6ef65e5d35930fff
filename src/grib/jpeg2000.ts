// Template 5.40: the integers are the samples of a JPEG 2000 code stream, decoded by OpenJPEG
// compiled to WebAssembly (@cornerstonejs/codec-openjpeg), then scaled like simple packing.
// The codec loads asynchronously, once per thread: call `initJpeg2000()` (via `initGrib()`) first.
import { createRequire } from 'node:module'
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

let codec: OpenJpegModule | null = null
let loading: Promise<void> | null = null

export function initJpeg2000 (): Promise<void> {
  loading ??= (async () => {
    // the package is CommonJS and ships no types; its factory resolves the .wasm beside itself
    const require = createRequire(import.meta.url)
    const factory = require('@cornerstonejs/codec-openjpeg/decodewasmjs') as (m: object) => Promise<OpenJpegModule>
    // OpenJPEG logs every header it reads; keep the CLI's stdout for its own output
    codec = await factory({ print: () => {}, printErr: () => {} })
  })()
  return loading
}

export function jpeg2000Ready (): boolean { return codec !== null }

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
  if (codec === null) {
    throw new GribError('codec_not_ready', 'JPEG 2000 field (template 5.40) decoded before `await initGrib()`')
  }
  checkCodestream(data, n)
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
    if (info.width * info.height !== n || info.componentCount !== 1) {
      throw new GribError('corrupt_section',
        `JPEG 2000 image is ${info.width}×${info.height}×${info.componentCount}, section 5 says ${n} values`)
    }
    if (info.bitsPerSample > 16 || info.isSigned) {
      throw new GribError('unsupported_packing',
        `JPEG 2000 with ${info.bitsPerSample}-bit ${info.isSigned ? 'signed' : 'unsigned'} samples`)
    }
    const bytes = decoder.getDecodedBuffer() // a view into WebAssembly memory: read before the next call
    const bs = power(p.binaryScale, 2)
    const ds = power(-p.decimalScale, 10)
    const R = p.reference
    if (info.bitsPerSample <= 8) {
      for (let i = 0; i < n; i++) out[i] = (bytes[i] * bs + R) * ds
    } else {
      for (let i = 0, k = 0; i < n; i++, k += 2) out[i] = ((bytes[k] | (bytes[k + 1] << 8)) * bs + R) * ds
    }
  } finally {
    decoder.delete()
  }
}
