/** Error codes of the power_profile.xml parser (documented in docs/formats/power-profile.md). */
export const PowerProfileErrors = {
  /** The input is not well-formed XML. */
  NOT_XML: 'E_POWER_PROFILE_NOT_XML',
  /** Well-formed XML, but the root is not `<device>` (not a power_profile.xml). */
  NOT_POWER_PROFILE: 'E_POWER_PROFILE_NOT_PROFILE',
  /** An `<item>` or `<value>` holds something that is not a finite number. */
  BAD_VALUE: 'E_POWER_PROFILE_BAD_VALUE',
  /** An `<item>` or `<array>` has no `name` attribute. */
  MISSING_NAME: 'E_POWER_PROFILE_MISSING_NAME',
  /** A cluster's speeds and powers arrays have different lengths, or cluster counts disagree. */
  LENGTH_MISMATCH: 'E_POWER_PROFILE_LENGTH_MISMATCH',
  /**
   * A number in a key name is out of range: a cluster after a gap with no `cpu.clusters.cores`
   * (`cpu.core_power.cluster4294967295`), or a CPU policy number of 1024 or more.
   */
  BAD_INDEX: 'E_POWER_PROFILE_BAD_INDEX',
} as const satisfies Record<string, `E_${string}`>
