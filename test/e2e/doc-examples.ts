// The documentation's runnable examples. A TypeScript block preceded by
// `<!-- example: <project>/<file> -->` is a complete file of a small project that the docs tests
// write out and run (so an example cannot drift from the code); `<!-- example: skip (<why>) -->`
// marks a complete-looking block that cannot run here, with the reason.
import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('../../', import.meta.url))

export interface DocExample {
  /** The markdown file, relative to the repository. */
  readonly doc: string
  /** The project the example belongs to (e.g. `quickstart`). */
  readonly project: string
  /** Its file name in that project. */
  readonly file: string
  readonly code: string
}

export interface DocBlock {
  readonly doc: string
  readonly code: string
  /** The marker before the block: a project file, `skip`, or nothing. */
  readonly marker:
    { kind: 'example'; project: string; file: string } | { kind: 'skip'; why: string } | undefined
}

/** README.md and docs/**\/*.md. */
export async function docFiles(): Promise<string[]> {
  const docs = await readdir(join(repo, 'docs'), { recursive: true })
  return ['README.md', ...docs.filter((d) => d.endsWith('.md')).map((d) => join('docs', d))].sort()
}

/** Every TypeScript block of a markdown file, with its marker. */
export function tsBlocks(doc: string, markdown: string): DocBlock[] {
  const blocks: DocBlock[] = []
  const pattern = /(?:<!--\s*example:\s*([^>]*?)\s*-->\s*\n)?```(?:ts|typescript)\n([\s\S]*?)```/g
  for (const match of markdown.matchAll(pattern)) {
    const tag = match[1]
    const code = match[2] ?? ''
    let marker: DocBlock['marker']
    if (tag !== undefined) {
      const skip = /^skip\s*\((.+)\)$/.exec(tag)
      const file = /^([\w-]+)\/([\w.-]+\.ts)$/.exec(tag)
      if (skip !== null) marker = { kind: 'skip', why: skip[1]! }
      else if (file !== null) marker = { kind: 'example', project: file[1]!, file: file[2]! }
      else throw new Error(`${doc}: unreadable example marker '${tag}'`)
    }
    blocks.push({ doc, code, marker })
  }
  return blocks
}

/** The runnable examples of every doc, optionally of one project. */
export async function docExamples(project?: string): Promise<DocExample[]> {
  const examples: DocExample[] = []
  for (const doc of await docFiles()) {
    for (const block of tsBlocks(doc, await readFile(join(repo, doc), 'utf8'))) {
      if (block.marker?.kind !== 'example') continue
      if (project !== undefined && block.marker.project !== project) continue
      examples.push({
        doc,
        project: block.marker.project,
        file: block.marker.file,
        code: block.code,
      })
    }
  }
  return examples
}

/**
 * The Jest quick start of docs/jest.md: each JavaScript block preceded by
 * `<!-- jest-example: <file> -->` is a complete file of a fresh Jest project.
 */
export async function jestDocExamples(): Promise<{ file: string; code: string }[]> {
  const markdown = await readFile(join(repo, 'docs/jest.md'), 'utf8')
  const pattern = /<!--\s*jest-example:\s*([\w.-]+)\s*-->\s*\n```js\n([\s\S]*?)```/g
  return [...markdown.matchAll(pattern)].map((m) => ({ file: m[1]!, code: m[2]! }))
}
