// The TypeScript client's types (clients/typescript/src/openapi.ts), generated from the service's
// own OpenAPI document by openapi-typescript: the contract (TypeBox) bundled by esbuild and run
// here, so the types come from the source before anything is compiled. Written only when they
// change, so an incremental build stays incremental.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import openapiTS, { astToString } from 'openapi-typescript'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const CLIENT_TYPES = join(root, 'clients/typescript/src/openapi.ts')

/** The OpenAPI document of every operation (the operator's included, as a service with a token serves it). */
export async function openApiDocument () {
  const bundled = await build({
    stdin: {
      contents: "export { buildOpenApi, servedRoutes } from './src/contract/index.ts'",
      resolveDir: root, loader: 'ts'
    },
    bundle: true, write: false, platform: 'node', format: 'esm', logLevel: 'warning', packages: 'external'
  })
  // run from a file under dist/, so the bundle's bare imports (TypeBox) resolve from the project's node_modules
  const file = join(root, 'dist/.openapi-document.mjs')
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, bundled.outputFiles[0].text)
  const module = await import(`${pathToFileURL(file).href}?${Date.now()}`)
  return module.buildOpenApi(module.servedRoutes('every-operation'))
}

export async function writeClientTypes () {
  const document = await openApiDocument()
  const types = '// Generated from the service\'s OpenAPI document by openapi-typescript (scripts/client-types.mjs)' +
    ' at build time: do not edit.\n' + astToString(await openapiTS(document, { defaultNonNullable: false }))
  if (!existsSync(CLIENT_TYPES) || readFileSync(CLIENT_TYPES, 'utf8') !== types) writeFileSync(CLIENT_TYPES, types)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await writeClientTypes()
