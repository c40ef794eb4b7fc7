/** Split text into lines lazily (no array of the whole input), dropping `\r` before `\n`. */
export function* splitLines(text: string): Generator<string> {
  let start = 0
  while (start < text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    const line =
      text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end)
    yield line
    start = end + 1
  }
}
