// The environment of a child Vitest or Jest as on a developer's machine: CI unset. Vitest (std-env)
// and Jest (ci-info) take any `CI` value, even `false` for std-env, or a CI service's own variable
// as CI, and then default to the `none` snapshot mode (docs/budgets.md); `.ci/run` runs with
// CI=true, which child processes inherit.

/** Variables by which std-env or ci-info recognise the common CI services. */
const CI_VARIABLES = [
  'CI',
  'CONTINUOUS_INTEGRATION',
  'BUILD_ID',
  'BUILD_NUMBER',
  'RUN_ID',
  'CI_APP_ID',
  'CI_BUILD_ID',
  'CI_BUILD_NUMBER',
  'CI_NAME',
  'GITHUB_ACTIONS',
  'GITLAB_CI',
  'BUILDKITE',
  'CIRCLECI',
  'TRAVIS',
  'JENKINS_URL',
  'TF_BUILD',
  'TEAMCITY_VERSION',
  'DRONE',
  'APPVEYOR',
  'BITBUCKET_COMMIT',
  'CODEBUILD_BUILD_ARN',
  'SEMAPHORE',
  'WOODPECKER',
]

/** `env` with CI unset, as on a developer's machine. */
export function withoutCi(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env }
  for (const name of CI_VARIABLES) Reflect.deleteProperty(out, name)
  return out
}
