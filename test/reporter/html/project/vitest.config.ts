// The HTML report's end-to-end project: tests that write energy meta the way the `energy` fixture
// does (no phone needed). Its files end in .spec.ts so the repository's own run skips them.
import { defineConfig } from 'vitest/config'

export default defineConfig({ test: { include: ['*.spec.ts'] } })
