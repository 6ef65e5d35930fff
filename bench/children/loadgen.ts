// bench/loadgen: a small HTTP load generator, run in its own process so it never shares an
// event loop with the server it measures (started by bench/lib/loadgen-child.ts `loadgen`).
//   node dist/bench/children/loadgen.js '<LoadSpec as JSON>'   → one JSON line, a LoadResult
// The run itself (closed or open loop, its clients) is bench/lib/load-run.ts; the open loop's C
// client, bench/children/loadgen.c, is compiled and driven by bench/lib/load-c.ts.
import type { LoadSpec } from '../lib/load-spec.js'
import { runLoad } from '../lib/load-run.js'

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec
const result = await runLoad(spec)
process.stdout.write(JSON.stringify(result) + '\n')
process.exit(0)
