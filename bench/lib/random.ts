// mulberry32: a small, fixed pseudo-random sequence, so every benchmark run sends the same mix
// (and the decoder's fuzz tests make the same mutations). The one implementation is the
// ensembles' (their members must repeat from a seed on every platform too).
export { uniforms as random } from '../../src/trajectory/ensemble.js'
