/**
 * Tree-sitter outlines for Go, Rust, Java, C, C++, C#, Ruby and PHP on small real-looking projects
 * (test/fixtures/repomap), and the import and reference edges ranking draws between their files.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as TreeSitterOutliner from "../../../src/adapters/treesitter/TreeSitterOutliner.js"
import * as Imports from "../../../src/domain/repomap/Imports.js"
import * as Rank from "../../../src/domain/repomap/Rank.js"
import * as RepoMap from "../../../src/domain/repomap/RepoMap.js"

const fixtures = path.resolve(import.meta.dirname, "../../fixtures/repomap")
const read = (file: string) => fs.readFileSync(path.join(fixtures, file), "utf8")
const outline = (file: string) => Effect.flatMap(TreeSitterOutliner.make, (outliner) => outliner(file, read(file)))
const lines = (o: RepoMap.Outline | undefined) => o?.symbols.map((s) => `${s.line}: ${s.text}`)

/** Every fixture file of one project, scanned, and the ranking over them. */
const project = (dir: string) => {
  const files: Array<string> = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(path.join(fixtures, d), { withFileTypes: true })) {
      const rel = `${d}/${e.name}`
      if (e.isDirectory()) walk(rel)
      else files.push(rel)
    }
  }
  walk(dir)
  const scans = new Map(files.map((f) => [f, RepoMap.scan(f, read(f))]))
  const ranking = Rank.rank(scans)
  const file = (p: string) => ranking.files.find((f) => f.path === p)
  return { files, scans, ranking, file, index: Imports.indexFiles(files) }
}

describe("tree-sitter outlines per language", () => {
  it("knows the grammar of each extension", () => {
    const cases: ReadonlyArray<readonly [string, TreeSitterOutliner.Grammar]> = [
      ["a.go", "go"], ["a.rs", "rust"], ["A.java", "java"], ["a.c", "c"], ["a.h", "c"], ["a.cc", "cpp"], ["a.hpp", "cpp"],
      ["A.cs", "c_sharp"], ["a.rb", "ruby"], ["a.php", "php"]
    ]
    for (const [p, grammar] of cases) assert.strictEqual(TreeSitterOutliner.grammarOf(p), grammar, p)
  })

  it.effect("C (cJSON-like): the public functions and types, never a static helper or a local variable", () =>
    Effect.gen(function* () {
      const o = yield* outline("c/cJSON.c")
      assert.deepStrictEqual(lines(o), [
        "5: typedef struct",
        "22: CJSON_PUBLIC(void) cJSON_Delete(cJSON *item)",
        "32: CJSON_PUBLIC(cJSON *) cJSON_Parse(const char *value)",
        "37: CJSON_PUBLIC(char *) cJSON_Print(const cJSON *item)",
        "42: int cJSON_version_number(void)"
      ])
      assert.deepStrictEqual(o?.symbols.map((s) => s.name), ["parse_buffer", "cJSON_Delete", "cJSON_Parse", "cJSON_Print", "cJSON_version_number"])
      assert.deepStrictEqual(o?.imports, ["cJSON.h"])
      // The header (an unclosed `extern "C" {` per #ifdef) goes to the regex, which finds its prototypes.
      assert.isUndefined(yield* outline("c/cJSON.h"))
      assert.deepStrictEqual(RepoMap.extractRegex("c/cJSON.h", read("c/cJSON.h")).symbols.map((s) => s.name), ["cJSON", "cJSON_Parse", "cJSON_Print", "cJSON_Delete"])
    })
  )

  it.effect("C++: namespaces, classes with members, templates, out-of-line definitions; static ones left out", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(lines(yield* outline("cpp/shapes.hpp")), [
        "4: namespace geo", "6: class Shape", "8: virtual ~Shape() = default;", "9: virtual double area() const = 0;",
        "10: std::string name() const;", "16: T clamp(T v, T lo, T hi)", "18: double total(const Shape& a, const Shape& b);"
      ])
      const cpp = yield* outline("cpp/shapes.cpp")
      assert.deepStrictEqual(lines(cpp), ["3: namespace geo", "5: std::string Shape::name() const", "7: double total(const Shape& a, const Shape& b)"])
      assert.deepStrictEqual(cpp?.imports, ["shapes.hpp"])
    })
  )

  it.effect("Go: exported functions, methods and types; imports from grouped blocks", () =>
    Effect.gen(function* () {
      const o = yield* outline("go/internal/store/store.go")
      assert.deepStrictEqual(lines(o), ["9: type Store struct", "14: type Item struct{ Name string }", "18: func New() *Store", "20: func (s *Store) Get(key string) (Item, error)"])
      assert.deepStrictEqual((yield* outline("go/cmd/main.go"))?.imports, ["fmt", "example.com/shop/internal/store"])
    })
  )

  it.effect("Rust: pub items, impl blocks with their pub methods, trait members; mod and use imports", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(lines(yield* outline("rust/src/geometry.rs")), [
        "1: pub trait Shape", "2: fn area(&self) -> f64;", "6: pub struct Circle", "10: impl Circle", "11: pub fn new(r: f64) -> Self",
        "15: impl Shape for Circle", "16: fn area(&self) -> f64", "19: pub enum Kind"
      ])
      const lib = yield* outline("rust/src/lib.rs")
      assert.deepStrictEqual(lines(lib), ["1: pub mod geometry;", "7: pub fn total_area(shapes: &[Box<dyn Shape>]) -> f64"])
      assert.deepStrictEqual(lib?.imports, ["geometry", "util", "crate::geometry::Shape"])
    })
  )

  it.effect("Java: types, public and protected members, nested interfaces; private ones left out", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(lines(yield* outline("java/com/acme/shop/Cart.java")), [
        "7: public class Cart", "10: public Cart()", "12: public void add(Item item)", "16: protected int size()", "20: public interface Listener", "21: void changed(Cart cart);"
      ])
      assert.deepStrictEqual((yield* outline("java/com/acme/shop/Main.java"))?.imports, ["com.acme.shop.Cart", "com.acme.shop.Item.free"])
    })
  )

  it.effect("C# (loaded past its ESM entry point): namespaces, types, public members, properties; usings", () =>
    Effect.gen(function* () {
      const o = yield* outline("cs/Inventory.cs")
      assert.deepStrictEqual(lines(o), [
        "5: namespace Acme.Services", "7: public interface IInventory", "9: int Count(string sku);", "12: public class Inventory : IInventory",
        "16: public Inventory()", "18: public int Count(string sku)", "20: public Product Find(string sku)", "24: public string Name { get; set; }"
      ])
      assert.deepStrictEqual(o?.imports, ["System", "System.Collections.Generic", "Acme.Models"])
      assert.deepStrictEqual(lines(yield* outline("cs/Acme/Models/Product.cs")), ["1: namespace Acme.Models;", "3: public record Product(string Sku);", "5: public enum Status"])
    })
  )

  it.effect("Ruby: modules, classes, methods and singleton methods; require and require_relative", () =>
    Effect.gen(function* () {
      const o = yield* outline("rb/lib/shop/cart.rb")
      assert.deepStrictEqual(lines(o), ["4: module Shop", "5: class Cart", "6: def initialize", "10: def add(item)", "14: def self.empty"])
      assert.deepStrictEqual(o?.imports, ["json", "./item"])
    })
  )

  it.effect("PHP: namespaces, interfaces, classes, non-private methods, functions; use and require_once", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(lines(yield* outline("php/src/Models/User.php")), [
        "3: namespace App\\Models;", "7: interface HasName", "9: public function name(): string;", "12: class User implements HasName",
        "14: public function __construct(private string $first)", "16: public function name(): string", "23: protected static function table(): string"
      ])
      assert.deepStrictEqual((yield* outline("php/src/Http/Controller.php"))?.imports, ["App\\Models\\User", "/../helpers.php"])
    })
  )
})

describe("import and reference edges per language", () => {
  it("C: an include reaches the header, a call reaches the file that defines it", () => {
    const p = project("c")
    assert.deepStrictEqual(Imports.resolveImports("c/test.c", "cJSON.h", p.index), ["c/cJSON.h"])
    assert.strictEqual(p.file("c/cJSON.h")?.importedBy, 2)
    // test.c calls them; the header declares the same names.
    assert.strictEqual(p.file("c/cJSON.c")?.referencedBy, 2)
    assert.isAbove(p.ranking.symbolScore("c/cJSON.c", "cJSON_Parse"), 0)
    assert.strictEqual(p.ranking.files.at(-1)?.path, "c/test.c")
  })

  it("C++: the source includes its header and uses its class", () => {
    const p = project("cpp")
    assert.deepStrictEqual(Imports.resolveImports("cpp/shapes.cpp", "shapes.hpp", p.index), ["cpp/shapes.hpp"])
    assert.strictEqual(p.ranking.files[0]?.path, "cpp/shapes.hpp")
  })

  it("Go: an import path reaches its package's files by the directory it ends with", () => {
    const p = project("go")
    assert.deepStrictEqual(Imports.resolveImports("go/cmd/main.go", "example.com/shop/internal/store", p.index), ["go/internal/store/store.go"])
    assert.deepStrictEqual(Imports.resolveImports("go/cmd/main.go", "fmt", p.index), [])
    assert.strictEqual(p.file("go/internal/store/store.go")?.importedBy, 1)
    assert.isAbove(p.ranking.symbolScore("go/internal/store/store.go", "New"), 0)
  })

  it("Rust: mod, crate:: and super:: paths reach their files", () => {
    const p = project("rust")
    assert.deepStrictEqual(Imports.resolveImports("rust/src/lib.rs", "geometry", p.index), ["rust/src/geometry.rs"])
    assert.deepStrictEqual(Imports.resolveImports("rust/src/lib.rs", "crate::geometry::Shape", p.index), ["rust/src/geometry.rs"])
    assert.deepStrictEqual(Imports.resolveImports("rust/src/util.rs", "super::geometry::Circle", p.index), ["rust/src/geometry.rs"])
    assert.strictEqual(p.ranking.files[0]?.path, "rust/src/geometry.rs")
    assert.strictEqual(p.file("rust/src/geometry.rs")?.importedBy, 2)
  })

  it("Java: a class import and a static import reach their files", () => {
    const p = project("java")
    assert.deepStrictEqual(Imports.resolveImports("java/com/acme/shop/Main.java", "com.acme.shop.Cart", p.index), ["java/com/acme/shop/Cart.java"])
    assert.deepStrictEqual(Imports.resolveImports("java/com/acme/shop/Main.java", "com.acme.shop.Item.free", p.index), ["java/com/acme/shop/Item.java"])
    assert.deepStrictEqual(Imports.resolveImports("java/com/acme/shop/Main.java", "com.acme.shop.*", p.index).length, 3)
    assert.strictEqual(p.file("java/com/acme/shop/Item.java")?.referencedBy, 2)
  })

  it("C#: a using reaches the namespace's folder; a type mention reaches its file", () => {
    const p = project("cs")
    assert.deepStrictEqual(Imports.resolveImports("cs/Inventory.cs", "Acme.Models", p.index), ["cs/Acme/Models/Product.cs"])
    assert.deepStrictEqual(Imports.resolveImports("cs/Inventory.cs", "System", p.index), [])
    assert.strictEqual(p.ranking.files[0]?.path, "cs/Acme/Models/Product.cs")
  })

  it("Ruby: require_relative beside the file, require by load path", () => {
    const p = project("rb")
    assert.deepStrictEqual(Imports.resolveImports("rb/lib/shop/cart.rb", "./item", p.index), ["rb/lib/shop/item.rb"])
    assert.deepStrictEqual(Imports.resolveImports("rb/main.rb", "shop/cart", p.index), ["rb/lib/shop/cart.rb"])
    assert.deepStrictEqual(Imports.resolveImports("rb/main.rb", "json", p.index), [])
    assert.strictEqual(p.file("rb/lib/shop/item.rb")?.importedBy, 1)
  })

  it("PHP: a namespaced use reaches its PSR-4 file, require_once its path", () => {
    const p = project("php")
    assert.deepStrictEqual(Imports.resolveImports("php/src/Http/Controller.php", "App\\Models\\User", p.index), ["php/src/Models/User.php"])
    assert.deepStrictEqual(Imports.resolveImports("php/src/Http/Controller.php", "/../helpers.php", p.index), ["php/src/helpers.php"])
    assert.strictEqual(p.ranking.files[0]?.path, "php/src/Models/User.php")
  })
})
