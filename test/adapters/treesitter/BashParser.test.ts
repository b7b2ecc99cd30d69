import * as TreeSitterBashParser from "../../../src/adapters/treesitter/TreeSitterBashParser.js"
import { contract } from "../../contracts/BashParser.contract.js"

contract("tree-sitter", { make: TreeSitterBashParser.makeParser })
