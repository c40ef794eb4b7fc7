/**
 * aapt2, the reference tool that compiles and reads Android binary XML (Debian package `aapt`,
 * which ships `aapt2`): tests that cross-check our reader and the virtual device's writer against
 * it skip with a notice when it is absent, as the dmtracedump and adb cross-checks do.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const AAPT2 = '/usr/bin/aapt2'
export const hasAapt2 = existsSync(AAPT2)
if (!hasAapt2) {
  console.warn(
    `NOTICE: ${AAPT2} not found: cross-checks of binary XML against aapt2 are SKIPPED (apt-get install aapt)`,
  )
}

/**
 * An APK that aapt2 itself compiled and linked from `xml` as res/xml/power_profile.xml
 * (`aapt2 compile --dir res`, `aapt2 link --manifest`; no android.jar needed).
 */
export function aapt2Apk(xml: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 've-aapt2-'))
  try {
    mkdirSync(join(dir, 'res', 'xml'), { recursive: true })
    writeFileSync(join(dir, 'res', 'xml', 'power_profile.xml'), xml)
    writeFileSync(join(dir, 'AndroidManifest.xml'), '<manifest package="com.example.pp"/>\n')
    execFileSync(AAPT2, ['compile', '-o', join(dir, 'compiled.zip'), '--dir', join(dir, 'res')])
    execFileSync(AAPT2, [
      'link',
      '-o',
      join(dir, 'out.apk'),
      '--manifest',
      join(dir, 'AndroidManifest.xml'),
      join(dir, 'compiled.zip'),
    ])
    return readFileSync(join(dir, 'out.apk'))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** `aapt2 dump xmltree --file <entry> <apk>` of APK bytes. */
export function aapt2XmlTree(apk: Uint8Array, entry: string): string {
  const dir = mkdtempSync(join(tmpdir(), 've-aapt2-'))
  try {
    writeFileSync(join(dir, 'x.apk'), apk)
    return execFileSync(AAPT2, ['dump', 'xmltree', '--file', entry, join(dir, 'x.apk')], {
      encoding: 'utf8',
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The `<item>`s and `<array>`s of a power profile as `aapt2 dump xmltree` shows them: each
 * element's `name` attribute and its text (`T: '…'` lines), in document order.
 */
export function entriesOfXmlTree(
  tree: string,
): Array<{ tag: string; name: string; values: string[] }> {
  const entries: Array<{ tag: string; name: string; values: string[] }> = []
  let open: { tag: string; name: string; values: string[] } | undefined
  let tag = ''
  for (const line of tree.split('\n')) {
    const e = /^\s*E: (\S+) \(line=\d+\)/.exec(line)
    if (e !== null) {
      tag = e[1] as string
      continue
    }
    const a = /^\s*A: name="([^"]*)"/.exec(line) ?? /^\s*A: name=(\S+)/.exec(line)
    if (a !== null && (tag === 'item' || tag === 'array')) {
      open = { tag, name: a[1] as string, values: [] }
      entries.push(open)
      continue
    }
    const t = /^\s*T: '(.*)'$/.exec(line)
    if (t !== null && open !== undefined) open.values.push((t[1] as string).trim())
  }
  return entries
}
