// GET / and GET /explorer/<file>: the web explorer, served from memory (see ../explorer.ts).
import { HttpProblem } from '../problem.js'
import type { Handler } from '../context.js'
import { loadExplorer, sendAsset, type Explorer } from '../explorer.js'

export function explorerHandlers (explorer: Explorer = loadExplorer()): Record<string, Handler> {
  return {
    explorer: ({ req, res }) => {
      const page = explorer.files.get('/')
      if (page === undefined) {
        throw new HttpProblem('not_found', { detail: `This instance has no explorer: ${explorer.missing}.` })
      }
      sendAsset(req, res, page)
      return { body: null, streamed: true }
    },
    explorer_asset: ({ req, res, params }) => {
      const asset = explorer.files.get(`/explorer/${params.file}`)
      if (asset === undefined) {
        throw new HttpProblem('not_found', { detail: `No explorer file ${params.file.slice(0, 80)}.` })
      }
      sendAsset(req, res, asset)
      return { body: null, streamed: true }
    }
  }
}
