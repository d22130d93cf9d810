/**
 * @harn/lint: the Harn linter. Rules (lint.md §2–§4 and our extensions),
 * the shared walk and control-flow graphs they run on, autofixes,
 * `harn.toml` configuration, target collection, the module graph, and the
 * output formats of `harn lint`.
 */
export type {
  FixEdit,
  MessageTemplate,
  RuleMeta,
  RuleTriggers,
  RuleSetting,
  ProjectFacts,
  Diagnostic,
  LintOptions,
  Report,
  Rule,
  RuleContext,
  Severity,
  Visitors,
  BlockInfo,
  BlockRole,
} from "./types";
export { Linter, lintProgram, lintSource, sortDiagnostics } from "./linter";
export { handleSummaries, type HandleSummary } from "./handles/summaries";
export { ALL_RULES, RULES_BY_ID } from "./rules/index";
export { unusedFunctionName } from "./rules/unused-function";
export { applyFixes, selectEdits, type FixResult } from "./fix";
export { typeErrorFixes, withTypeErrorFixes } from "./string-concat-fix";
export {
  ConfigError,
  ConfigResolver,
  DEFAULT_CONFIG,
  rulesOff,
  findManifest,
  manifestBool,
  ManifestResolver,
  manifestTable,
  readLintConfig,
  readManifest,
  type LintConfig,
} from "./config";
export { ProjectGraph, moduleExports, resolveImport, type ProjectOptions } from "./project";
export { parseForLint } from "./ast-util";
export { MAIN_THREAD_DEPTH, RunContext, type FileJob, type FileOutcome, type RunSettings } from "./batch";
export { lintFiles, shares, type PoolOptions } from "./worker-pool";
export { FileHasher, hashBytes, hashText, LintCache, type CacheEntry } from "./cache";
export { buildCfg } from "./cfg/build";
export type { Cfg, CfgBlock, CfgElem, CfgOwner } from "./cfg/cfg";
export { solveForward, replay, type ForwardAnalysis } from "./cfg/dataflow";
export { countBySeverity, type FileReport } from "./format/report";
export { formatHuman, renderReport, type HumanOutput } from "./format/human";
export { formatJson, toEslintResults, mergeFix, type EslintResult } from "./format/json";
export { formatSarif, toSarif, pathToUri, type RuleDoc, type SarifOptions } from "./format/sarif";
export { formatGithub } from "./format/github";
