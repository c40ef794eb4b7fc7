/** The in-memory file system and the device factory: every API misuse is a coded EnergyError. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isEnergyError } from '../../../src/model/errors.js'
import { createDevice } from '../../../src/virtual-device/device.js'
import { VirtualDeviceShellErrors } from '../../../src/virtual-device/shell/errors.js'
import { createVirtualFs, normalizePath } from '../../../src/virtual-device/shell/vfs.js'

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f()
  } catch (error) {
    return isEnergyError(error) ? error.code : 'not an EnergyError'
  }
  return undefined
}

describe('virtual fs', () => {
  it('reports misuse with stable codes', () => {
    const fs = createVirtualFs({ nowS: () => 1 })
    fs.mkdirp('/a/b')
    fs.writeFile('/a/b/f', new Uint8Array([1]))
    fs.defineDynamic('/sys/x', { mode: 0o444, read: () => new Uint8Array([2]) })
    expect(codeOf(() => fs.readFile('/nope'))).toBe(VirtualDeviceShellErrors.NO_SUCH_FILE)
    expect(codeOf(() => fs.readFile('/a'))).toBe(VirtualDeviceShellErrors.WRONG_KIND)
    expect(codeOf(() => fs.writeFile('/a', new Uint8Array()))).toBe(
      VirtualDeviceShellErrors.WRONG_KIND,
    )
    expect(codeOf(() => fs.writeFile('/missing/f', new Uint8Array()))).toBe(
      VirtualDeviceShellErrors.NO_SUCH_FILE,
    )
    expect(codeOf(() => fs.remove('/a'))).toBe(VirtualDeviceShellErrors.NOT_EMPTY)
    expect(codeOf(() => fs.writeFile('/sys/x', new Uint8Array()))).toBe(
      VirtualDeviceShellErrors.NOT_WRITABLE,
    )
    expect(codeOf(() => fs.readFile('relative'))).toBe(VirtualDeviceShellErrors.BAD_PATH)
    expect(codeOf(() => fs.list('/a/b/f'))).toBe(VirtualDeviceShellErrors.WRONG_KIND)
    expect(codeOf(() => fs.mkdirp('/a/b/f/g'))).toBe(VirtualDeviceShellErrors.WRONG_KIND)
    expect(fs.readFile('/sys/x')).toEqual(new Uint8Array([2]))
    expect(fs.list('/a')).toEqual(['b'])
  })

  it('normalizePath collapses //, . and .. and never escapes /', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', '.', '..', ''), { maxLength: 12 }),
        (parts) => {
          const p = normalizePath(`/${parts.join('/')}`)
          expect(p.startsWith('/')).toBe(true)
          expect(p === '/' || !p.endsWith('/')).toBe(true)
          expect(p.split('/').slice(1)).not.toContain('..')
          expect(p.split('/').slice(1)).not.toContain('.')
          expect(normalizePath(p)).toBe(p)
        },
      ),
    )
  })

  it('append, remove and list keep the tree consistent', () => {
    const fs = createVirtualFs()
    fs.mkdirp('/d')
    fs.appendFile('/d/log', new Uint8Array([1, 2]))
    fs.appendFile('/d/log', new Uint8Array([3]))
    expect(fs.readFile('/d/log')).toEqual(new Uint8Array([1, 2, 3]))
    fs.remove('/d/log')
    expect(fs.list('/d')).toEqual([])
    fs.remove('/d')
    expect(fs.stat('/d')).toBeUndefined()
  })
})

describe('createDevice', () => {
  it('refuses a serial adb could not pass on a command line', () => {
    for (const serial of ['', 'has space', 'tab\there', 'x'.repeat(65), 'é']) {
      expect(codeOf(() => createDevice({ serial }))).toBe(
        VirtualDeviceShellErrors.BAD_DEVICE_OPTION,
      )
    }
    expect(createDevice({ serial: '127.0.0.1:5555' }).serial).toBe('127.0.0.1:5555')
  })

  it('devices share nothing: props, files, processes', () => {
    const a = createDevice({
      serial: 'a',
      props: { 'ro.product.model': 'A' },
      files: { '/data/local/tmp/x': 'ax' },
    })
    const b = createDevice({ serial: 'b' })
    expect(a.props.get('ro.product.model')).toBe('A')
    expect(b.props.get('ro.product.model')).toBe('Pixel 6 (virtual)')
    expect(new TextDecoder().decode(a.fs.readFile('/data/local/tmp/x'))).toBe('ax')
    expect(b.fs.stat('/data/local/tmp/x')).toBeUndefined()
    a.processes.spawn('p', () => new Promise<number>(() => undefined))
    expect(b.processes.list().some((p) => p.name === 'p')).toBe(false)
    a.commands.set('only-a', () => 0)
    expect(b.commands.has('only-a')).toBe(false)
  })
})
