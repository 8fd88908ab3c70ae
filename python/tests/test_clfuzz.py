"""The compiler differential campaign (amdpcode.clfuzz): the generator's determinism and
hygiene, the comparison, a planted difference being caught, and small campaigns on local
processes and on a local Ray instance that must end with no unexplained failure.

Needs clang-22, ld.lld-22 and PoCL (pyopencl); .ci/run installs them and runs this file in its
own step. Without them the tests skip, except under CI=true."""
import os
import shutil
import subprocess

import numpy as np
import pytest

from amdpcode.clfuzz import __main__ as cli
from amdpcode.clfuzz import campaign, core, gen, triage

CI = os.environ.get("CI") == "true"


def _need_tools():
  missing = [t for t in (core.CLANG, core.LLD) if not shutil.which(t)]
  try:
    import pyopencl  # noqa: F401
  except ImportError:
    missing.append("pyopencl")
  if missing:
    if CI: pytest.fail(f"missing under CI: {', '.join(missing)}")
    pytest.skip(f"needs {', '.join(missing)}")

def _reduced_case(seed, body, words=None):
  """The generator's frame (prelude, inputs, launch) of `seed` around the kernel `body`."""
  from amdpcode.clfuzz import reduce
  g = gen.generate(seed)
  head, _ = reduce.split_source(g.source)
  return gen.Case(seed=seed, source=head + body, block=g.block, groups=g.groups, knobs=g.knobs,
                  input_words=g.input_words if words is None else words(len(g.input_words)))



def test_kernel_of_a_seed_is_the_same_every_time_and_seeds_differ():
  a, b = gen.generate(1234), gen.generate(1234)
  assert a.source == b.source and a.input_words == b.input_words
  assert (a.block, a.groups) == (b.block, b.groups)
  assert gen.generate(1235).source != a.source
  # the header names the seed, the knobs and the generator version
  assert a.source.startswith(f"/* amdpcode clfuzz generator {gen.GENERATOR_VERSION}, seed 1234, knobs ")
  assert "float" not in gen.generate(1234, gen.Knobs(floats=False)).source.split("kernel void fuzz")[1]


def test_knobs_remove_what_they_name():
  body = gen.generate(7, gen.Knobs(lds=False, atomics=False, loops=False, switches=False)).source
  body = body.split("kernel void fuzz")[1]
  assert "GATOM_" not in body and "LATOM_" not in body and "switch (" not in body
  assert "while (" not in body and "for (uint i0" not in body
  assert body.count("BARRIER();") == 1  # only the one after the local atomics' initialization


def test_generated_kernels_compile_warning_free_of_undefined_behaviour():
  _need_tools()
  from amdpcode.clfuzz import check
  for seed in range(6):
    src = gen.generate(seed).source
    args = core.clang_args("gfx1100", "O2") + ["-fsyntax-only"] + [f"-Werror={w}" for w in check.UB_ERRORS]
    p = subprocess.run(args + ["-"], input=src, capture_output=True, text=True)
    assert p.returncode == 0, f"seed {seed}: {p.stderr[-2000:]}"


def test_compare_names_buffer_first_index_and_count():
  ref = [np.array([1, 2, 3], dtype=np.uint64), np.array([5, 6], dtype=np.uint8)]
  got = [np.array([1, 9, 8], dtype=np.uint64), np.array([5, 6], dtype=np.uint8)]
  assert core.compare(ref, got) == [("out", 1, 2, 2, 9)]
  assert core.compare(ref, ref) == []


def test_seed_ranges_and_levels_parse_and_bad_ones_are_refused():
  assert cli.parse_seeds("3..6") == [3, 4, 5, 6]
  assert cli.parse_seeds("9") == [9]
  assert cli.parse_levels("0,-O2,o3") == ["O0", "O2", "O3"]
  with pytest.raises(Exception, match="not one of"):
    cli.parse_levels("O4")
  with pytest.raises(Exception, match="empty"):
    cli.parse_seeds("5..1")
  with pytest.raises(Exception, match="unknown knob"):
    cli.parse_knobs("colour=1")
  assert cli.parse_knobs("floats=0,statements=5") == {"floats": False, "statements": 5}


def test_unknown_target_is_refused_with_the_reason():
  _need_tools()
  assert core.probe_target("gfx1100") is None
  assert "gfx1100" in core.supported_targets()
  assert core.probe_target("gfx7000") is not None
  assert cli.main(["--seeds", "0", "--targets", "gfx7000", "--quiet"]) == 2


def test_a_planted_difference_is_caught_and_left_unexplained():
  _need_tools()
  case = gen.generate(3)
  # The amdgcn side adds one to work-item 5's checksum: the reference does not.
  planted = case.source.replace("  out[gid] = h;", "#ifdef __AMDGCN__\n  if (gid == 5u) h += 1;\n#endif\n  out[gid] = h;")
  ref = core.run_reference(case)
  co = core.compile_kernel(planted, "gfx1100", "O1")
  got = core.run_amdpcode(case, co)
  diff = core.compare(ref, got)
  assert [(d[0], d[1], d[2]) for d in diff] == [("out", 5, 1)]
  assert diff[0][4] == (diff[0][3] + 1) % (1 << 64)
  bad = gen.Case(seed=3, source=planted, block=case.block, groups=case.groups, knobs=case.knobs,
                 input_words=case.input_words)
  r = {"seed": 3, "target": "gfx1100", "opt": "O1", "status": "mismatch", "diff": diff}
  t = triage.triage(bad, r, {("gfx1100", "O1"): diff}, "jit")
  assert t["class"] == "unexplained"
  assert t["evidence"]["interp_vs_jit"] == []


def _campaign(tmp_path, extra):
  out = tmp_path / "out"
  code = cli.main(["--targets", "gfx1100,gfx950", "--opt-levels", "O0,O2", "--out", str(out), "--quiet", *extra])
  import json
  summary = json.loads((out / "summary.json").read_text())
  return code, summary


def test_campaign_on_local_processes_has_no_unexplained_failure(tmp_path):
  _need_tools()
  code, s = _campaign(tmp_path, ["--seeds", "0..24", "--jobs", "2"])
  assert s["runs"] == 25 * 2 * 2
  assert s["classes"].get("unexplained", 0) == 0, s["failures"]
  assert code == 0
  assert s["stages"]["compile"]["count"] == 100 and s["stages"]["reference"]["count"] == 25


def test_campaign_on_a_local_ray_instance_has_no_unexplained_failure(tmp_path):
  _need_tools()
  pytest.importorskip("ray") if not CI else None
  code, s = _campaign(tmp_path, ["--seeds", "25..49", "--ray", "local", "--ray-cpus", "2"])
  assert s["runner"] == "ray local"
  assert s["runs"] == 25 * 2 * 2
  assert s["classes"].get("unexplained", 0) == 0, s["failures"]
  assert code == 0


def test_batches_give_the_same_results_whatever_the_split():
  _need_tools()
  one = campaign.run_batch([11, 12], ["gfx1100"], ["O1"])["results"]
  two = campaign.run_batch([12], ["gfx1100"], ["O1"])["results"] + campaign.run_batch([11], ["gfx1100"], ["O1"])["results"]
  alone = campaign.run_batch([11, 12], ["gfx1100"], ["O1"], unit=1)["results"]
  key = lambda r: (r["seed"], r["status"], str(r.get("diff")))  # noqa: E731
  assert sorted(map(key, one)) == sorted(map(key, two)) == sorted(map(key, alone))
  assert {r["seed"] for r in one} == {11, 12}


def test_a_unit_holds_every_kernel_once_with_one_prelude():
  cases = [gen.generate(s) for s in (5, 6, 7)]
  src = gen.unit_source(cases)
  assert [gen.unit_kernel(c) for c in cases] == ["fuzz_5", "fuzz_6", "fuzz_7"]
  assert src.count("kernel void fuzz_") == 3 and "kernel void fuzz(" not in src
  assert src.count("static inline int sdiv32(") == 1
  # each kernel's text is its own source's, renamed
  body = cases[1].source[cases[1].source.index("kernel void fuzz("):]
  assert body.replace("kernel void fuzz(", "kernel void fuzz_6(", 1) in src
  with pytest.raises(ValueError, match="prelude"):
    gen.unit_source([gen.generate(5), gen.Case(seed=9, source="/* x */\nint junk;\nkernel void fuzz() {}", block=1,
                                               groups=1, knobs=gen.Knobs())])


def test_a_kernel_failing_in_a_unit_is_run_alone_and_that_run_is_its_result():
  _need_tools()
  good, bad = gen.generate(3), gen.generate(4)
  planted = bad.source.replace("  out[gid] = h;", "#ifdef __AMDGCN__\n  if (gid == 2u) h ^= 1;\n#endif\n  out[gid] = h;")
  bad = gen.Case(seed=4, source=planted, block=bad.block, groups=bad.groups, knobs=bad.knobs, input_words=bad.input_words)
  timer = core.Timer()
  rs = campaign._run_unit([good, bad], ["gfx1100"], ["O1"], "jit", False, None, timer)
  by_seed = {r["seed"]: r for r in rs}
  assert by_seed[3]["status"] == "ok" and "unit" not in by_seed[3]
  r = by_seed[4]
  assert r["status"] == "mismatch" and [(d[0], d[1], d[2]) for d in r["diff"]] == [("out", 2, 1)]
  assert [(d[0], d[1], d[2]) for d in r["unit"]["diff"]] == [("out", 2, 1)]
  # one PoCL build and one compile served both kernels; the failing one ran alone once more
  assert timer.counts["reference"] == 2 and timer.counts["compile"] == 2 and timer.counts["alone"] == 1


def test_reduction_check_keeps_the_failure_and_rejects_undefined_behaviour(tmp_path):
  _need_tools()
  from amdpcode.clfuzz import check, reduce
  case = gen.generate(3)
  head, body = reduce.split_source(case.source)
  assert head.endswith("\n") and body.startswith("kernel void fuzz(")
  planted = body.replace("  out[gid] = h;", "#ifdef __AMDGCN__\n  if (gid == 5u) h += 1;\n#endif\n  out[gid] = h;")
  spec = {"seed": 3, "block": case.block, "groups": case.groups, "knobs": case.knobs.__dict__, "target": "gfx1100",
          "opt": "O1", "buffers": ["out"], "witness": None, "mode": "compiler"}
  assert check.interesting(spec, head + planted) == (True, "interesting")
  # the failure gone: not interesting
  assert check.interesting(spec, head + body) == (False, "the failure is gone")
  # an uninitialized read (what a careless reduction produces) is rejected before anything runs
  ub = planted.replace("uint gid = GID();", "uint gid;")
  ok, why = check.interesting(spec, head + ub)
  assert not ok and why.startswith("clang rejects it") and "uninitialized" in why
  # clang does not see an array element read before any write: the check does
  no_init = planted.replace("  for (uint i = 0; i < 8u; i++) arr[i] = in[(gid * 8u + i) & 255u] ^ i;\n", "")
  assert no_init != planted
  assert check.interesting(spec, head + no_init) == (False, "the private array is no longer initialized")


# The reduced reproducer of the LLVM bug in docs/compiler-bugs.md ("break large PHIs"), in the
# generator's frame (its head, buffers and inputs of seed 3072).
BREAK_LARGE_PHIS_BODY = """kernel void fuzz(global const uint *in, global ulong *out, global uchar *m8, global ushort *m16,
                 global uint *m32, global ulong *m64, global uint *atom, global ulong *atom64) {
  uint gid = GID();
  ushort4 v = (ushort4)((ushort)in[0], (ushort)in[gid & 255u], 0, 0);
  float f = (float)(int)in[0] * 1e-30f;
  switch ((in[0] + gid) & 7u) {
  case 2:
    atom[8] = 0;
    break;
  case 3:
    if (f != (float)gid - f) v = 0;
    break;
  default:
    m32[gid] = 0;
  }
  out[gid] = v.s0;
}
"""


def test_the_split_vector_phi_miscompile_is_caught_and_classed_as_the_compilers():
  _need_tools()
  from amdpcode.clfuzz import known
  case = _reduced_case(3072, BREAK_LARGE_PHIS_BODY)
  ref = core.run_reference(case)
  # Every work-item writes the low half of in[0] (PoCL, and amdpcode at -O0).
  assert all(int(x) == case.input_words[0] & 0xffff for x in ref[0])
  assert core.compare(ref, core.run_amdpcode(case, core.compile_kernel(case.source, "gfx1100", "O0"))) == []
  diff = core.compare(ref, core.run_amdpcode(case, core.compile_kernel(case.source, "gfx1100", "O2")))
  assert diff and diff[0][0] == "out" and diff[0][1] == 4
  got = core.run_amdpcode(case, core.compile_kernel(case.source, "gfx1100", "O2"))
  wrong = [g for g in range(len(ref[0])) if got[0][g] != ref[0][g]]
  # Only the lanes that reach the join from the default case after the `> 2` test lose the value.
  assert wrong and all((case.input_words[0] + g) & 7 >= 4 for g in wrong)
  fixed = core.compile_kernel(case.source, "gfx1100", "O2", extra=known.BREAK_LARGE_PHIS_OFF)
  assert core.compare(ref, core.run_amdpcode(case, fixed)) == []
  r = {"seed": 3072, "target": "gfx1100", "opt": "O2", "status": "mismatch", "diff": diff}
  t = triage.triage(case, r, {("gfx1100", "O2"): diff, ("gfx1100", "O0"): []}, "jit")
  assert (t["class"], t.get("known")) == ("compiler", "llvm-amdgpu-break-large-phis")


# Seed 4123's failure, reduced by hand (docs/compiler-bugs.md): the loop ORs a value with a
# vector whose low dword is the constant 0xffffffff, built before the loop.
FOLD_OR_MINUS_ONE_BODY = """
kernel void fuzz(global const uint *in, global ulong *out, global uchar *m8, global ushort *m16,
                 global uint *m32, global ulong *m64, global uint *atom, global ulong *atom64) {
  uint gid = GID();
  ulong2 v = (ulong2)(in[gid], in[gid + 64u]);
  ulong2 c = as_ulong2((uint4)(0xffffffffu, 4u, in[gid + 128u], 5u));
  for (uint i = 0; i < (gid & 3u); i++) v = (v * 3UL) | c;
  out[gid] = v.s0;
}
"""


def test_the_or_minus_one_signature_reads_only_ors_that_became_moves_of_a_register():
  from amdpcode.clfuzz import known
  dumps = """# *** IR Dump Before SI Fold Operands (si-fold-operands) ***:
# Machine code for function fuzz: IsSSA, TracksLiveness
  %3:vgpr_32 = V_OR_B32_e64 killed %1:vgpr_32, %2:vgpr_32, implicit $exec
  %5:vgpr_32 = V_OR_B32_e64 %1:vgpr_32, %4:sreg_32, implicit $exec
  %7:vgpr_32 = nuw V_OR_B32_e64 %1:vgpr_32, %6:sreg_32, implicit $exec
  %8:vgpr_32 = V_MOV_B32_e32 %1:vgpr_32, implicit $exec
# *** IR Dump After SI Fold Operands (si-fold-operands) ***:
# Machine code for function fuzz: IsSSA, TracksLiveness
  %3:vgpr_32 = V_MOV_B32_e32 %1.sub0:vreg_64, implicit $exec
  %5:vgpr_32 = V_MOV_B32_e32 -1, implicit $exec
  %7:vgpr_32 = COPY %1:vgpr_32
  %8:vgpr_32 = V_MOV_B32_e32 %1:vgpr_32, implicit $exec
# *** IR Dump Before SI Fold Operands (si-fold-operands) ***:
# Machine code for function fuzz: IsSSA, TracksLiveness
  %3:vgpr_32 = V_MOV_B32_e32 %1.sub0:vreg_64, implicit $exec
# *** IR Dump After SI Fold Operands (si-fold-operands) ***:
# Machine code for function fuzz: IsSSA, TracksLiveness
  %3:vgpr_32 = V_MOV_B32_e32 %1.sub0:vreg_64, implicit $exec
"""
  # Only %3: %5 is the right fold (a move of -1), %7 the right `or x, 0` (a COPY), %8 was a
  # move already, and the second run finds a move where the first left it.
  assert known.or_minus_one_folds(dumps) == [
      ("fuzz", "%3:vgpr_32 = V_OR_B32_e64 killed %1:vgpr_32, %2:vgpr_32, implicit $exec",
       "%3:vgpr_32 = V_MOV_B32_e32 %1.sub0:vreg_64, implicit $exec")]


def test_the_or_minus_one_fold_miscompile_is_caught_and_classed_as_the_compilers():
  _need_tools()
  from amdpcode.clfuzz import known
  case = _reduced_case(4123, FOLD_OR_MINUS_ONE_BODY)
  ref = core.run_reference(case)
  words = case.input_words
  for g in range(len(ref[0])):
    x = words[g]
    for _ in range(g & 3): x = ((x * 3) | 0x4ffffffff) & (2**64 - 1)
    assert int(ref[0][g]) == x
  assert core.compare(ref, core.run_amdpcode(case, core.compile_kernel(case.source, "gfx1100", "O0"))) == []
  got = core.run_amdpcode(case, core.compile_kernel(case.source, "gfx1100", "O2"))
  # The code runs as if the constant's low dword were 0: each OR keeps the low dword of `v * 3`.
  for g in range(len(ref[0])):
    x = words[g]
    for _ in range(g & 3): x = ((x * 3) | 0x400000000) & (2**64 - 1)
    assert int(got[0][g]) == x
  assert sum(int(got[0][g]) != int(ref[0][g]) for g in range(len(ref[0]))) == 48
  # The compiler's own dumps: one OR per function (the kernel and its callable twin) became a move
  # of a register at -O2, none at -O0.
  folds = known.or_minus_one_folds(known.fold_dumps(case.source, "gfx1100", "O2"))
  assert [f[0] for f in folds] == ["fuzz", "__clang_ocl_kern_imp_fuzz"]
  assert all(" V_OR_B32_e64 " in before and " V_MOV_B32_e32 %" in after for _, before, after in folds)
  assert known.or_minus_one_folds(known.fold_dumps(case.source, "gfx1100", "O0")) == []
  diff = core.compare(ref, got)
  r = {"seed": 4123, "target": "gfx1100", "opt": "O2", "status": "mismatch", "diff": diff}
  t = triage.triage(case, r, {("gfx1100", "O2"): diff, ("gfx1100", "O0"): []}, "jit")
  assert (t["class"], t.get("known")) == ("compiler", "llvm-amdgpu-fold-or-minus-one")
  assert t["evidence"]["break_large_phis_off_matches_reference"] is False


# A kernel whose results depend on where its buffers are: each work-item writes the address of
# `out` plus its id.
ADDRESS_BODY = """kernel void fuzz(global const uint *in, global ulong *out, global uchar *m8, global ushort *m16,
                 global uint *m32, global ulong *m64, global uint *atom, global ulong *atom64) {
  uint gid = GID();
  out[gid] = (ulong)out + gid;
}
"""


def test_the_engines_are_compared_on_the_same_buffers():
  _need_tools()
  case = _reduced_case(3072, ADDRESS_BODY)
  co = core.compile_kernel(case.source, "gfx942", "O2")
  jit, interp = core.run_engines(case, co, ("jit", "interp"))
  assert core.compare(jit, interp) == []
  base = int(jit[0][0])
  assert base != 0 and base % 8 == 0
  assert [int(x) for x in jit[0]] == [base + g for g in range(len(jit[0]))]


def test_a_register_left_unwritten_that_holds_an_address_is_the_compilers_split_phi():
  # Seed 4212 at -O2 on gfx942: the lanes that take the `else` arm and reach that switch's
  # `default` through its value 6 read arr[1] from a register no instruction on their path wrote
  # (LLVM's split vector PHI); on their path it last held the high half of an m32 address, so
  # their hash depends on where the buffers are, and two runs at different addresses differ even
  # on one engine. On the same buffers the engines agree, and triage finds the known bug.
  _need_tools()
  case = gen.generate(4212)
  co = core.compile_kernel(case.source, "gfx942", "O2")
  ref = core.run_reference(case)
  jit, interp = core.run_engines(case, co, ("jit", "interp"))
  assert core.compare(jit, interp) == []
  wrong = [g for g in range(len(ref[0])) if jit[0][g] != ref[0][g]]
  assert wrong == [26, 30, 45, 66, 74, 99, 120, 126]
  diff = core.compare(ref, jit)
  assert [d[0] for d in diff] == ["out"]
  r = {"seed": 4212, "target": "gfx942", "opt": "O2", "status": "mismatch", "diff": diff}
  t = triage.triage(case, r, {("gfx942", "O2"): diff, ("gfx942", "O0"): []}, "jit")
  assert t["evidence"]["interp_vs_jit"] == []
  assert (t["class"], t.get("known")) == ("compiler", "llvm-amdgpu-break-large-phis")


def test_gfx1250_kernels_with_a_64_bit_multiply_add_of_a_literal_match_pocl():
  # Seeds 3016 and 3017 at -O2 are the campaign kernels whose gfx1250 code divides 64-bit
  # values by constants with `v_mad_nc_u64_u32 v[16:17], 0xb823ee09, v27, v[14:15]` (a literal
  # first source); a build that decoded the literal as the next instruction wrote an SGPR
  # instead, and both kernels differed from PoCL.
  _need_tools()
  if core.probe_target("gfx1250") is not None: pytest.skip(f"gfx1250: {core.probe_target('gfx1250')}")
  for seed in (3016, 3017):
    case = gen.generate(seed)
    asm = core.compile_kernel(case.source, "gfx1250", "O2", asm=True)
    assert any(line.split()[:1] == ["v_mad_nc_u64_u32"] and ", 0x" in line for line in asm.splitlines())
    got = core.run_amdpcode(case, core.compile_kernel(case.source, "gfx1250", "O2"))
    assert core.compare(core.run_reference(case), got) == [], f"seed {seed}"


def test_the_summary_names_the_amdpcode_build_that_ran():
  b = core.amdpcode_build()
  assert os.path.isfile(b["path"]) and len(b["sha256"]) == 16 and b["modified"].endswith(" UTC")


def test_the_minmax_signature_reads_selects_between_a_compares_operands_and_freezes_only_the_compare():
  from amdpcode.clfuzz import llvmir
  ir = """define void @f(float %a, float %b) {
  %1 = fcmp olt float %a, 0.000000e+00
  %2 = select i1 %1, float %a, float 0.000000e+00
  %3 = fcmp nsz ogt float %a, %b
  %4 = select nsz i1 %3, float %a, float %b
  %5 = fcmp oeq float %a, %b
  %6 = select i1 %5, float %a, float %b
  %7 = fcmp ugt float %b, %a
  %8 = select i1 %7, float %a, float %b
  %9 = fcmp olt float %a, %b
  %10 = select i1 %9, float %a, float 1.000000e+00
  ret void
}
"""
  # Not %3 (nsz), %5 (an equality), %9 (the select's second value is not the compare's).
  assert llvmir.minmax_selects(ir) == [
      ("%1 = fcmp olt float %a, 0.000000e+00", "%2 = select i1 %1, float %a, float 0.000000e+00"),
      ("%7 = fcmp ugt float %b, %a", "%8 = select i1 %7, float %a, float %b")]
  frozen = llvmir.freeze_compare_operands(ir, ["%1 = fcmp olt float %a, 0.000000e+00"])
  assert frozen.splitlines()[1:4] == [
      "  %amdpcode.frozen1 = freeze float %a",
      "  %1 = fcmp olt float %amdpcode.frozen1, 0.000000e+00",
      "  %2 = select i1 %1, float %a, float 0.000000e+00"]
  assert llvmir.minmax_selects(frozen) == [llvmir.minmax_selects(ir)[1]]


def test_the_hoist_signature_finds_phi_inputs_a_pass_moved_and_freezes_them_in_their_block():
  from amdpcode.clfuzz import llvmir
  before = """define void @f(i16 %x, i32 %s) {
bb:
  switch i32 %s, label %bb2 [
    i32 0, label %bb1
    i32 5, label %bb3
  ]
bb1:
  br label %bb4
bb2:
  %i = zext i16 %x to i32
  br label %bb4
bb3:
  %j = sext i16 %x to i32
  br label %bb4
bb4:
  %p = phi i32 [ 0, %bb1 ], [ %i, %bb2 ], [ %j, %bb3 ]
  ret void
}
"""
  after = before.replace("  %i = zext i16 %x to i32\n", "").replace("bb:\n", "bb:\n  %i = zext i16 %x to i32\n")
  moved = llvmir.moved_phi_inputs(before, after)
  assert moved == [("f", "%i", "bb2", "bb", [("%p", "bb2")])]
  frozen = llvmir.freeze_phi_inputs(before, moved).splitlines()
  i = frozen.index("bb2:")
  assert frozen[i + 1:i + 4] == ["  %i = zext i16 %x to i32", "  %amdpcode.frozen1 = freeze i32 %i", "  br label %bb4"]
  assert "  %p = phi i32 [ 0, %bb1 ], [ %amdpcode.frozen1, %bb2 ], [ %j, %bb3 ]" in frozen


# Seed 4188's failure, reduced by hand (docs/compiler-bugs.md): `x < 0 ? x : 0` of a float.
SELECT_MINMAX_BODY = """
kernel void fuzz(global const uint *in, global ulong *out, global uchar *m8, global ushort *m16,
                 global uint *m32, global ulong *m64, global uint *atom, global ulong *atom64) {
  uint gid = GID();
  float x = as_float(in[gid]);
  out[gid] = as_uint((x < 0.0f) ? x : 0.0f);
}
"""


def test_the_select_to_minimum_miscompile_is_caught_and_classed_as_the_compilers():
  _need_tools()
  # -0.0, +0.0, -1.5, 2.0 in turn.
  case = _reduced_case(4188, SELECT_MINMAX_BODY,
                       lambda n: [(0x80000000, 0, 0xbfc00000, 0x40000000)[i % 4] for i in range(n)])
  ref = core.run_reference(case)
  assert [int(x) for x in ref[0][:4]] == [0, 0, 0xbfc00000, 0]
  assert core.compare(ref, core.run_amdpcode(case, core.compile_kernel(case.source, "gfx1100", "O0"))) == []
  got = core.run_amdpcode(case, core.compile_kernel(case.source, "gfx1100", "O2"))
  # v_min_f32 orders -0.0 below +0.0: the lanes given -0.0 keep it.
  assert [int(x) for x in got[0][:4]] == [0x80000000, 0, 0xbfc00000, 0]
  asm = core.compile_kernel(case.source, "gfx1100", "O2", asm=True)
  assert "v_min_f32" in asm
  diff = core.compare(ref, got)
  r = {"seed": 4188, "target": "gfx1100", "opt": "O2", "status": "mismatch", "diff": diff}
  t = triage.triage(case, r, {("gfx1100", "O2"): diff, ("gfx1100", "O0"): []}, "jit")
  assert (t["class"], t.get("known")) == ("compiler", "llvm-select-minmax-signed-zero")
  assert t["evidence"]["minmax_llc_fails"] and t["evidence"]["minmax_blocked_matches_reference"]


# Seed 4205's failure, reduced by hand (docs/compiler-bugs.md): a 16-bit value made in a branch,
# widened in a switch's `case 5` and again in its `default`, and the merge after the switch.
STRUCTURIZE_HOIST_BODY = """
kernel void fuzz(global const uint *in, global ulong *out, global uchar *m8, global ushort *m16,
                 global uint *m32, global ulong *m64, global uint *atom, global ulong *atom64) {
  uint gid = GID();
  ushort v = (ushort)in[gid + 64u];
  if (in[gid + 128u] & 1u) { v = (ushort)(v * 3u + 1u); m16[gid] = v; }
  uint r;
  switch (in[gid] & 7u) {
  case 0: out[gid] = 100; return;
  case 1: out[gid] = 101; return;
  case 4: out[gid] = 104; return;
  case 5:
    r = v;
    if (r & 1u) m32[gid] = r * 3u;
    else m32[gid] = r;
    break;
  default: r = v;
  }
  out[gid] = r ^ 0x5a5au;
}
"""


def test_the_structurizecfg_hoist_miscompile_is_caught_and_classed_as_the_compilers():
  # StructurizeCFG hoists the default's `zext` that the three-input merge PHI reads, and the
  # work-items of the switch values 6 and 7 reach the merge with that register never written.
  _need_tools()
  from amdpcode.clfuzz import llvmir
  case = _reduced_case(4205, STRUCTURIZE_HOIST_BODY)
  words = case.input_words
  ref = core.run_reference(case)
  assert core.compare(ref, core.run_amdpcode(case, core.compile_kernel(case.source, "gfx1030", "O0"))) == []
  got = core.run_amdpcode(case, core.compile_kernel(case.source, "gfx1030", "O2"))
  wrong = [g for g in range(len(ref[0])) if got[0][g] != ref[0][g]]
  assert len(wrong) == 33 and wrong == [g for g in range(len(ref[0])) if words[g] & 7 in (6, 7)]
  before = llvmir.ir_before_pass(llvmir.optimized_ir(case.source, "gfx1030", "O2"), "gfx1030", "O2", "structurizecfg")
  moved = llvmir.moved_phi_inputs(before, llvmir.run_pass(before, "structurizecfg<skip-uniform-regions>"))
  # One `zext` per function (the kernel and its callable twin), each read by one PHI.
  assert [(fn, a.startswith("NodeBlock")) for fn, _, _, a, _ in moved] == [
      ("fuzz", True), ("__clang_ocl_kern_imp_fuzz", True)]
  defs, _ = llvmir.functions(before)
  assert [defs[fn][v][1] for fn, v, _, _, _ in moved] == ["zext", "zext"]
  assert [len(uses) for _, _, _, _, uses in moved] == [1, 1]
  diff = core.compare(ref, got)
  r = {"seed": 4205, "target": "gfx1030", "opt": "O2", "status": "mismatch", "diff": diff}
  t = triage.triage(case, r, {("gfx1030", "O2"): diff, ("gfx1030", "O0"): []}, "jit")
  assert (t["class"], t.get("known")) == ("compiler", "llvm-structurizecfg-hoist")
  ev = t["evidence"]
  assert ev["structurize_llc_fails"] and ev["structurize_blocked_matches_reference"]
  assert ev["break_large_phis_off_matches_reference"] is False and ev["minmax_selects"] == []


def test_a_seed_with_selects_of_a_compares_operands_is_not_classed_by_them_when_freezing_them_changes_nothing():
  # Seed 4205 itself (gfx1030, -O2) has such selects as well as the hoist: freezing the
  # compares' operands leaves it failing, freezing the hoisted PHI inputs does not.
  _need_tools()
  case = gen.generate(4205)
  ref = core.run_reference(case)
  diff = core.compare(ref, core.run_amdpcode(case, core.compile_kernel(case.source, "gfx1030", "O2")))
  assert [d[0] for d in diff] == ["out"]
  r = {"seed": 4205, "target": "gfx1030", "opt": "O2", "status": "mismatch", "diff": diff}
  t = triage.triage(case, r, {("gfx1030", "O2"): diff, ("gfx1030", "O0"): []}, "jit")
  ev = t["evidence"]
  assert ev["minmax_selects"] and ev["minmax_llc_fails"] and ev["minmax_blocked_matches_reference"] is False
  assert (t["class"], t.get("known")) == ("compiler", "llvm-structurizecfg-hoist")
