/** Budget decisions with honest uncertainty; shared with the reporter through src/budgets. */
export { decide, moreRepetitionsToDecide } from '../src/budgets/index.js'
export type { Decision, Verdict } from '../src/budgets/index.js'
