/**
 * The phone's per-core currents from its power profile (src/session/core-currents.ts) and the
 * device session putting them in every window's plan: the shipped Pixel 6 profile against the
 * virtual device's probed cpufreq clusters, profiles that do not fit, and when none is read.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  mapDeviceClock,
  probeCapabilities,
  type AdbDevice,
  type Capabilities,
} from '../../src/device/index.js'
import { parsePowerProfile, type PowerProfile } from '../../src/formats/power-profile/index.js'
import {
  batteryCapacityMah,
  coreCurrentsFor,
  phonePowerProfileOnce,
  profileCurrents,
} from '../../src/session/core-currents.js'
import { fileLeaseStore } from '../../src/lab/index.js'
import { DeviceSession } from '../../src/session/device-session.js'
import { resolveOptions } from '../../src/session/options.js'
import type { ProvidedEnergyOptions } from '../../src/session/target.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../src/virtual-device/index.js'
import {
  defaultPowerProfile,
  defaultPowerProfileXml,
} from '../../src/virtual-device/sim/power-model.js'
import { adbDevice } from '../collectors/_vdev.js'

const PIXEL6_PATH = fileURLToPath(
  new URL('../../src/virtual-device/profiles/pixel6_oriole_power_profile.xml', import.meta.url),
)
const PIXEL6_CPUS = [
  [0, 1, 2, 3],
  [4, 5],
  [6, 7],
]

/** The Pixel 6 profile's tables, read straight from its XML keys. */
function tablesOf(profile: PowerProfile) {
  return [0, 1, 2].map((n) => ({
    speedsKhz: profile.arrays[`cpu.core_speeds.cluster${n}`],
    currentsMa: profile.arrays[`cpu.core_power.cluster${n}`],
    clusterMa: profile.items[`cpu.cluster_power.cluster${n}`],
  }))
}

describe('coreCurrentsFor', () => {
  test("the Pixel 6 profile on the Pixel 6's clusters: each cluster's speeds, core and cluster currents", () => {
    const profile = parsePowerProfile(defaultPowerProfileXml())
    const { currents, warning } = coreCurrentsFor(profile, PIXEL6_CPUS)
    expect(warning).toBeUndefined()
    expect(currents).toEqual(tablesOf(profile))
    // The file's own numbers, not zeros: the mid cluster's own cost is a real current.
    expect(currents?.[1]?.clusterMa).toBeGreaterThan(0)
    expect(currents?.[2]?.speedsKhz.length).toBeGreaterThan(5)
  })

  test('another phone: a different number of clusters, or of cores in one, is not used (a warning says why)', () => {
    const profile = defaultPowerProfile()
    for (const cpus of [
      [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
      ],
      [
        [0, 1, 2],
        [3, 4, 5],
        [6, 7],
      ],
      [],
    ]) {
      const { currents, warning } = coreCurrentsFor(profile, cpus)
      expect(currents).toBeUndefined()
      expect(warning?.code).toBe('W_PROFILE_MISMATCH')
      expect(warning?.severity).toBe('warning')
    }
  })

  test('a profile without per-cluster CPU tables offers nothing, silently', () => {
    const profile = parsePowerProfile(
      '<device name="Android"><item name="screen.on">100</item></device>',
    )
    expect(coreCurrentsFor(profile, PIXEL6_CPUS)).toEqual({})
  })

  describe("an Android 14+ profile: per-policy steps on the phone's cpufreq tables", () => {
    const policies = parsePowerProfile(`<device name="Android">
      <item name="cpu.active">2.55</item>
      <item name="cpu.scaling_policy_power.policy0">2.11</item>
      <item name="cpu.scaling_policy_power.policy4">2.22</item>
      <array name="cpu.scaling_step_power.policy0"><value>10</value><value>20</value><value>30</value></array>
      <array name="cpu.scaling_step_power.policy4"><value>25</value><value>35</value><value>50</value><value>60</value></array>
      <item name="screen.on">100</item>
    </device>`)
    const cpus = [
      [0, 1, 2, 3],
      [4, 5, 6, 7],
    ]

    test('each policy N is the cluster whose first CPU is N, its steps paired with the listed frequencies', () => {
      const { currents, warning } = coreCurrentsFor(policies, cpus, [
        [300000, 1000000, 1900000],
        [300000, 1000000, 2500000, 3000000],
      ])
      expect(warning).toBeUndefined()
      expect(currents).toEqual([
        { speedsKhz: [300000, 1000000, 1900000], currentsMa: [10, 20, 30], clusterMa: 2.11 },
        {
          speedsKhz: [300000, 1000000, 2500000, 3000000],
          currentsMa: [25, 35, 50, 60],
          clusterMa: 2.22,
        },
      ])
    })

    test("steps follow the kernel's order; the table is ascending (a driver listing high to low)", () => {
      const { currents } = coreCurrentsFor(policies, cpus, [
        [1900000, 1000000, 300000],
        [300000, 1000000, 2500000, 3000000],
      ])
      expect(currents?.[0]).toEqual({
        speedsKhz: [300000, 1000000, 1900000],
        currentsMa: [30, 20, 10],
        clusterMa: 2.11,
      })
    })

    test('counts that differ, a missing policy or no frequencies: W_PROFILE_MISMATCH naming it', () => {
      const cases: Array<[number[][], number[][], RegExp]> = [
        [
          cpus,
          [
            [300000, 1000000],
            [1, 2, 3, 4],
          ],
          /policy0: 3 step current\(s\) in the profile, 2 frequencies/,
        ],
        [
          [
            [0, 1, 2, 3],
            [4, 5],
            [6, 7],
          ],
          [],
          /2 CPU scaling policies in the profile, 3 cpufreq cluster/,
        ],
        [
          [
            [0, 1, 2],
            [3, 4, 5, 6, 7],
          ],
          [[300000, 1000000, 1900000], []],
          /no cpu\.scaling_step_power\.policy3/,
        ],
        [cpus, [], /policy0: 3 step current\(s\) in the profile, 0 frequencies/],
      ]
      for (const [clusters, freqs, why] of cases) {
        const { currents, warning } = coreCurrentsFor(policies, clusters, freqs)
        expect(currents).toBeUndefined()
        expect(warning?.code).toBe('W_PROFILE_MISMATCH')
        expect(warning?.message).toMatch(why)
      }
    })
  })

  test('a table whose speeds and currents differ in length is not used', () => {
    const p = defaultPowerProfile()
    const broken: PowerProfile = {
      ...p,
      cpu: {
        ...p.cpu,
        clusters: p.cpu.clusters.map((c, i) =>
          i === 2 ? { ...c, corePowerMa: c.corePowerMa.slice(1) } : c,
        ),
      },
    }
    expect(coreCurrentsFor(broken, PIXEL6_CPUS).warning?.message).toMatch(/cluster 2/)
  })
})

describe('on the virtual device', () => {
  let server: VirtualDeviceServer
  let device: AdbDevice
  let capabilities: Capabilities

  beforeAll(async () => {
    server = await startVirtualDevice({ time: 'fast', seed: 1 })
    device = await adbDevice(server.port, server.serials[0] as string)
    capabilities = await probeCapabilities(device, {
      app: 'com.example.trails',
      perfettoRails: false,
    })
  })
  afterAll(async () => {
    await server.close()
  })

  const options = (o: Record<string, unknown>): ProvidedEnergyOptions =>
    resolveOptions({ app: 'com.example.trails', ...o }) as ProvidedEnergyOptions

  test("the powerProfile option's currents reach every window's plan", async () => {
    expect(capabilities.cpuClusters).toEqual(PIXEL6_CPUS)
    const opts = options({ powerProfile: PIXEL6_PATH })
    const found = await profileCurrents(opts, device, capabilities)
    expect(found.warning).toBeUndefined()
    expect(found.currents).toEqual(tablesOf(defaultPowerProfile()))
    const ctor = DeviceSession as unknown as new (...args: unknown[]) => DeviceSession
    const boottime = await mapDeviceClock(device, 'boottime', { samples: 2 })
    const phone = { host: '127.0.0.1', port: server.port, serial: server.serials[0] as string }
    const target = { phones: [phone], run: 'core-currents', virtual: true, runDir: '/nonexistent' }
    const store = fileLeaseStore({ runDir: '/nonexistent' })
    const withProfile = Reflect.construct(ctor, [
      opts,
      target,
      phone,
      store,
      device,
      capabilities,
      boottime,
      found.currents,
    ])
    expect(withProfile.plan({ kind: 'none' }, undefined).cpuCoreCurrents).toEqual(found.currents)
    const without = Reflect.construct(ctor, [
      options({}),
      target,
      phone,
      store,
      device,
      capabilities,
      boottime,
    ])
    expect(without.plan({ kind: 'none' }, undefined).cpuCoreCurrents).toBeUndefined()
  })

  test("without the option: the phone's own profile, read from the overlay the framework uses", async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 've-profiles-'))
    try {
      const found = await profileCurrents(options({}), device, capabilities, cacheDir)
      expect(found.warning).toBeUndefined()
      expect(found.profile).toBe(
        '/product/overlay/framework-res__oriole__auto_generated_rro_product.apk (res/xml/power_profile.xml)',
      )
      expect(found.currents).toEqual(tablesOf(defaultPowerProfile()))
    } finally {
      await rm(cacheDir, { recursive: true, force: true })
    }
  })

  test("a phone whose only profile is AOSP's placeholder: none, silently (the rails still measure)", async () => {
    const placeholder = await startVirtualDevice({ time: 'fast', shippedProfile: 'placeholder' })
    try {
      const d = await adbDevice(placeholder.port, placeholder.serials[0] as string)
      const caps = await probeCapabilities(d, { perfettoRails: false })
      expect(await profileCurrents(options({}), d, caps, '')).toEqual({})
    } finally {
      await placeholder.close()
    }
  })

  test("a path that cannot be read is the collectors' profile error", async () => {
    await expect(
      profileCurrents(options({ powerProfile: '/nonexistent/pp.xml' }), device, capabilities),
    ).rejects.toMatchObject({ code: 'E_COLLECTOR_PROFILE_UNAVAILABLE' })
  })

  test("the battery's capacity: the option, else the battery.capacity of the profile the framework reads", async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 've-profiles-'))
    try {
      // Whichever power source measures and whether methods are recorded: the capacity is not a
      // by-product of the CPU currents.
      for (const o of [{}, { execution: 'none' }, { power: 'fuel-gauge' }]) {
        const found = phonePowerProfileOnce(options(o), device, capabilities, cacheDir)
        expect(await batteryCapacityMah(options(o), found), JSON.stringify(o)).toBe(4614)
      }
      const never = () => Promise.reject(new Error('the profile was read'))
      expect(await batteryCapacityMah(options({ batteryCapacityMah: 3000 }), never)).toBe(3000)
    } finally {
      await rm(cacheDir, { recursive: true, force: true })
    }
  })

  test('a profile that declares no capacity, or only the placeholder: none (the matcher says what to set)', async () => {
    // The Pixel 8 Pro's profile has no battery.capacity.
    const { batteryCapacityMah: declared, ...noCapacity } = defaultPowerProfile()
    expect(declared).toBe(4614)
    const found = { profile: noCapacity, warnings: [], evidence: [], cached: false }
    expect(await batteryCapacityMah(options({}), () => Promise.resolve(found))).toBeUndefined()
    const placeholder = await startVirtualDevice({ time: 'fast', shippedProfile: 'placeholder' })
    try {
      const d = await adbDevice(placeholder.port, placeholder.serials[0] as string)
      const caps = await probeCapabilities(d, { perfettoRails: false })
      const found = phonePowerProfileOnce(options({}), d, caps, '')
      expect(await batteryCapacityMah(options({}), found)).toBeUndefined()
    } finally {
      await placeholder.close()
    }
  })

  test("an opened session puts the virtual phone's capacity (4614 mAh) in every window's plan", async () => {
    const runDir = await mkdtemp(join(tmpdir(), 've-run-'))
    try {
      const phone = { host: '127.0.0.1', port: server.port, serial: server.serials[0] as string }
      const opts = {
        ...options({ artifactsDir: join(runDir, 'artifacts'), execution: 'none' }),
        adbConfigured: false,
      }
      const target = { phones: [phone], run: 'core-currents', virtual: true, runDir }
      const session = await DeviceSession.open(opts, target, 1)
      const planned = session.plan({ kind: 'none' }, undefined).batteryCapacityJ
      expect(planned).toBeCloseTo(4614 * 3.6 * 3.85, 6) // mAh × 3.6 C/mAh × 3.85 V nominal
    } finally {
      await rm(runDir, { recursive: true, force: true })
    }
  })

  test('not read when nothing would use it: fuel gauge, no execution tracing', async () => {
    for (const o of [{ power: 'fuel-gauge' }, { execution: 'none' }]) {
      const opts = options({ powerProfile: '/nonexistent/pp.xml', ...o })
      expect(await profileCurrents(opts, device, capabilities)).toEqual({})
    }
  })
})
