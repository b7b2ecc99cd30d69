/** The runners `mcp serve` bridges SDK callbacks with, as src/bin.ts builds them, for tests that run `serve` in process. */
import { Runtime } from "effect"
import { EffectRunner } from "../../../src/ports/EffectRunner.js"

export const runner = EffectRunner.of({
  bind: (runtime) => ({
    runPromiseExit: (effect, options) => Runtime.runPromiseExit(runtime)(effect, options),
    runFork: (effect) => {
      Runtime.runFork(runtime)(effect)
    }
  })
})
