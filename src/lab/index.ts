export type { AcquireOptions, LeaseStore, LeaseStoreChoice, SharedDocument } from './store.js'
export { LabErrors } from './errors.js'
export {
  fileLeaseStore,
  isSharedDocumentFile,
  phoneFileBase,
  sharedDocumentFile,
} from './file-store.js'
export { redactedUrl, redisLeaseStore } from './redis-store.js'
export type { FileStoreOptions } from './file-store.js'
export type { RedisStoreOptions } from './redis-store.js'
export { closeLeaseStores, openLeaseStore } from './open.js'
export type { StorePlace } from './open.js'
