/**
 * The repo map's worker process (built as dist/repomap-worker.cjs beside dist/bin.js; see app/RepoMapWorker): an
 * entry of its own, like bin.ts the place its Effect is run, so the worker loads only what a map needs (a third
 * less memory at rest than the whole program, and a faster start).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { main } from "./app/RepoMapWorker.js"

NodeRuntime.runMain(main)
