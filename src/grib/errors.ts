// One error type for everything the decoder refuses. `reason` is the machine-readable part callers
// switch on; the message names the byte offset, template or code-table value that failed.
export type GribErrorReason =
  | 'not_grib' // no 'GRIB' marker where a message should start, or nothing that looks like GRIB
  | 'edition_1' // a GRIB1 message: aloft reads edition 2 only
  | 'truncated' // the bytes end before the message / section / data says they do
  | 'bad_length' // a length field that cannot be right (too small, past its container, absurd)
  | 'corrupt_section' // a section whose content contradicts itself or the GRIB2 tables
  | 'unsupported_grid' // grid template other than 3.0, or a 3.0 feature aloft does not read
  | 'unsupported_product' // product template other than 4.0 / 4.1 / 4.8, or an unknown time unit
  | 'unsupported_packing' // data template other than 5.0 / 5.2 / 5.3 / 5.40 / 5.41, or a feature of one
  | 'codec_not_ready' // a JPEG 2000 field decoded before `await initGrib()`
  | 'bad_output' // the caller's `out` array is too small
  | 'bad_idx' // a `.idx` inventory line that does not parse

export class GribError extends Error {
  readonly reason: GribErrorReason
  readonly offset?: number

  constructor (reason: GribErrorReason, message: string, offset?: number) {
    super(offset === undefined ? message : `${message} (at byte ${offset})`)
    this.name = 'GribError'
    this.reason = reason
    if (offset !== undefined) this.offset = offset
  }
}
