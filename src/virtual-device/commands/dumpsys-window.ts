/**
 * `dumpsys window [windows|displays]`: the lines tools read from WindowManagerService's dump —
 * the focused window and app (`mCurrentFocus=Window{… u0 pkg/Activity}`,
 * `mFocusedApp=ActivityRecord{… u0 pkg/.Activity t12}`), the screen and keyguard state
 * (`mScreenOnFully`, `mAwake`, `mShowingLockscreen`, `mDreamingLockscreen`) and the display size
 * (`cur=1080x2400`). The launcher has the focus when the simulated app is not in front.
 */
import type { ShellInvocation } from '../contract.js'
import type { SimPhone } from '../sim/phone.js'
import { out } from './_util.js'

const LAUNCHER = 'com.google.android.apps.nexuslauncher/.NexusLauncherActivity'

export function dumpsysWindow(phone: SimPhone, inv: ShellInvocation): number {
  const [width, height] = phone.app.displayPx ?? [1080, 2400]
  const screen = phone.sim.currentScreen()
  const on = phone.sim.screenOn
  const component =
    screen === undefined || phone.appProcess === undefined
      ? LAUNCHER
      : `${phone.app.package}/${screen.activity.startsWith('.') ? screen.activity : `.${screen.activity}`}`
  const [pkg = '', activity = ''] = component.split('/')
  const qualified = activity.startsWith('.') ? `${pkg}${activity}` : activity
  const density = inv.device.props.get('ro.sf.lcd_density') ?? '420'
  out(
    inv,
    [
      'WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)',
      `  Display: mDisplayId=0 rootTasks=1`,
      `    init=${width}x${height} ${density}dpi cur=${width}x${height} app=${width}x${height - 126} rng=${width}x${width - 126}-${height}x${height - 126}`,
      `    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,${width},${height}))`,
      '',
      `  mCurrentFocus=Window{1f2e3d4 u0 ${pkg}/${qualified}}`,
      `  mFocusedApp=ActivityRecord{5a6b7c8 u0 ${component} t12}`,
      '',
      'WINDOW MANAGER POLICY STATE (dumpsys window policy)',
      `    mKeyguardDrawComplete=true mWindowManagerDrawComplete=true`,
      `    mScreenOnEarly=${on} mScreenOnFully=${on}`,
      `    mAwake=${on}`,
      '    mShowingLockscreen=false mShowingDream=false mDreamingLockscreen=false',
      '    KeyguardServiceDelegate',
      '      showing=false',
      '      inputRestricted=false',
      '',
    ].join('\n'),
  )
  return 0
}
