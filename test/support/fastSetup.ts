// `npm run test:fast`: the run's environment without building dist/ (no test of the fast set starts the built CLI).
import { testEnvironment } from "./testEnvironment.js"

export default function setup() {
  return testEnvironment()
}
