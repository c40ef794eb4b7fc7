#!/usr/bin/env node
// Copies the non-TypeScript files the compiled package reads at run time (power profiles, app
// models) next to the compiled modules, so dist/ works on its own.
import { cpSync, existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
for (const dir of ['src/virtual-device/profiles', 'src/virtual-device/sim/models']) {
  if (existsSync(`${root}/${dir}`))
    cpSync(`${root}/${dir}`, `${root}/dist/${dir}`, { recursive: true })
}
