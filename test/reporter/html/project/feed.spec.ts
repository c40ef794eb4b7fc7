import { describe, test } from 'vitest'
import { PIXEL_RAILS, meta, method, window } from './_energy.js'

const FEED = 'com.example.trails.FeedAdapter'
const LOOPER = ['android.app.ActivityThread.main', 'android.os.Looper.loop']
const CHOREOGRAPHER = 'android.view.Choreographer.doFrame'
const RECYCLER = 'androidx.recyclerview.widget.RecyclerView.onLayout'

describe('feed', () => {
  test('opening the feed', ({ task }) => {
    task.meta.energy = meta(
      window({
        label: 'opening the feed',
        at: 0,
        durationS: 2,
        grossEnergyJ: 2.5,
        intervalJ: 0.05,
        rails: PIXEL_RAILS,
        callers: {
          [`${FEED}.onBindViewHolder`]: [...LOOPER, CHOREOGRAPHER, RECYCLER],
          [`${FEED}.bind`]: [...LOOPER, CHOREOGRAPHER, RECYCLER, `${FEED}.onBindViewHolder`],
          'com.example.trails.image.ImageLoader.decode': [
            ...LOOPER,
            CHOREOGRAPHER,
            RECYCLER,
            `${FEED}.onBindViewHolder`,
            `${FEED}.bind`,
          ],
          [CHOREOGRAPHER]: LOOPER,
          [RECYCLER]: [...LOOPER, CHOREOGRAPHER],
        },
        // A Wi-Fi tail the sync test left on, still drawing for the first 0.6 s.
        carriedIn: [
          {
            component: 'wifi',
            rail: 'S9M_VDD_WLAN',
            energyJ: 0.05,
            untilS: 0.6,
            method: 'com.example.trails.sync.SyncService.run',
            window: 'syncing in the background',
          },
        ],
        methods: [
          method(`${FEED}.onBindViewHolder`, 0.12, 0.63),
          method(`${FEED}.bind`, 0.45, 0.18),
          method('com.example.trails.image.ImageLoader.decode', 0.18),
          method('com.example.trails.db.FeedDao.query', 0.11),
          method(CHOREOGRAPHER, 0.09, 0.4),
          method(RECYCLER, 0.07, 0.2),
          method('art_quick_invoke_stub', 0.04),
        ],
      }),
    )
  })

  test('scrolling the feed', ({ task }) => {
    const nets = [0.071, 0.066, 0.069, 0.074, 0.068]
    task.meta.energy = meta(
      ...nets.map((net, i) =>
        window({
          label: `scrolling the feed #${i + 1}`,
          at: 10 + i * 2.5,
          durationS: 1.5,
          grossEnergyJ: net + 0.25 * 1.5,
          rails: PIXEL_RAILS,
          methods: [
            method(`${FEED}.bind`, net * 0.4, net * 0.1),
            method('com.example.trails.image.ImageLoader.decode', net * 0.2),
          ],
        }),
      ),
    )
  })
})
