/**
 * Java method names from simpleperf symbols.
 *
 * simpleperf prints ART/JIT-compiled Java frames in several shapes depending on version and on how
 * the code ran (reference: AOSP system/extras simpleperf `report_utils.cpp` and `dso.cpp`, which
 * build the names from dex/oat symbol tables; checked against the display_bitmaps protobuf in
 * test/fixtures/corpus/4_simpleperf/):
 *
 *   com.example.Foo.bar                      dex / oat / JIT frame (current builds)
 *   void com.example.Foo.bar(int)            older builds and `--show-art-frames`: full signature
 *   com.example.Foo.bar [DEDUPED]            oat method whose code is shared with an identical one
 *   com.example.Foo$Inner.<init>             constructors, inner and lambda classes (`-$$Lambda$…`)
 *
 * Rules (documented in docs/formats/simpleperf.md):
 * 0. A frame whose file is native code (`[kernel.kallsyms]`, `[vdso]`, `*.so`, `*.ko`) is native:
 *    kernel symbols such as `do_page_fault.cfi` look dotted but are not Java.
 * 1. Strip a trailing ` [DEDUPED]` marker.
 * 2. If the symbol is `[<return type> ]<qualified.name>(<args>)` with no `::`, drop return type and
 *    arguments.
 * 3. The remaining name is a Java method if it is ≥ 2 dot-separated Java identifiers (letters,
 *    digits, `_`, `$`, `-`; the last may be `<init>`/`<clinit>`), has no `::`, and does not end in a
 *    compiler suffix (`.cold`, `.cfi`, `.llvm.<n>`, `.part.<n>`, `.isra.<n>`, `.constprop.<n>`).
 * 4. Anything else is native (`art_quick_invoke_stub`, `art::ArtMethod::Invoke(...)`,
 *    `android::uirenderer::…`, `__start_thread`) and is kept exactly as printed.
 */

const DEDUPED = ' [DEDUPED]'
const SEGMENT = /^(?:[A-Za-z_$-][\w$-]*|<init>|<clinit>)$/
const COMPILER_SUFFIX =
  /\.(?:cold|cfi|cfi_jt|llvm\.\d+|part\.\d+|isra\.\d+|constprop\.\d+|lto_priv\.\d+)$/
/** `[ret ]name(args)`: one optional return-type token, a name, then a parenthesised argument list. */
const SIGNATURE = /^(?:([\w$.[\]<>]+)\s+)?([^\s()]+)\((.*)\)$/

/**
 * The Java method name (`com.example.Foo.bar`) a simpleperf symbol stands for, or `undefined` when
 * the symbol is native code (C/C++, ART runtime stubs, kernel).
 */
export function javaMethodName(symbol: string, file?: string): string | undefined {
  if (file !== undefined && isNativeFile(file)) return undefined
  let name = symbol.trim()
  if (name.endsWith(DEDUPED)) name = name.slice(0, -DEDUPED.length).trimEnd()
  if (name.length === 0 || name.includes('::')) return undefined
  const signature = SIGNATURE.exec(name)
  if (signature !== null) {
    const candidate = signature[2]
    if (candidate === undefined) return undefined
    name = candidate
  } else if (/[\s()]/.test(name)) {
    return undefined
  }
  if (COMPILER_SUFFIX.test(name)) return undefined
  const segments = name.split('.')
  if (segments.length < 2) return undefined
  if (!segments.every((segment) => SEGMENT.test(segment))) return undefined
  // A class segment never is `<init>`; only the last (the method) may be.
  if (segments.slice(0, -1).some((segment) => segment.startsWith('<'))) return undefined
  return name
}

/** Files that only hold native code: the kernel, the vDSO, shared objects and kernel modules. */
export function isNativeFile(file: string): boolean {
  return (
    file === '[kernel.kallsyms]' ||
    file === '[vdso]' ||
    file.startsWith('[kernel') ||
    /\.(?:so|ko)(?:\.\d+)*$/.test(file)
  )
}

/** The frame name the model uses: the Java method name when there is one, else the symbol verbatim. */
export function normalizeFrameName(symbol: string, file?: string): string {
  return javaMethodName(symbol, file) ?? symbol
}
