// A 400's `errors[]` entries in words (the contract's error-words.ts), written as the page writes
// numbers and takes times.
import { inWords as words, type ErrorItem } from '../../clients/typescript/src/error-words.js'
import { num } from './format.js'
import { TIME_EXAMPLE } from './time.js'

export { fieldPath, placeInWords, type ErrorItem } from '../../clients/typescript/src/error-words.js'

export const inWords = (item: ErrorItem, unit = ''): string => words(item, unit, { num, timeExample: TIME_EXAMPLE })
