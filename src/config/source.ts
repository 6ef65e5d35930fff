// ALOFT_SOURCE's forms: noaa, mirror:<directory or URL>, filter:<grib-filter URL>. A new upstream
// adapter's kind is added here (and to SourceSetting, config.ts).
import type { SourceSetting } from './config.js'
import type { VariableReader } from './reader.js'

export function readSource (read: VariableReader): SourceSetting {
  const value = read.raw('ALOFT_SOURCE')
  if (value === 'noaa') return { kind: 'noaa' }
  const colon = value.indexOf(':')
  const kind = colon < 0 ? value : value.slice(0, colon)
  const rest = colon < 0 ? '' : value.slice(colon + 1)
  if (kind === 'mirror' && rest !== '') return { kind: 'mirror', location: rest }
  if (kind === 'filter' && /^https?:\/\/\S+$/.test(rest)) return { kind: 'filter', url: rest }
  read.invalid('ALOFT_SOURCE', value, 'noaa, mirror:<directory or http(s) URL>, or filter:<http(s) URL>')
  return { kind: 'noaa' }
}
