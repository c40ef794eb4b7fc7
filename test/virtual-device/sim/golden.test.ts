import { expect, test } from 'vitest'
import type { Physics } from '../../../src/virtual-device/index.js'
import { centerOf, harness } from '../commands/_harness.js'

/** Rounds every number to 10 significant digits so libm differences across Node versions cannot flip it. */
function rounded(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) =>
      typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(10)) : v,
    ),
  ) as unknown
}

async function session(physics: Physics): Promise<unknown> {
  // Nominal silicon: the golden files pin the physics (the silicon's own draw is tested in
  // silicon.test.ts), and were written before the phone physics deviated by default.
  const h = harness({ seed: 42, physics, silicon: 'nominal' })
  const from = h.clock.nowNs('boottime')
  await h.sh('dumpsys battery unplug')
  await h.sh('am start -W -n com.example.trails/.MainActivity')
  await h.sh(`input tap ${centerOf(h.phone, 'refresh')}`)
  await h.sh('sleep 2')
  await h.sh(`input tap ${centerOf(h.phone, 'map')}`)
  await h.sh('sleep 5')
  await h.sh(`input tap ${centerOf(h.phone, 'sync')}`)
  await h.sh(`input tap ${centerOf(h.phone, 'sync-now')}`)
  await h.sh('sleep 10')
  await h.sh(`input tap ${centerOf(h.phone, 'export')}`)
  await h.sh(`input tap ${centerOf(h.phone, 'export-gpx')}`)
  await h.sh('input keyevent 26; sleep 5')
  const to = h.clock.nowNs('boottime')
  return JSON.parse((await h.sh(`vdev ground-truth --from ${from} --to ${to}`)).out) as unknown
}

test('ground truth of a fixed demo session (seed 42) matches the golden file', async () => {
  const gt = await session('simple')
  await expect(`${JSON.stringify(rounded(gt), null, 2)}\n`).toMatchFileSnapshot(
    '../../fixtures/virtual-device/ground-truth-seed42.json',
  )
})

test('the same session on the phone physics (other processes) matches its golden file', async () => {
  const gt = await session('phone')
  await expect(`${JSON.stringify(rounded(gt), null, 2)}\n`).toMatchFileSnapshot(
    '../../fixtures/virtual-device/ground-truth-seed42-phone.json',
  )
})
