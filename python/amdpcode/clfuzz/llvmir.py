"""LLVM IR as text, for triage's counterfactual recompiles: the optimized IR of a kernel, the IR
just before one codegen pass, a code object from IR through llc-22, and the few edits triage
makes (a `freeze` put between a value and one of its uses, which leaves the program's meaning
unchanged and stops a pattern that needs that use to be the value itself).

Names: clang's IR numbers most values (`%12`) and blocks (`12:`); `opt -passes=instnamer` names
them all (`%i12`, `bb12`), so a value keeps its name across a pass that inserts new ones."""
import os
import re
import subprocess
import tempfile
import textwrap

from . import core

LLC = os.environ.get("AMDPCODE_LLC", "llc-22")
OPT = os.environ.get("AMDPCODE_OPT", "opt-22")

_NAME = r"%[\w.$-]+"
_TYPE = r"<\d+ x \w+>|\w+"
_FLAGS = r"(?:(?:nnan|ninf|nsz|arcp|contract|afn|reassoc|fast) )*"
_FCMP = re.compile(rf"^\s*({_NAME}) = fcmp ({_FLAGS})(\w+) ({_TYPE}) ([^,]+), ([^,]+?)(?:, !.*)?$")
_SELECT = re.compile(rf"^\s*({_NAME}) = select ({_FLAGS})(?:<\d+ x i1>|i1) ({_NAME}), ({_TYPE}) ([^,]+), "
                     rf"({_TYPE}) ([^,]+?)(?:, !.*)?$")
_DEFINE = re.compile(r"^define .*@([\w.$-]+)\(")
_LABEL = re.compile(r"^([\w.$-]+):")
_DEF = re.compile(rf"^\s+({_NAME}) = (\w+)")
_INCOMING = re.compile(rf"\[ ({_NAME}), %([\w.$-]+) \]")
_ORDERED = {"olt", "ole", "ogt", "oge", "ult", "ule", "ugt", "uge"}


def _run(args, what, input=None):
  p = subprocess.run(args, input=input, capture_output=True, text=True)
  if p.returncode: raise core.CompileError(f"{what}: {p.stderr[-2000:]}")
  return p.stdout


def _level(opt):
  return "-O" + opt[1:] if opt != "O0" else "-O0"


def optimized_ir(source, target, opt):
  """clang-22's IR of `source` for `target` at `opt`, after the middle end (what codegen gets)."""
  return _run(core.clang_args(target, opt) + ["-S", "-emit-llvm", "-", "-o", "-"], "clang -emit-llvm", source)


def _mcpu(target):
  return [f for f in core.target_flags(target) if f.startswith("-mcpu=")]


def ir_before_pass(ir, target, opt, pass_name):
  """The IR as codegen has it just before `pass_name` (an IR pass of llc's pipeline), every value
  and block named."""
  mir = _run([LLC, _level(opt), "-mtriple=amdgcn-amd-amdhsa", *_mcpu(target), f"-stop-before={pass_name}",
              "-", "-o", "-"], f"llc -stop-before={pass_name}", ir)
  # llc writes the IR inside a machine-IR document: `--- |`, the module indented, `...`.
  body = mir.split("--- |\n", 1)[1].split("\n...\n", 1)[0] if "--- |\n" in mir else mir
  return _run([OPT, "-passes=instnamer", "-S", "-", "-o", "-"], "opt instnamer", textwrap.dedent(body))


def run_pass(ir, passes):
  """`ir` after `opt-22 -passes=<passes>`."""
  return _run([OPT, f"-passes={passes}", "-S", "-", "-o", "-"], f"opt {passes}", ir)


def code_object(ir, target, opt, start_before=None):
  """The code object of `ir` compiled by llc-22 at `opt` (from `start_before`, an IR pass, when
  given: the IR is then what `ir_before_pass` returned) and linked by ld.lld-22."""
  with tempfile.TemporaryDirectory(prefix="clfuzz-ir-") as d:
    obj, co = os.path.join(d, "k.o"), os.path.join(d, "k.hsaco")
    start = [f"-start-before={start_before}"] if start_before else []
    _run([LLC, _level(opt), "-mtriple=amdgcn-amd-amdhsa", *_mcpu(target), *start, "-filetype=obj", "-", "-o",
          obj], "llc", ir)
    _run([core.LLD, "-shared", obj, "-o", co], "ld.lld")
    with open(co, "rb") as f: return f.read()


def minmax_selects(ir):
  """The selects between the two operands of a floating-point ordering compare that chooses
  between them (`select (fcmp olt x, y), x, y` and its mirrors), with no flag allowing the
  compiler to ignore signed zeros: [(compare line, select line)]."""
  lines = ir.splitlines()
  fcmps = {}
  for line in lines:
    m = _FCMP.match(line)
    if m: fcmps[m.group(1)] = m
  found = []
  for line in lines:
    s = _SELECT.match(line)
    if not s or s.group(3) not in fcmps: continue
    c = fcmps[s.group(3)]
    flags = c.group(2) + s.group(2)
    if c.group(3) not in _ORDERED or "nsz" in flags or "fast" in flags: continue
    if {s.group(5).strip(), s.group(7).strip()} == {c.group(5).strip(), c.group(6).strip()}:
      found.append((c.group(0).strip(), line.strip()))
  return found


def freeze_compare_operands(ir, compares):
  """`ir` with each compare of `compares` (their lines) reading a `freeze` of its register
  operands instead of the registers themselves; the selects keep reading the registers."""
  out, n = [], 0
  wanted = set(compares)
  for line in ir.splitlines():
    m = _FCMP.match(line)
    if m and line.strip() in wanted:
      indent = line[:len(line) - len(line.lstrip())]
      ops = []
      for op in (m.group(5).strip(), m.group(6).strip()):
        if op.startswith("%"):
          n += 1
          out.append(f"{indent}%amdpcode.frozen{n} = freeze {m.group(4)} {op}")
          op = f"%amdpcode.frozen{n}"
        ops.append(op)
      line = line[:m.start(5)] + f"{ops[0]}, {ops[1]}" + line[m.end(6):]
    out.append(line)
  return "\n".join(out) + "\n"


def functions(ir):
  """{function: {value: (block, opcode)}} and {function: [(phi value, line)]} of named IR."""
  defs, phis, fn, block = {}, {}, None, None
  for line in ir.splitlines():
    m = _DEFINE.match(line)
    if m:
      fn, block = m.group(1), None
      defs[fn], phis[fn] = {}, []
      continue
    if fn is None: continue
    if line.startswith("}"):
      fn = None
      continue
    m = _LABEL.match(line)
    if m:
      block = m.group(1)
      continue
    d = _DEF.match(line)
    if d:
      defs[fn][d.group(1)] = (block, d.group(2))
      if d.group(2) == "phi": phis[fn].append((d.group(1), line.strip()))
  return defs, phis


def moved_phi_inputs(before, after):
  """The values a pass moved to another block that a PHI reads, from named IR before and after
  it: [(function, value, block before, block after, [(phi, incoming block)])]."""
  b_defs, b_phis = functions(before)
  a_defs, _ = functions(after)
  found = []
  for fn, defs in b_defs.items():
    for value, (block, opcode) in defs.items():
      moved_to = a_defs.get(fn, {}).get(value, (block,))[0]
      if opcode == "phi" or moved_to == block: continue
      uses = [(phi, pred) for phi, line in b_phis[fn] for v, pred in _INCOMING.findall(line) if v == value]
      if uses: found.append((fn, value, block, moved_to, uses))
  return found


def freeze_phi_inputs(ir, moved):
  """`ir` with each PHI input of `moved` (from `moved_phi_inputs`) read through a `freeze` put at
  the end of the incoming block, so the PHI's input is no longer the moved value itself."""
  edges = {(fn, value, pred): phi for fn, value, _, _, uses in moved for phi, pred in uses}
  types, fn, block, n = {}, None, None, 0
  lines = ir.splitlines()
  for line in lines:
    m = _DEFINE.match(line)
    if m: fn = m.group(1)
    d = re.match(rf"^\s+({_NAME}) = phi (?:{_FLAGS})({_TYPE}) ", line)
    if d and fn: types[(fn, d.group(1))] = d.group(2)
  # The freezes, by (function, block): inserted before the block's terminator.
  inserts, renames = {}, {}
  for (f, value, pred), phi in edges.items():
    n += 1
    name = f"%amdpcode.frozen{n}"
    inserts.setdefault((f, pred), []).append(f"  {name} = freeze {types[(f, phi)]} {value}")
    renames[(f, phi, value, pred)] = name
  out = []
  for line in lines:
    m = _DEFINE.match(line)
    if m: fn, block = m.group(1), None
    lab = _LABEL.match(line)
    if lab: block = lab.group(1)
    stripped = line.strip()
    if fn and stripped.split(" ", 1)[0] in ("br", "switch", "ret", "unreachable", "indirectbr", "callbr"):
      out.extend(inserts.pop((fn, block), []))
    d = _DEF.match(line)
    if d and d.group(2) == "phi":
      for (f, phi, value, pred), name in renames.items():
        if f == fn and phi == d.group(1): line = line.replace(f"[ {value}, %{pred} ]", f"[ {name}, %{pred} ]")
    out.append(line)
  if inserts: raise ValueError(f"no terminator found for blocks {sorted(inserts)}")
  return "\n".join(out) + "\n"
