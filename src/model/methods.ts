/**
 * Where a method name comes from, so reports can show the app's own code first: native frames
 * (`__start_thread`, `art_quick_invoke_stub`, `libhwui.so` symbols) and the platform's Java
 * frames (`android.os.Looper.loop`) are on every stack and rarely what a reader can change.
 */
export type MethodOrigin = 'app' | 'platform' | 'native'

const PLATFORM_PREFIXES = [
  'android.',
  'androidx.',
  'com.android.',
  'com.google.android.',
  'dalvik.',
  'java.',
  'javax.',
  'jdk.',
  'kotlin.',
  'kotlinx.',
  'libcore.',
  'sun.',
  'org.apache.',
  'okhttp3.',
  'okio.',
]

const JAVA_METHOD = /^[A-Za-z_$][\w$]*(\.([A-Za-z_$][\w$]*|<init>|<clinit>)){2,}$/

export function methodOrigin(method: string): MethodOrigin {
  if (!JAVA_METHOD.test(method)) return 'native'
  return PLATFORM_PREFIXES.some((p) => method.startsWith(p)) ? 'platform' : 'app'
}

/** The first `count` items whose method is app code, then others, keeping the given order. */
export function appMethodsFirst<T extends { readonly method: string }>(
  methods: readonly T[],
  count: number,
): T[] {
  const app = methods.filter((m) => methodOrigin(m.method) === 'app')
  return [...app, ...methods.filter((m) => methodOrigin(m.method) !== 'app')].slice(0, count)
}
