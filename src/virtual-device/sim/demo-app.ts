/**
 * The demo app's model: "Trails", a hiking app with a feed, map tracking, sync, settings and GPX
 * export, each carrying one deliberate energy bug the tool should find. It is the default app of
 * the virtual device when no `--app` is given; docs/virtual-device.md shows it as JSON.
 */
import type { AppModel, Widget } from './app-model.js'

const PKG = 'com.example.trails'

/** The bottom navigation bar, present on every screen (y 2250–2400 on a 1080×2400 display). */
function navBar(): Widget[] {
  const tabs = ['feed', 'map', 'sync', 'settings', 'export'] as const
  return tabs.map((tab, i) => ({
    resourceId: `${PKG}:id/nav_${tab}`,
    contentDesc: tab,
    className: 'android.widget.FrameLayout',
    text: '',
    bounds: [i * 216, 2250, (i + 1) * 216, 2400] as const,
    clickable: true,
    actions: { tap: { navigate: tab } },
  }))
}

function title(text: string): Widget {
  return {
    resourceId: `${PKG}:id/title`,
    className: 'android.widget.TextView',
    text,
    bounds: [0, 80, 1080, 230],
  }
}

export const DEMO_APP_MODEL: AppModel = {
  package: PKG,
  launcherActivity: `${PKG}/.MainActivity`,
  versionName: '1.4.2',
  uid: 10187,
  debuggable: false,
  profileable: true,
  initialScreen: 'feed',
  displayPx: [1080, 2400],
  screens: [
    {
      id: 'feed',
      activity: '.MainActivity',
      onEnter: {
        calls: [
          {
            method: 'com.example.trails.MainActivity.onResume',
            selfCpuMs: 4,
            children: [
              {
                method: 'com.example.trails.FeedRepository.load',
                selfCpuMs: 2,
                hardware: [{ kind: 'radio', radio: 'wifi', activeMs: 120 }],
              },
            ],
          },
        ],
      },
      widgets: [
        title('Trails'),
        {
          resourceId: `${PKG}:id/feed_list`,
          contentDesc: 'feed-list',
          className: 'androidx.recyclerview.widget.RecyclerView',
          bounds: [0, 230, 1080, 2250],
          scrollable: true,
          clickable: true,
          actions: {
            // Scrolling/tapping the list binds 12 rows; each row runs the slow elevation loop.
            tap: {
              calls: [
                {
                  method: 'com.example.trails.FeedAdapter.onScrolled',
                  selfCpuMs: 1,
                  children: [
                    {
                      method: 'com.example.trails.FeedAdapter.bind',
                      selfCpuMs: 0.8,
                      repeat: 12,
                      children: [
                        {
                          method: 'com.example.trails.ElevationProfile.smooth',
                          selfCpuMs: 0.05,
                          repeat: 60,
                          bug: 'slow-loop',
                        },
                      ],
                    },
                  ],
                },
                {
                  method: 'com.example.trails.ThumbnailLoader.decode',
                  pool: { name: 'pool-1', threads: 2 },
                  selfCpuMs: 6,
                  repeat: 4,
                },
              ],
            },
          },
        },
        {
          resourceId: `${PKG}:id/refresh`,
          contentDesc: 'refresh',
          className: 'android.widget.Button',
          text: 'Refresh',
          bounds: [780, 80, 1060, 230],
          clickable: true,
          actions: {
            tap: {
              calls: [
                {
                  method: 'com.example.trails.FeedRepository.refresh',
                  selfCpuMs: 3,
                  hardware: [{ kind: 'radio', radio: 'wifi', activeMs: 400 }],
                  children: [
                    {
                      method: 'com.example.trails.FeedAdapter.bind',
                      selfCpuMs: 0.8,
                      repeat: 12,
                      children: [
                        {
                          method: 'com.example.trails.ElevationProfile.smooth',
                          selfCpuMs: 0.05,
                          repeat: 60,
                          bug: 'slow-loop',
                        },
                      ],
                    },
                  ],
                },
              ],
            },
          },
        },
        ...navBar(),
      ],
    },
    {
      id: 'map',
      activity: '.MapActivity',
      onEnter: {
        calls: [
          {
            method: 'com.example.trails.MapActivity.onResume',
            selfCpuMs: 8,
            children: [
              {
                method: 'com.example.trails.LocationTracker.start',
                selfCpuMs: 0.5,
                // The listener is registered in onResume but never removed in onPause.
                hardware: [{ kind: 'gps', stop: 'never', bug: 'leaking-gps-listener' }],
              },
              {
                method: 'com.example.trails.StepCounter.register',
                selfCpuMs: 0.3,
                hardware: [{ kind: 'sensor', name: 'accelerometer', durationMs: 30000 }],
              },
              {
                method: 'com.example.trails.TileCache.warm',
                selfCpuMs: 3,
                thread: 'pool-1-thread-2',
              },
            ],
          },
        ],
      },
      widgets: [
        title('Map'),
        {
          resourceId: `${PKG}:id/map_view`,
          contentDesc: 'map-view',
          className: 'android.view.View',
          bounds: [0, 230, 1080, 2000],
        },
        {
          resourceId: `${PKG}:id/start_tracking`,
          contentDesc: 'start-tracking',
          className: 'android.widget.Button',
          text: 'Start tracking',
          bounds: [140, 2030, 940, 2200],
          clickable: true,
          actions: {
            tap: {
              calls: [
                {
                  method: 'com.example.trails.TrackRecorder.start',
                  selfCpuMs: 2,
                  hardware: [{ kind: 'gps', stop: 'until-screen-exit' }],
                  children: [
                    { method: 'com.example.trails.TrackRecorder.openTrackFile', selfCpuMs: 1.5 },
                  ],
                },
              ],
            },
          },
        },
        ...navBar(),
      ],
    },
    {
      id: 'sync',
      activity: '.SyncActivity',
      widgets: [
        title('Sync'),
        {
          resourceId: `${PKG}:id/sync_now`,
          contentDesc: 'sync-now',
          className: 'android.widget.Button',
          text: 'Sync now',
          bounds: [140, 400, 940, 570],
          clickable: true,
          actions: {
            tap: {
              calls: [
                {
                  method: 'com.example.trails.SyncManager.syncAll',
                  selfCpuMs: 5,
                  thread: 'SyncWorker',
                  hardware: [{ kind: 'radio', radio: 'cellular', activeMs: 1500 }],
                  children: [
                    { method: 'com.example.trails.SyncManager.mergeTracks', selfCpuMs: 12 },
                  ],
                },
              ],
              // After a sync the app keeps polling every 4 s: the cellular radio never sleeps.
              periodic: {
                everyMs: 4000,
                calls: [
                  {
                    method: 'com.example.trails.SyncManager.poll',
                    selfCpuMs: 0.7,
                    thread: 'SyncWorker',
                    hardware: [{ kind: 'radio', radio: 'cellular', activeMs: 150, bug: 'polling' }],
                  },
                ],
              },
            },
          },
        },
        ...navBar(),
      ],
    },
    {
      id: 'settings',
      activity: '.SettingsActivity',
      widgets: [
        title('Settings'),
        {
          resourceId: `${PKG}:id/brightness_high`,
          contentDesc: 'brightness-high',
          className: 'android.widget.Button',
          text: 'Bright',
          bounds: [60, 400, 520, 570],
          clickable: true,
          actions: { tap: { brightness: 255 } },
        },
        {
          resourceId: `${PKG}:id/brightness_low`,
          contentDesc: 'brightness-low',
          className: 'android.widget.Button',
          text: 'Dim',
          bounds: [560, 400, 1020, 570],
          clickable: true,
          actions: { tap: { brightness: 40 } },
        },
        {
          resourceId: `${PKG}:id/pair_watch`,
          contentDesc: 'pair-watch',
          className: 'android.widget.Button',
          text: 'Pair watch',
          bounds: [60, 900, 1020, 1070],
          clickable: true,
          actions: {
            tap: {
              calls: [
                {
                  method: 'com.example.trails.WatchLink.pair',
                  selfCpuMs: 2,
                  thread: 'pool-1-thread-3',
                  hardware: [{ kind: 'bluetooth', name: 'watch', durationMs: 5000 }],
                },
              ],
            },
          },
        },
        {
          resourceId: `${PKG}:id/username`,
          contentDesc: 'username',
          className: 'android.widget.EditText',
          text: '',
          bounds: [60, 650, 1020, 800],
          clickable: true,
          actions: {
            text: {
              calls: [{ method: 'com.example.trails.SettingsStore.saveUsername', selfCpuMs: 1 }],
            },
          },
        },
        ...navBar(),
      ],
    },
    {
      id: 'export',
      activity: '.ExportActivity',
      widgets: [
        title('Export'),
        {
          resourceId: `${PKG}:id/export_gpx`,
          contentDesc: 'export-gpx',
          className: 'android.widget.Button',
          text: 'Export GPX',
          bounds: [140, 400, 940, 570],
          clickable: true,
          actions: {
            tap: {
              calls: [
                {
                  method: 'com.example.trails.GpxExporter.export',
                  selfCpuMs: 4,
                  thread: 'pool-2-thread-1',
                  // acquire() without release(): the CPU never suspends again.
                  hardware: [
                    {
                      kind: 'wakelock',
                      tag: 'trails:export',
                      holdMs: 'never',
                      bug: 'wakelock-never-released',
                    },
                  ],
                  children: [
                    {
                      method: 'com.example.trails.GpxExporter.writePoint',
                      selfCpuMs: 0.02,
                      repeat: 500,
                    },
                  ],
                },
              ],
            },
          },
        },
        ...navBar(),
      ],
    },
  ],
}
