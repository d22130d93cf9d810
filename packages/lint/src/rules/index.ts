/**
 * Every rule, in the order of the catalogue (lint.md §2), followed by our
 * extensions (extensions.md §4, §6).
 */
import type { Rule } from "../types";
import { assertOutsideTest, requireInTest } from "./test-pipelines";
import { blankLineBetweenItems } from "./blank-line-between-items";
import { breakOutsideLoop } from "./break-outside-loop";
import { comparisonToBool, pointlessComparison } from "./comparisons";
import { connectorEffectPolicy } from "./connector-effect-policy";
import { cyclomaticComplexity } from "./cyclomatic-complexity";
import { deadCodeAfterReturn } from "./dead-code-after-return";
import { duplicateMatchArm } from "./duplicate-match-arm";
import { eagerCollectionConversion } from "./eager-collection-conversion";
import { emptyBlock } from "./empty-block";
import { importOrder } from "./import-order";
import { invalidBinaryOpLiteral } from "./invalid-binary-op-literal";
import { legacyDocComment } from "./legacy-doc-comment";
import { letThenReturn } from "./let-then-return";
import { longRunningWithoutCleanup } from "./long-running-without-cleanup";
import { missingHarndoc } from "./missing-harndoc";
import { mutableNeverReassigned } from "./mutable-never-reassigned";
import { namingConvention } from "./naming-convention";
import { pipelineReturnType } from "./pipeline-return-type";
import { prOpenWithoutSecretScan } from "./pr-open-without-secret-scan";
import { promptInjectionRisk } from "./prompt-injection-risk";
import { redundantClone } from "./redundant-clone";
import { redundantNilTernary } from "./redundant-nil-ternary";
import { requireFileHeader } from "./require-file-header";
import { shadowVariable } from "./shadow-variable";
import { trailingComma } from "./trailing-comma";
import { undefinedFunction } from "./undefined-function";
import { unhandledApprovalResult } from "./unhandled-approval-result";
import { unnecessaryCast } from "./unnecessary-cast";
import { unnecessaryElseReturn } from "./unnecessary-else-return";
import { untypedDictAccess } from "./untyped-dict-access";
import { unusedFunction } from "./unused-function";
import { unusedImport } from "./unused-import";
import { unusedParameter } from "./unused-parameter";
import { unusedSuppression } from "./unused-suppression";
import { unusedType } from "./unused-type";
import { unusedPatternBinding, unusedVariable } from "./unused-variable";
import { cleanupCancelsWrongHandle, longRunningHandleDiscarded } from "../handles/checked-handles";
import { pairPatternOverDict } from "./pair-pattern-over-dict";
import { fnValueDiscarded } from "./fn-value-discarded";

export const ALL_RULES: readonly Rule[] = [
  longRunningWithoutCleanup,
  breakOutsideLoop,
  deadCodeAfterReturn,
  unusedVariable,
  unusedPatternBinding,
  unusedParameter,
  unusedImport,
  unusedFunction,
  undefinedFunction,
  shadowVariable,
  mutableNeverReassigned,
  emptyBlock,
  invalidBinaryOpLiteral,
  assertOutsideTest,
  requireInTest,
  comparisonToBool,
  pointlessComparison,
  duplicateMatchArm,
  unnecessaryElseReturn,
  letThenReturn,
  redundantNilTernary,
  unnecessaryCast,
  redundantClone,
  namingConvention,
  unusedType,
  missingHarndoc,
  pipelineReturnType,
  cyclomaticComplexity,
  untypedDictAccess,
  promptInjectionRisk,
  unhandledApprovalResult,
  eagerCollectionConversion,
  legacyDocComment,
  blankLineBetweenItems,
  trailingComma,
  importOrder,
  requireFileHeader,
  prOpenWithoutSecretScan,
  connectorEffectPolicy,
  // extensions
  longRunningHandleDiscarded,
  cleanupCancelsWrongHandle,
  unusedSuppression,
  pairPatternOverDict,
  fnValueDiscarded,
];

export const RULES_BY_ID: ReadonlyMap<string, Rule> = new Map(ALL_RULES.map((r) => [r.id, r]));

/** Legacy ids that stand for a rule (lint.md §1.5). */
export const RULE_ALIASES: ReadonlyMap<string, string> = new Map([["unreachable-code", "dead-code-after-return"]]);
