"""Explained failures: each entry names a class, says why (docs/compiler-bugs.md has the
reduced reproducers), and matches a failing configuration by what it shows.

An entry's `match(case, result, evidence)` must be specific: the campaign's promise is that
every failure it counts as explained is one of these, and nothing else."""

import re
import subprocess

from . import core

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


KNOWN = [
  {"name": "llvm-amdgpu-break-large-phis", "class": "compiler", "match": _break_large_phis,
   "why": "LLVM AMDGPU: a split large-vector PHI loses the value of a divergent switch's default edge "
          "(right with -mllvm -amdgpu-codegenprepare-break-large-phis=0 and at -O0)"},
  {"name": "llvm-amdgpu-fold-or-minus-one", "class": "compiler", "match": _or_minus_one,
   "why": "LLVM AMDGPU: SIFoldOperands folds `or x, -1` into a move of x instead of -1 "
          "(the pass's before/after dumps of this compile show the OR become a move of a register; -O0 passes)"},
]
