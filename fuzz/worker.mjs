// Worker threads do not inherit tsx's loader from `--import`: register it, then load the worker.
import { register } from 'tsx/esm/api'

register()
await import('./worker.ts')
