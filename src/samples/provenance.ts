// What every samples answer says of its source and methods (JSON body, or Arrow schema metadata).
import { PROCESSING_VERSION, SAMPLE_METHODS, SOURCE_FACTS, surfaceLayerMethods } from '../atmosphere/index.js'
import type { SamplesResponse } from '../contract/index.js'
import type { SampleOptions } from './points.js'

export function samplesProvenance (options: SampleOptions): SamplesResponse['provenance'] {
  const { is_final: _final, ...facts } = SOURCE_FACTS
  const methods = SAMPLE_METHODS[options.interpolation]
  return { ...facts, processing_version: PROCESSING_VERSION, ...methods,
    // the layer's dataset and method where it was asked for (each unit says whether it had it)
    ...(options.surfaceLayer === true ? surfaceLayerMethods(methods.vertical_interpolation) : {}) }
}
