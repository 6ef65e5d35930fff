// Helper of scripts/source-check-writer.py: cut a box out of every field of a GRIB2 file with
// the local upstream's simple-packing writer, write the result and our decoder's reading of it.
// Usage (after `npm run build`): node dist/scripts/source-writer-cut.js
//   IN OUT BOTTOM TOP LEFT RIGHT
import { readFileSync, writeFileSync } from 'node:fs'
import { decodeField, scanMessages } from '../src/grib/index.js'
import { cutField } from '../src/standin/grib-writer.js'

const [input, output, bottom, top, left, right] = process.argv.slice(2)
const bytes = new Uint8Array(readFileSync(input))
const box = { bottomlat: Number(bottom), toplat: Number(top), leftlon: Number(left), rightlon: Number(right) }
const parts: Uint8Array[] = []
for (const f of scanMessages(bytes)) {
  const cut = cutField(bytes, f, box)
  if (cut !== null) parts.push(cut)
}
const out = Buffer.concat(parts)
writeFileSync(output, out)
const ours = scanMessages(new Uint8Array(out)).map((f) =>
  Array.from(decodeField(new Uint8Array(out), f), (v) => Number.isNaN(v) ? null : v))
writeFileSync(output + '.ours.json', JSON.stringify(ours))
console.log(`${parts.length} fields written to ${output}`)
