/** The Node FileSystem adapter with some of its operations replaced (a failing listing, a race staged mid-call). */
import { Effect, Layer } from "effect"
import * as NodeFileSystem from "../../src/adapters/fs/NodeFileSystem.js"
import { FileSystem, type FileSystemShape } from "../../src/ports/FileSystem.js"

export const nodeFileSystemWith = (override: (real: FileSystemShape) => Partial<FileSystemShape>) =>
  Layer.effect(
    FileSystem,
    Effect.map(NodeFileSystem.make, (real) => FileSystem.of({ ...real, ...override(real) }))
  )
