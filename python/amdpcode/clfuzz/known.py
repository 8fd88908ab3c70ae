"""Explained failures: each entry names a class, says why (docs/compiler-bugs.md has the
reduced reproducers), and matches a failing configuration by what it shows.

An entry's `match(case, result, evidence)` must be specific: the campaign's promise is that
every failure it counts as explained is one of these, and nothing else."""

import re
import subprocess

from . import core, llvmir

# LLVM's AMDGPUCodeGenPrepare splits a PHI of a large vector (`ushort4`, `int2`, ...) into one
# PHI per element ("break large PHIs"); on a divergent `switch` whose `default` edge carries
# the vector unchanged, the machine code of the split PHIs copies the value on some incoming
# edges only, so the lanes that reach the join from the default case keep whatever register
# held before (docs/compiler-bugs.md). The signature is the compiler's own switch: the same
# kernel, target and level compiled with `-mllvm -amdgpu-codegenprepare-break-large-phis=0`
# matches the reference, and -O0 of the target passes.
BREAK_LARGE_PHIS_OFF = ["-mllvm", "-amdgpu-codegenprepare-break-large-phis=0"]


def _break_large_phis(case, r, ev):
  if r.get("status") != "mismatch" or r.get("opt") == "O0" or f"{r['target']} -O0" not in ev.get("passing", []):
    return False
  try:
    co = core.compile_kernel(case.source, r["target"], r["opt"], extra=BREAK_LARGE_PHIS_OFF)
    ok = not core.compare(core.run_reference(case), core.run_amdpcode(case, co, "interp"))
  except Exception as e:  # a compile or run failure is no evidence either way
    ev["break_large_phis_off_error"] = str(e)[-300:]
    return False
  ev["break_large_phis_off_matches_reference"] = ok
  return ok


# LLVM AMDGPU's SIFoldOperands simplifies `or x, -1` after instruction selection (where a
# constant only shows once a register is traced to its `s_mov_b32 -1`, typically the low half of
# a 64-bit constant built in another block) by dropping the -1 operand and turning the OR into a
# move: the move then copies `x` instead of writing -1 (docs/compiler-bugs.md; fixed on
# LLVM's main branch after 22.1). No option switches the pass off, so the signature is the pass's own record:
# the same kernel, target and level compiled with the pass's before/after dumps, and an OR in a
# "before" dump whose destination is a move from a register in the matching "after" dump (the
# right result of that fold is a move of -1, and `or x, 0` becomes a COPY), with -O0 of the target
# passing.
FOLD_DUMPS = ["-mllvm", "-print-before=si-fold-operands", "-mllvm", "-print-after=si-fold-operands"]
_ORS = {"V_OR_B32_e32", "V_OR_B32_e64", "S_OR_B32"}
_MOVS = {"V_MOV_B32_e32", "S_MOV_B32"}
_DEF = re.compile(r"^\s*(%\d+)(?::[\w]+)? = (?:[a-z]+ )*([A-Z][A-Za-z0-9_]*) (.*)$")


def or_minus_one_folds(dumps):
  """The ORs that SIFoldOperands turned into a move of their other register operand, from the
  text of clang's `FOLD_DUMPS` output: [(function, the OR before, the move after)]."""
  found, before, func = [], None, None
  for section in re.split(r"^# \*\*\* IR Dump ", dumps, flags=re.M)[1:]:
    head, _, body = section.partition("\n")
    m = re.search(r"^# Machine code for function ([^:]+):", body, flags=re.M)
    name = m.group(1) if m else None
    lines = {}
    for line in body.splitlines():
      d = _DEF.match(line)
      if d: lines[d.group(1)] = (d.group(2), d.group(3).split(",")[0].strip(), line.strip())
    if head.startswith("Before SI Fold Operands"):
      before, func = lines, name
    elif head.startswith("After SI Fold Operands") and before is not None and name == func:
      for reg, (opc, first, line) in lines.items():
        was = before.get(reg)
        if was and was[0] in _ORS and opc in _MOVS and first.startswith(("%", "$")):
          found.append((name, was[2], line))
      before = None
  return found


def fold_dumps(source, target, opt):
  """clang-22's SIFoldOperands dumps (stderr) for `source` compiled for `target` at `opt`."""
  p = subprocess.run(core.clang_args(target, opt, FOLD_DUMPS) + ["-c", "-", "-o", "/dev/null"], input=source,
                     capture_output=True, text=True)
  if p.returncode: raise core.CompileError(p.stderr[-2000:])
  return p.stderr


def _or_minus_one(case, r, ev):
  if r.get("status") != "mismatch" or r.get("opt") == "O0" or f"{r['target']} -O0" not in ev.get("passing", []):
    return False
  try:
    folds = or_minus_one_folds(fold_dumps(case.source, r["target"], r["opt"]))
  except Exception as e:  # a compile failure is no evidence either way
    ev["or_minus_one_fold_error"] = str(e)[-300:]
    return False
  ev["or_minus_one_folds"] = [f"{before}  ->  {after}" for _, before, after in folds[:4]]
  return bool(folds)


def _reproduced_by_llc(case, r, ev, key, ir, changed, start_before=None):
  """Whether `ir` compiled by llc-22 still fails as the campaign's compile did while `changed` (the
  same IR with one construct blocked, meaning unchanged) matches the reference; the evidence
  goes under `key`."""
  ref = core.run_reference(case)
  same = core.compare(ref, core.run_amdpcode(case, llvmir.code_object(ir, r["target"], r["opt"], start_before),
                                             "interp"))
  fixed = core.compare(ref, core.run_amdpcode(case, llvmir.code_object(changed, r["target"], r["opt"],
                                                                       start_before), "interp"))
  ev[f"{key}_llc_fails"] = bool(same)
  ev[f"{key}_blocked_matches_reference"] = not fixed
  return bool(same) and not fixed


def _counterfactual(ev, key, check):
  """`check()`, with a compile or run failure recorded under `key` as no evidence either way."""
  try:
    return check()
  except Exception as e:
    ev[f"{key}_error"] = str(e)[-300:]
    return False


def _optimized_failure(r, ev):
  return r.get("status") == "mismatch" and r.get("opt") != "O0" and f"{r['target']} -O0" in ev.get("passing", [])


# LLVM's SelectionDAG builder turns a select between the two operands of an ordering compare
# (`x < y ? x : y`) into a minimum or maximum (`v_min_f32`/`v_max_f32`) although the IR carries no
# `nsz` flag: the ISA's min and max order -0.0 below +0.0, while the compare calls them equal, so
# `x < 0.0f ? x : 0.0f` with x = -0.0 gives -0.0 where the program says +0.0 (docs/compiler-bugs.md).
# The signature is a counterfactual: the optimized IR compiled by llc-22 fails as clang's compile
# did, and the same IR with each such compare reading a `freeze` of its operands (the same values;
# the select's operands are then no longer the compare's, so no min/max is formed) matches the
# reference, with -O0 of the target passing.
def _select_minmax(case, r, ev):
  def check():
    ir = llvmir.optimized_ir(case.source, r["target"], r["opt"])
    pairs = llvmir.minmax_selects(ir)
    ev["minmax_selects"] = [f"{c}  /  {s}" for c, s in pairs[:4]]
    return bool(pairs) and _reproduced_by_llc(case, r, ev, "minmax", ir,
                                              llvmir.freeze_compare_operands(ir, [c for c, _ in pairs]))
  return _optimized_failure(r, ev) and _counterfactual(ev, "minmax", check)


# LLVM's StructurizeCFG hoists a "zero-cost" instruction (a `zext`, an element extract) that a
# merge PHI reads from an else block into the block that branches to it, and rewires the Flow
# PHIs it creates with `poison` on some paths into the merge: lanes that take such a path get
# whatever register held the poison (docs/compiler-bugs.md; upstream has since stopped hoisting
# for merge PHIs of more than two inputs). The signature: StructurizeCFG (opt-22, on the IR
# just before it in llc-22's pipeline) moves a value that a PHI reads into another block; that IR
# compiled from there by llc-22 fails as clang's compile did, and the same IR with those PHI
# inputs read through a `freeze` at the end of their incoming block (the same values, no longer
# the hoisted instruction itself) matches the reference, with -O0 of the target passing.
def _structurize_hoist(case, r, ev):
  def check():
    before = llvmir.ir_before_pass(llvmir.optimized_ir(case.source, r["target"], r["opt"]), r["target"], r["opt"],
                                   "structurizecfg")
    moved = llvmir.moved_phi_inputs(before, llvmir.run_pass(before, "structurizecfg<skip-uniform-regions>"))
    ev["structurize_hoisted"] = [f"{fn}: {v} {b} -> {a}" for fn, v, b, a, _ in moved[:4]]
    return bool(moved) and _reproduced_by_llc(case, r, ev, "structurize", before,
                                              llvmir.freeze_phi_inputs(before, moved), start_before="structurizecfg")
  return _optimized_failure(r, ev) and _counterfactual(ev, "structurize", check)


KNOWN = [
  {"name": "llvm-amdgpu-break-large-phis", "class": "compiler", "match": _break_large_phis,
   "why": "LLVM AMDGPU: a split large-vector PHI loses the value of a divergent switch's default edge "
          "(right with -mllvm -amdgpu-codegenprepare-break-large-phis=0 and at -O0)"},
  {"name": "llvm-amdgpu-fold-or-minus-one", "class": "compiler", "match": _or_minus_one,
   "why": "LLVM AMDGPU: SIFoldOperands folds `or x, -1` into a move of x instead of -1 "
          "(the pass's before/after dumps of this compile show the OR become a move of a register; -O0 passes)"},
  {"name": "llvm-select-minmax-signed-zero", "class": "compiler", "match": _select_minmax,
   "why": "LLVM AMDGPU: a select between an ordering compare's operands becomes v_min/v_max without nsz, "
          "so -0.0 and +0.0 swap (llc-22 of the optimized IR fails; with the compare's operands frozen it matches; -O0 passes)"},
  {"name": "llvm-structurizecfg-hoist", "class": "compiler", "match": _structurize_hoist,
   "why": "LLVM AMDGPU: StructurizeCFG hoists a zero-cost PHI input out of an else block and feeds poison on other "
          "paths (llc-22 from structurizecfg fails; with the PHI inputs frozen it matches; -O0 passes)"},
]
