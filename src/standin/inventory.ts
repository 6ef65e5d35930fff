// A NOAA-format `.idx` inventory of a GRIB2 file (`n:offset:d=YYYYMMDDHH:VAR:LEVEL:STEP:`), for
// serving sample files in the bucket layout with the inventories NOAA puts beside its own.
import { isobaricLevelText, scanMessages } from '../grib/index.js'

export function inventory (bytes: Uint8Array): string {
  const lines: string[] = []
  let n = 0
  let lastMessage = -1
  for (const f of scanMessages(bytes)) {
    if (f.message !== lastMessage) { n++; lastMessage = f.message }
    const d = f.referenceTime.replace(/[-T:]/g, '').slice(0, 10)
    const level = f.level.type === 100 && f.level.value !== null
      ? isobaricLevelText(f.level.value)
      : f.level.type === 1
        ? 'surface'
        : f.level.type === 103 && f.level.value !== null && (f.level2 === null || f.level2.type === 255)
          ? `${f.level.value} m above ground`
          : `level type ${f.level.type} ${f.level.value ?? ''}`.trim()
    lines.push(`${n}:${f.offset}:d=${d}:${f.name}:${level}:${f.stepHours === 0 ? 'anl' : `${f.stepHours} hour fcst`}:`)
  }
  return lines.join('\n') + '\n'
}
