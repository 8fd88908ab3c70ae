#!/usr/bin/env python3
"""Writes the errata of the matrix instructions (WMMA, SWMMAC, MFMA, SMFMAC).

AMD's entries for these instructions are one line of prose (`D = A (16x16) * B (16x16) + C
(16x16)`): they name the shapes but not where the matrix elements live in the lanes and VGPRs,
so they cannot be executed. This script writes one replacement per instruction,
`semantics/errata/<arch>/<INSTRUCTION>.pcode`, from the tables below, so that every register
layout is stated once (in the `*_layout` functions) and used the same way in every file.

The generated text is our own: it does not copy AMD's text. The layouts follow AMD's ISA guides
and AMD's matrix instruction calculator as best known; `semantics/errata/README.md` (section
"Matrix instructions") lists them and marks which are our assumptions.

Usage:
    python3 semantics/errata/gen_matrix.py            # (re)write all the files
    python3 semantics/errata/gen_matrix.py --check BIN
        # also compare the operand widths the layouts imply with `BIN spec list --json`
        # and compile every file with `BIN show --arch ARCH INST --ir`
    python3 semantics/errata/gen_matrix.py --stdout ARCH INST   # print one text, write nothing

Plain python3, no dependencies.
"""

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------------------
# The instructions. Shapes, block counts and types come from the names; EXCEPTIONS lists what a
# name does not say.

INSTRUCTIONS = {
    "rdna3": [
        "V_WMMA_F32_16X16X16_F16",
        "V_WMMA_F32_16X16X16_BF16",
        "V_WMMA_F16_16X16X16_F16",
        "V_WMMA_BF16_16X16X16_BF16",
        "V_WMMA_I32_16X16X16_IU8",
        "V_WMMA_I32_16X16X16_IU4",
    ],
    "rdna4": [
        "V_WMMA_F32_16X16X16_F16",
        "V_WMMA_F32_16X16X16_BF16",
        "V_WMMA_F16_16X16X16_F16",
        "V_WMMA_BF16_16X16X16_BF16",
        "V_WMMA_I32_16X16X16_IU8",
        "V_WMMA_I32_16X16X16_IU4",
        "V_WMMA_F32_16X16X16_FP8_FP8",
        "V_WMMA_F32_16X16X16_FP8_BF8",
        "V_WMMA_F32_16X16X16_BF8_FP8",
        "V_WMMA_F32_16X16X16_BF8_BF8",
        "V_WMMA_I32_16X16X32_IU4",
        "V_SWMMAC_F32_16X16X32_F16",
        "V_SWMMAC_F32_16X16X32_BF16",
        "V_SWMMAC_F16_16X16X32_F16",
        "V_SWMMAC_BF16_16X16X32_BF16",
        "V_SWMMAC_I32_16X16X32_IU8",
        "V_SWMMAC_I32_16X16X32_IU4",
        "V_SWMMAC_I32_16X16X64_IU4",
        "V_SWMMAC_F32_16X16X32_FP8_FP8",
        "V_SWMMAC_F32_16X16X32_FP8_BF8",
        "V_SWMMAC_F32_16X16X32_BF8_FP8",
        "V_SWMMAC_F32_16X16X32_BF8_BF8",
    ],
    "cdna": [
        # dense, one block
        "V_MFMA_F32_32X32X2_F32",
        "V_MFMA_F32_16X16X4_F32",
        "V_MFMA_F32_32X32X8_F16",
        "V_MFMA_F32_16X16X16_F16",
        "V_MFMA_F32_32X32X8_BF16",
        "V_MFMA_F32_16X16X16_BF16",
        "V_MFMA_F32_16X16X32_F16",
        "V_MFMA_F32_32X32X16_F16",
        "V_MFMA_F32_16X16X32_BF16",
        "V_MFMA_F32_32X32X16_BF16",
        "V_MFMA_I32_32X32X16_I8",
        "V_MFMA_I32_16X16X32_I8",
        "V_MFMA_I32_16X16X64_I8",
        "V_MFMA_I32_32X32X32_I8",
        "V_MFMA_F32_16X16X32_BF8_BF8",
        "V_MFMA_F32_16X16X32_BF8_FP8",
        "V_MFMA_F32_16X16X32_FP8_BF8",
        "V_MFMA_F32_16X16X32_FP8_FP8",
        "V_MFMA_F32_32X32X16_BF8_BF8",
        "V_MFMA_F32_32X32X16_BF8_FP8",
        "V_MFMA_F32_32X32X16_FP8_BF8",
        "V_MFMA_F32_32X32X16_FP8_FP8",
        "V_MFMA_F32_16X16X128_F8F6F4",
        "V_MFMA_F32_32X32X64_F8F6F4",
        "V_MFMA_SCALE_F32_16X16X128_F8F6F4",
        "V_MFMA_SCALE_F32_32X32X64_F8F6F4",
        "V_MFMA_F64_16X16X4_F64",
        # blocked
        "V_MFMA_F32_32X32X1_2B_F32",
        "V_MFMA_F32_16X16X1_4B_F32",
        "V_MFMA_F32_4X4X1_16B_F32",
        "V_MFMA_F32_32X32X4_2B_F16",
        "V_MFMA_F32_16X16X4_4B_F16",
        "V_MFMA_F32_4X4X4_16B_F16",
        "V_MFMA_F32_32X32X4_2B_BF16",
        "V_MFMA_F32_16X16X4_4B_BF16",
        "V_MFMA_F32_4X4X4_16B_BF16",
        "V_MFMA_I32_32X32X4_2B_I8",
        "V_MFMA_I32_16X16X4_4B_I8",
        "V_MFMA_I32_4X4X4_16B_I8",
        "V_MFMA_F64_4X4X4_4B_F64",
        # sparse
        "V_SMFMAC_F32_16X16X32_F16",
        "V_SMFMAC_F32_32X32X16_F16",
        "V_SMFMAC_F32_16X16X32_BF16",
        "V_SMFMAC_F32_32X32X16_BF16",
        "V_SMFMAC_I32_16X16X64_I8",
        "V_SMFMAC_I32_32X32X32_I8",
        "V_SMFMAC_F32_16X16X64_F16",
        "V_SMFMAC_F32_32X32X32_F16",
        "V_SMFMAC_F32_16X16X64_BF16",
        "V_SMFMAC_F32_32X32X32_BF16",
        "V_SMFMAC_I32_16X16X128_I8",
        "V_SMFMAC_I32_32X32X64_I8",
        "V_SMFMAC_F32_16X16X64_BF8_BF8",
        "V_SMFMAC_F32_16X16X64_BF8_FP8",
        "V_SMFMAC_F32_16X16X64_FP8_BF8",
        "V_SMFMAC_F32_16X16X64_FP8_FP8",
        "V_SMFMAC_F32_32X32X32_BF8_BF8",
        "V_SMFMAC_F32_32X32X32_BF8_FP8",
        "V_SMFMAC_F32_32X32X32_FP8_BF8",
        "V_SMFMAC_F32_32X32X32_FP8_FP8",
        "V_SMFMAC_F32_16X16X128_BF8_BF8",
        "V_SMFMAC_F32_16X16X128_BF8_FP8",
        "V_SMFMAC_F32_16X16X128_FP8_BF8",
        "V_SMFMAC_F32_16X16X128_FP8_FP8",
        "V_SMFMAC_F32_32X32X64_BF8_BF8",
        "V_SMFMAC_F32_32X32X64_BF8_FP8",
        "V_SMFMAC_F32_32X32X64_FP8_BF8",
        "V_SMFMAC_F32_32X32X64_FP8_FP8",
    ],
}

# CDNA 1 and 2 (gfx908, gfx90a) shapes that CDNA 3 dropped, so the `cdna` folder has no entry
# for them (CDNA 3's i8 shapes are 16x16x32 and 32x32x16; its bf16 ones are gfx90a's `_1k`
# forms, which the derived databases take from `cdna` by LLVM's rename). The other gfx908/90a
# matrix instructions are CDNA 4's under an older name (tools/isa_tables.py, RENAMED).
OLD_CDNA = [
    "V_MFMA_I32_16X16X16I8",
    "V_MFMA_I32_32X32X8I8",
    "V_MFMA_F32_32X32X2BF16",
    "V_MFMA_F32_16X16X2BF16",
    "V_MFMA_F32_4X4X2BF16",
    "V_MFMA_F32_32X32X4BF16",
    "V_MFMA_F32_16X16X8BF16",
]
INSTRUCTIONS["cdna1"] = OLD_CDNA
INSTRUCTIONS["cdna2"] = OLD_CDNA

# The old names say neither the block count nor where the input type starts: each is read as
# the name it would have in CDNA 3's scheme (the block counts are those of LLVM's operand
# sizes: `v_mfma_f32_32x32x2bf16 a[0:31], v0, v1, a[0:31]`, 32 accumulators = 2 blocks).
PARSE_AS = {
    "V_MFMA_I32_16X16X16I8": "V_MFMA_I32_16X16X16_I8",
    "V_MFMA_I32_32X32X8I8": "V_MFMA_I32_32X32X8_I8",
    "V_MFMA_F32_32X32X2BF16": "V_MFMA_F32_32X32X2_2B_BF16",
    "V_MFMA_F32_16X16X2BF16": "V_MFMA_F32_16X16X2_4B_BF16",
    "V_MFMA_F32_4X4X2BF16": "V_MFMA_F32_4X4X2_16B_BF16",
    "V_MFMA_F32_32X32X4BF16": "V_MFMA_F32_32X32X4_BF16",
    "V_MFMA_F32_16X16X8BF16": "V_MFMA_F32_16X16X8_BF16",
}

# CDNA forms whose layout AMD's matrix instruction calculator (v1.02: CDNA1/2, RDNA3) lists; the
# other CDNA forms (more elements per lane, FP8/BF8, the sparse ones) use the same rule
# extrapolated, which is our assumption.
CALCULATOR_CDNA = {
    "V_MFMA_F32_32X32X2_F32", "V_MFMA_F32_16X16X4_F32", "V_MFMA_F32_32X32X8_F16",
    "V_MFMA_F32_16X16X16_F16", "V_MFMA_F32_32X32X8_BF16", "V_MFMA_F32_16X16X16_BF16",
    "V_MFMA_F64_16X16X4_F64", "V_MFMA_F32_32X32X1_2B_F32", "V_MFMA_F32_16X16X1_4B_F32",
    "V_MFMA_F32_4X4X1_16B_F32", "V_MFMA_F32_32X32X4_2B_F16", "V_MFMA_F32_16X16X4_4B_F16",
    "V_MFMA_F32_4X4X4_16B_F16", "V_MFMA_F32_32X32X4_2B_BF16", "V_MFMA_F32_16X16X4_4B_BF16",
    "V_MFMA_F32_4X4X4_16B_BF16", "V_MFMA_I32_32X32X4_2B_I8", "V_MFMA_I32_16X16X4_4B_I8",
    "V_MFMA_I32_4X4X4_16B_I8", "V_MFMA_F64_4X4X4_4B_F64",
} | set(OLD_CDNA)

# What the names do not say: the format of A and B of the F8F6F4 forms is chosen at run time by
# the CBSZ (A) and BLGP (B) fields (F8F6F4_FORMATS); the layout is stated for the widest, FP8
# (32 elements of 8 bits a lane), and the texts read each element at the width its format has.
EXCEPTIONS = {
    ("cdna", "V_MFMA_F32_16X16X128_F8F6F4"): {"a": "fp8", "b": "fp8", "f8f6f4": True},
    ("cdna", "V_MFMA_F32_32X32X64_F8F6F4"): {"a": "fp8", "b": "fp8", "f8f6f4": True},
    ("cdna", "V_MFMA_SCALE_F32_16X16X128_F8F6F4"): {"a": "fp8", "b": "fp8", "f8f6f4": True},
    ("cdna", "V_MFMA_SCALE_F32_32X32X64_F8F6F4"): {"a": "fp8", "b": "fp8", "f8f6f4": True},
}

# The F8F6F4 formats by CBSZ / BLGP code: (element type, bits). Codes 5-7 are reserved; the
# texts read them as FP4 (assumption: LLVM accepts only 0-4).
F8F6F4_FORMATS = [("fp8", 8), ("bf8", 8), ("fp6", 6), ("bf6", 6), ("fp4", 4)]

NAME_RE = re.compile(
    r"^V_(?P<fam>WMMA|SWMMAC|MFMA|SMFMAC)_(?P<scale>SCALE_)?(?P<out>F32|F16|BF16|I32|F64)_"
    r"(?P<m>\d+)X(?P<n>\d+)X(?P<k>\d+)(?:_(?P<blocks>\d+)B)?_(?P<ins>[A-Z0-9_]+)$"
)

# Element types: width in bits, the local array type, and how one element read from a bit field
# `x` becomes a value of that array type. `{neg}` is the NEG bit that selects signed IU inputs.
TYPES = {
    "f16": (16, "32'F", "f16_to_f32({x}.f16)"),
    "bf16": (16, "32'F", "bf16_to_f32({x}.bf16)"),
    "f32": (32, "32'F", "{x}.f32"),
    "f64": (64, "64'F", "{x}.f64"),
    "fp8": (8, "32'F", "fp8_to_f32({x}.fp8)"),
    "bf8": (8, "32'F", "bf8_to_f32({x}.bf8)"),
    "i8": (8, "32'I", "32'I(signext({x}.i8))"),
    "iu8": (8, "32'I", "NEG[{neg}].u1 ? 32'I(signext({x}.i8)) : 32'I(32'U({x}.u8))"),
    "iu4": (4, "32'I", "NEG[{neg}].u1 ? 32'I(signext({x}.i4)) : 32'I(32'U({x}.u4))"),
}

OUT_TYPES = {
    # out: (bits, accumulator array type, read C from bit field x, value written to D)
    "f32": (32, "32'F", "{x}.f32", "acc"),
    "i32": (32, "32'I", "{x}.i32", "acc"),
    "f64": (64, "64'F", "{x}.f64", "acc"),
    "f16": (16, "32'F", "f16_to_f32({x}.f16)", "f32_to_f16(acc)"),
    "bf16": (16, "32'F", "bf16_to_f32({x}.bf16)", "f32_to_bf16(acc)"),
}


class Inst:
    """One matrix instruction, decoded from its name."""

    def __init__(self, arch, name):
        m = NAME_RE.match(PARSE_AS.get(name, name))
        if not m:
            raise SystemExit(f"gen_matrix: cannot decode {arch} {name}")
        self.arch = arch
        self.name = name
        self.fam = m["fam"]
        # CDNA 4's V_MFMA_SCALE_*: A and B multiplied by E8M0 block scales (SCALE_SRC0/1).
        self.scaled = bool(m["scale"])
        self.sparse = self.fam in ("SWMMAC", "SMFMAC")
        self.out = m["out"].lower()
        self.M, self.N, self.K = int(m["m"]), int(m["n"]), int(m["k"])
        self.nb = int(m["blocks"] or 1)
        ins = m["ins"].lower().split("_")
        if len(ins) == 1:
            ins = ins * 2
        self.a, self.b = ins[0], ins[1]
        self.f8f6f4 = False
        exc = EXCEPTIONS.get((arch, name), {})
        self.a = exc.get("a", self.a)
        self.b = exc.get("b", self.b)
        self.f8f6f4 = exc.get("f8f6f4", False)
        for t in (self.a, self.b):
            if t not in TYPES:
                raise SystemExit(f"gen_matrix: {name}: unknown input type {t}")
        # The K the A operand stores: half of K for 2:4 sparse A.
        self.KA = self.K // 2 if self.sparse else self.K
        self.integer = self.out == "i32"


# ---------------------------------------------------------------------------------------------
# Small expression helpers: they keep the generated text free of `* 1`, `/ 1`, `+ 0`.


def _atom(e):
    e = str(e)
    return e if re.fullmatch(r"[A-Za-z0-9_.]+(\[[^\[\]]*\])?", e) else f"({e})"


def mul(c, e):
    if c == 0 or str(e) == "0":
        return "0"
    if c == 1:
        return str(e)
    return f"{c} * {_atom(e)}"


def div(e, c):
    return str(e) if c == 1 else f"{_atom(e)} / {c}"


def mod(e, c):
    return "0" if c == 1 else f"{_atom(e)} % {c}"


def add(*terms):
    ts = [str(t) for t in terms if str(t) != "0"]
    return " + ".join(ts) if ts else "0"


def read_field(base, lane, reg, pos, bits):
    """The `bits`-wide element at element position `pos` of the packed run of VGPRs from
    `base` in `lane`: low-to-high within a VGPR, then the next VGPR."""
    if bits == 64:
        r = add(base, mul(2, pos))
        return f"{{ VGPR[{lane}][{add(r, 1)}], VGPR[{lane}][{r}] }}"
    if bits == 32:
        return f"VGPR[{lane}][{add(base, pos)}]"
    per = 32 // bits
    return f"VGPR[{lane}][{add(base, div(pos, per))}][{mul(bits, mod(pos, per))} +: {bits}]"


def write_field(base, lane, pos, bits, value, half=None, view=".f32"):
    """Statements writing `value` to the element at `pos` (32/64-bit) or to a 16-bit half."""
    if bits == 64:
        r = add(base, mul(2, pos))
        return [
            f"VGPR[{lane}][{r}] = {value}[31 : 0]",
            f"VGPR[{lane}][{add(r, 1)}] = {value}[63 : 32]",
        ]
    if bits == 32:
        return [f"VGPR[{lane}][{add(base, pos)}]{view} = {value}"]
    return [f"VGPR[{lane}][{add(base, pos)}][{half} +: 16] = {value}"]


# ---------------------------------------------------------------------------------------------
# The layouts. Each returns the facts the text needs, as expressions over the loop variables.


def cdna_input_layout(rows, kdim, nb, outer, kvar, bvar):
    """CDNA (wave64) A or B operand, following the gfx9 rule of AMD's matrix instruction
    calculator: with `epl = kdim * rows * nb / 64` elements per lane, element (outer, k) of
    block b is in lane `rows * b + rows * nb * (k / epl) + outer`, position `k % epl`."""
    epl = kdim * rows * nb // 64
    assert epl >= 1 and kdim * rows * nb == 64 * epl
    if epl == kdim:  # the whole k range in one lane
        return epl, add(mul(rows, bvar) if nb > 1 else "0", outer), kvar
    lane = add(mul(rows, bvar) if nb > 1 else "0", mul(rows * nb, div(kvar, epl)), outer)
    return epl, lane, mod(kvar, epl)


def cdna_output_layout(M, N, nb, bits, ivar, jvar, bvar):
    """CDNA (wave64) C/D, following the gfx9 rule of AMD's matrix instruction calculator:
    rows come in groups of h = 4 (32-bit) or 1 (64-bit) consecutive items of a lane; groups of
    N lanes side by side fill the 64 lanes, then the next items; blocks follow in items, or in
    lanes when one block does not fill the 64 lanes."""
    h = 1 if bits == 64 else 4
    mpr = 64 // N  # row groups side by side in the 64 lanes
    bpr = max(1, -(-64 // (N * M // h)))  # blocks side by side in the lanes
    per_block_items = (M * N) // 64  # 0 when several blocks share the lanes
    groups = -(-M // h)  # row groups of one block
    item = add(
        mul(per_block_items, bvar) if nb > 1 else "0",
        mul(h, div(ivar, h * mpr)) if groups > mpr else "0",
        mod(ivar, h),
    )
    group = div(ivar, h)
    lane = add(
        mul(N, mod(bvar, bpr) if nb > bpr else bvar) if (nb > 1 and bpr > 1) else "0",
        mul(bpr * N, mod(group, mpr) if groups > mpr else group) if groups > 1 else "0",
        jvar,
    )
    items_per_lane = max(1, nb * M * N // 64)
    return item, lane, items_per_lane


def layout(inst):
    """The layout of one instruction as expressions over the loop variables b, i, j, k:
    lane_a/pos_a: lane and element position of A[i][k] (stored k for sparse A) from SRC0;
    lane_b/pos_b: the same for B[k][j] from SRC1; lane_c/pos_c: lane and item of C/D[i][j]
    (the VGPR pair index for f64, the VGPR for 16-bit C/D); half: bit offset of a 16-bit C/D
    element in its VGPR; setup: (variable, pcode expression, value for a wave size) run first."""
    M, N, K, KA, nb = inst.M, inst.N, inst.K, inst.KA, inst.nb
    obits = OUT_TYPES[inst.out][0]
    bvar = "b" if nb > 1 else "0"
    if inst.arch.startswith("cdna"):
        _, lane_a, pos_a = cdna_input_layout(M, KA, nb, "i", "k", bvar)
        _, lane_b, pos_b = cdna_input_layout(N, K, nb, "j", "k", bvar)
        pos_c, lane_c, _ = cdna_output_layout(M, N, nb, obits, "i", "j", bvar)
        return dict(lane_a=lane_a, pos_a=pos_a, lane_b=lane_b, pos_b=pos_b, lane_c=lane_c,
                    pos_c=pos_c, half=None, setup=[])
    if inst.arch == "rdna3":
        # A row i / B column j: lane i (the copies in lanes i + 16, + 32, + 48 are not read);
        # C/D: R rows share a VGPR, R = 2 (wave32) or 4 (wave64).
        setup = [("R", "WAVE32 ? 2 : 4", lambda w: 2 if w == 32 else 4)]
        if obits == 16:
            setup.append(("H", "OPSEL[2].u1 ? 16 : 0", lambda w: 0))
        return dict(lane_a="i", pos_a="k", lane_b="j", pos_b="k", lane_c="j + 16 * (i % R)",
                    pos_c="i / R", half="H" if obits == 16 else None, setup=setup)
    # rdna4: G lane groups of 16 lanes, each holding K / G consecutive k of a row of A / a
    # column of B and 16 / G consecutive rows of C/D.
    setup = [
        ("G", "WAVE32 ? 2 : 4", lambda w: 2 if w == 32 else 4),
        ("KLA", f"{KA} / G", lambda w: KA // (2 if w == 32 else 4)),
        ("KLB", f"{K} / G", lambda w: K // (2 if w == 32 else 4)),
        ("RL", "16 / G", lambda w: 16 // (2 if w == 32 else 4)),
    ]
    lay = dict(lane_a="i + 16 * (k / KLA)", pos_a="k % KLA", lane_b="j + 16 * (k / KLB)",
               pos_b="k % KLB", lane_c="j + 16 * (i / RL)", setup=setup)
    if obits == 16:
        lay.update(pos_c="(i % RL) / 2", half="(i % 2) * 16")
    else:
        lay.update(pos_c="i % RL", half=None)
    return lay


# ---------------------------------------------------------------------------------------------
# Text generation.


def fp_read(t, field, neg):
    return TYPES[t][2].format(x=field, neg=neg)


def f8f6f4_body(inst, src, fmt, ebits, lane, pos, dest, scale):
    """Statements reading element `pos` of an F8F6F4 operand from the VGPRs at `src` in
    `lane` into `dest`, in the format code `fmt` (CBSZ or BLGP) at `ebits` bits an element.
    The 32 elements of a lane are packed low-to-high over `ebits` VGPRs, so an FP6 element
    may straddle two VGPRs: the element is cut from the 64 bits of VGPRs w and w + 1, w
    chosen so that both lie in the operand (`ebits` - 2 at most). `scale` is the E8M0 scale
    (a local), or None for the unscaled forms."""
    conv = []
    for code, (t, bits) in enumerate(F8F6F4_FORMATS):
        x = f"x[{bits - 1} : 0].{t}"
        conv.append(f"{t}_to_f32_scale({x}, {scale}.u8)" if scale else f"{t}_to_f32({x})")
    # fmt == 0 ? fp8 : (fmt == 1 ? bf8 : (... : fp4)); reserved codes fall to FP4.
    value = conv[-1]
    for code in range(len(conv) - 2, -1, -1):
        value = f"{fmt} == {code}U ? {conv[code]} : ({value})"
    if scale:
        # E8M0 0xff is NaN: every element it scales reads as NaN.
        value = f"{scale} == 255U ? 32'F(0x7fc00000) : ({value})"
    return [
        f"lane = {lane}",
        f"p = {pos}",
        f"w = ({ebits} * p) / 32",
        f"w = w > {ebits} - 2U ? {ebits} - 2U : w",
        f"v = {{ VGPR[lane][{src} + w + 1U], VGPR[lane][{src} + w] }}",
        f"x = v >> ({ebits} * p - 32U * w)",
    ] + ([f"{scale} = 32'U(VGPR[lane][{'SCALE_SRC0.u32' if src.startswith('SRC0') else 'SCALE_SRC1.u32'}][{'SA' if src.startswith('SRC0') else 'SB'} +: 8])"] if scale else []) + [
        f"{dest} = {value}",
    ]


def gen(inst):
    arch = inst.arch
    M, N, K, KA, nb = inst.M, inst.N, inst.K, inst.KA, inst.nb
    abits, atype, _ = TYPES[inst.a]
    bbits, btype, _ = TYPES[inst.b]
    obits, otype, oread, owrite = OUT_TYPES[inst.out]
    csrc = "VDST.u32" if inst.sparse else "SRC2.u32"
    blk = nb > 1
    bvar = "b" if blk else "0"

    def loop(var, count, body, indent=""):
        out = [f"{indent}for {var} in 0 : {count - 1} do"]
        out += [indent + "  " + s for s in body]
        out.append(f"{indent}endfor")
        return out

    def nest(loops, body):
        """loops: [(var, count)], body: list of statements (separated by `;`)."""
        inner = join(body)
        for var, count in reversed(loops):
            inner = loop(var, count, inner)
        return inner

    def join(stmts):
        # statements inside one block: `;` between them, nested blocks are kept as lines
        out = []
        for i, s in enumerate(stmts):
            lines = s if isinstance(s, list) else [s]
            if i < len(stmts) - 1:
                lines = lines[:-1] + [lines[-1] + ";"]
            out += lines
        return out

    blocks = [("b", nb)] if blk else []
    aidx = add(mul(KA, add(mul(M, bvar) if blk else "0", "i")), "k")
    bidx = add(mul(N, add(mul(K, bvar) if blk else "0", "k")), "j")
    cidx = add(mul(N, add(mul(M, bvar) if blk else "0", "i")), "j")

    sections = []  # each a list of lines; joined with `;`

    lay = layout(inst)
    lane_a, pos_a = lay["lane_a"], lay["pos_a"]
    lane_b, pos_b = lay["lane_b"], lay["pos_b"]
    lane_c, c_pos, half = lay["lane_c"], lay["pos_c"], lay["half"]
    setup = [f"{var} = {text}" for var, text, _ in lay["setup"]]
    if inst.f8f6f4:
        # The formats of A (CBSZ) and B (BLGP) and their element widths.
        setup += [
            "FA = 32'U(CBSZ.u32)",
            "FB = 32'U(BLGP.u32)",
            "EA = FA <= 1U ? 8U : (FA <= 3U ? 6U : 4U)",
            "EB = FB <= 1U ? 8U : (FB <= 3U ? 6U : 4U)",
        ]
    if inst.scaled:
        # The byte of each lane's scale VGPR that holds its E8M0 scale: { OPSEL_HI[0],
        # OPSEL[0] } for A, { OPSEL_HI[1], OPSEL[1] } for B (LLVM's op_sel / op_sel_hi).
        setup += [
            "SA = 8U * (32'U(OPSEL[0].u1) + 2U * 32'U(OPSEL_HI[0].u1))",
            "SB = 8U * (32'U(OPSEL[1].u1) + 2U * 32'U(OPSEL_HI[1].u1))",
        ]

    # --- gather A (and the sparse index) --------------------------------------------------------
    a_field = read_field("SRC0.u32", "lane", None, "p", abits)
    a_body = [f"lane = {lane_a}", f"p = {pos_a}",
              f"A[{aidx}] = {fp_read(inst.a, a_field, 0)}"]
    if inst.f8f6f4:
        a_body = f8f6f4_body(inst, "SRC0.u32", "FA", "EA", lane_a, pos_a, f"A[{aidx}]",
                             "s" if inst.scaled else None)
    if inst.sparse:
        # Two stored values per group of four k; position p of a lane has its 2-bit index in
        # bits [2p + 1 : 2p] of the lane's index VGPR (SRC2).
        a_body.append(f"KI[{aidx}] = 4 * (k / 2) + 32'U(VGPR[lane][SRC2.u32][2 * p +: 2])")
    sections.append(nest(blocks + [("i", M), ("k", KA)], a_body))

    # --- gather B -------------------------------------------------------------------------------
    b_field = read_field("SRC1.u32", "lane", None, "p", bbits)
    b_body = [f"lane = {lane_b}", f"p = {pos_b}",
              f"B[{bidx}] = {fp_read(inst.b, b_field, 1)}"]
    if inst.f8f6f4:
        b_body = f8f6f4_body(inst, "SRC1.u32", "FB", "EB", lane_b, pos_b, f"B[{bidx}]",
                             "s" if inst.scaled else None)
    sections.append(nest(blocks + [("k", K), ("j", N)], b_body))

    # --- gather C -------------------------------------------------------------------------------
    c_field = read_field(csrc, "lane", None, "r", obits)
    if half is not None:
        c_field = f"VGPR[lane][{add(csrc, 'r')}][{half} +: 16]"
    c_body = [f"lane = {lane_c}", f"r = {c_pos}", f"C[{cidx}] = {oread.format(x=c_field)}"]
    sections.append(nest(blocks + [("i", M), ("j", N)], c_body))

    # --- multiply-accumulate and write D --------------------------------------------------------
    if inst.sparse:
        kloop = [f"acc = fma(A[{aidx}], B[{add(mul(N, f'KI[{aidx}]'), 'j')}], acc)"]
        if inst.integer:
            kloop = [f"acc = acc + A[{aidx}] * B[{add(mul(N, f'KI[{aidx}]'), 'j')}]"]
        klen = KA
    else:
        kloop = [f"acc = fma(A[{aidx}], B[{bidx}], acc)"]
        if inst.integer:
            kloop = [f"acc = acc + A[{aidx}] * B[{bidx}]"]
        klen = K
    d_body = [f"acc = C[{cidx}]", loop("k", klen, kloop), f"lane = {lane_c}", f"r = {c_pos}"]
    d_body += write_field("VDST.u32", "lane", "r", obits, owrite, half,
                          ".i32" if inst.integer else ".f32")
    sections.append(nest(blocks + [("i", M), ("j", N)], d_body))

    # --- assemble -------------------------------------------------------------------------------
    decls = [
        f"declare A : {atype}[{nb * M * KA}]",
        f"declare B : {btype}[{nb * K * N}]",
        f"declare C : {otype}[{nb * M * N}]",
    ]
    if inst.sparse:
        decls.append(f"declare KI : 32'U[{nb * M * KA}]")

    text = []
    text.append(f"//! reason: {reason(inst)}")
    text += header_comments(inst)
    text += [d + ";" for d in decls]
    text += [s + ";" for s in setup]
    titles = [
        "// Gather A" + (" (stored values) and the dense k of each from the 2-bit indices" if inst.sparse else "") + ".",
        "// Gather B.",
        "// Gather C" + (" (the accumulator is D itself)" if inst.sparse else "") + ".",
        "// D = A * B + C, k in increasing order, one fma (one rounding) per step.",
    ]
    if inst.integer:
        titles[3] = "// D = A * B + C in 32-bit integers (wrapping; the clamp bit is not modelled)."
    for n, (title, sec) in enumerate(zip(titles, sections)):
        text.append(title)
        sec = list(sec)
        if n < len(sections) - 1:
            sec[-1] += ";"
        text += sec
    return "\n".join(text) + "\n"


# ---------------------------------------------------------------------------------------------
# Reasons and comments.


def layout_summary(inst):
    arch = inst.arch
    if arch == "rdna3":
        s = ("RDNA3 WMMA layout (AMD matrix instruction calculator, gfx11): A row i / B column j "
             "in lane i (replicas in lanes i+16, +32, +48 are assumed equal and not read), "
             "element k packed low-to-high from SRC0/SRC1; C/D (i, j) in lane j + 16 * (i % R), "
             "VGPR i / R with R = 2 (wave32) or 4 (wave64)")
        if inst.out in ("f16", "bf16"):
            s += ", 16-bit C/D in the half chosen by OPSEL[2] (other half kept; assumption)"
        if inst.a.startswith("iu"):
            s += "; NEG[0]/NEG[1] make A/B signed"
        return s
    if arch == "rdna4":
        s = ("RDNA4 WMMA layout (ISA guide as best known): row i of A / column j of B in lanes "
             "i and i + 16 (wave32), lane group g holding k in [g*K/G, (g+1)*K/G) packed "
             "low-to-high from SRC0/SRC1; C/D (i, j) in lane j + 16 * (i / 8), VGPR i % 8; "
             "wave64 extrapolated with G = 4 lane groups (assumption)")
        if inst.out in ("f16", "bf16"):
            s += "; 16-bit D two rows per VGPR, half i % 2 (assumption)"
        if inst.sparse:
            s += ("; sparse A: 2:4 per group of 4 k, 2-bit index of stored position p in bits "
                  "[2p+1:2p] of the lane's SRC2 VGPR, index_key/OPSEL not modelled (assumption), "
                  "accumulator is VDST")
        if inst.a.startswith("iu"):
            s += "; NEG[0]/NEG[1] make A/B signed"
        return s
    s = ("CDNA MFMA layout (gfx9 rule of AMD's matrix instruction calculator): A (i, k) in lane "
         "i + M*b + M*B*(k / epl), position k % epl packed low-to-high from SRC0, B alike from "
         "SRC1; C/D in 4-row (f32/i32) or 1-row (f64) groups of N lanes")
    if inst.nb > 1:
        s += f"; {inst.nb} independent blocks b placed by the same rule"
    if inst.name not in CALCULATOR_CDNA:
        s += "; this shape is not in the calculator's data, the rule is extrapolated (assumption)"
    if inst.sparse:
        s += ("; sparse A: 2:4 per group of 4 k, 2-bit index of stored position p in bits "
              "[2p+1:2p] of the lane's SRC2 VGPR (CBSZ = ABID = 0 assumed), accumulator is VDST")
    if inst.f8f6f4:
        s += ("; A and B formats from CBSZ and BLGP (0 FP8 E4M3, 1 BF8 E5M2, 2 FP6 E2M3, "
              "3 BF6 E3M2, 4 FP4 E2M1; 5-7 read as FP4, assumption), 32 elements a lane "
              "packed low-to-high over 8, 6 or 4 VGPRs; ABID and the BLGP lane swizzle do not "
              "apply (CBSZ/BLGP are formats here)")
    else:
        s += "; CBSZ/ABID/BLGP not modelled (taken as 0)"
    if inst.scaled:
        s += ("; scaled (the v_mfma_ld_scale_b32 + MFMA pair, one instruction): each A "
              "element is multiplied by the E8M0 scale 2^(e-127) (0xff: NaN) in byte "
              "{OPSEL_HI[0], OPSEL[0]} of SCALE_SRC0 in the lane that holds the element (one "
              "scale per row and 32-deep k block), each B element by byte {OPSEL_HI[1], "
              "OPSEL[1]} of SCALE_SRC1 in its lane (one per column and k block); the scaling "
              "is applied to each element in f32 on conversion (rounded, assumption), before "
              "the products")
    return s


def reason(inst):
    acc = ("k summed in increasing order with one fma per step into an f32 accumulator started "
           "from C (our definition; AMD states no order or rounding)")
    if inst.out == "f64":
        acc = ("k summed in increasing order with one f64 fma per step from C (our definition; "
               "AMD states no order or rounding)")
    elif inst.integer:
        acc = "i32 sum with wrap, clamp bit ignored"
    elif inst.out in ("f16", "bf16"):
        acc += f", one final rounding to {inst.out}"
    what = ("AMD's entry is a prose shape formula without the lane/VGPR layout, so it cannot "
            "execute")
    if inst.scaled:
        what = "AMD's tables have no text for this entry, so it cannot execute"
    if inst.arch in ("cdna1", "cdna2"):
        what = ("gfx908/gfx90a shape that CDNA 3 dropped, so the CDNA 4 folder has no entry "
                "for it (LLVM-22 defines it for gfx908 and gfx90a only)")
    return (what + "; this text encodes the " + layout_summary(inst) + "; " + acc +
            "; EXEC is ignored (AMD requires all lanes on), input modifiers (NEG/ABS on floats) "
            "not modelled. Generated by semantics/errata/gen_matrix.py.")


def header_comments(inst):
    M, N, K, nb = inst.M, inst.N, inst.K, inst.nb
    shape = f"{M}x{N}x{K}" + (f", {nb} blocks" if nb > 1 else "")
    a, b = (("CBSZ format", "BLGP format") if inst.f8f6f4 else (inst.a, inst.b))
    prod = "(A * scaleA) * (B * scaleB)" if inst.scaled else "A * B"
    c = [f"// {inst.name}: D = {prod} + C ({shape}); A {a}, B {b}, C/D {inst.out}."]
    c.append("// Generated by semantics/errata/gen_matrix.py; see semantics/errata/README.md, "
             "\"Matrix instructions\".")
    c.append("// Arrays are row-major: A[i][k], B[k][j], C[i][j]"
             + (" per block b." if nb > 1 else "."))
    if inst.sparse:
        c.append(f"// A holds the {inst.KA} stored values of each row; KI gives each its dense k.")
    return c


# ---------------------------------------------------------------------------------------------
# Checking against the spec and the front end.


def lane_bits(inst, wave=32):
    """Per-lane operand widths the layouts imply: src0, src1, src2, vdst. The spec lists the
    wave32 widths for RDNA; `wave=64` gives the wave64 ones (CDNA is always wave64)."""
    abits, bbits, obits = TYPES[inst.a][0], TYPES[inst.b][0], OUT_TYPES[inst.out][0]
    M, N, K, KA, nb = inst.M, inst.N, inst.K, inst.KA, inst.nb
    if inst.arch.startswith("cdna"):
        a = nb * M * KA * abits // 64
        b = nb * N * K * bbits // 64
        c = max(nb * M * N * obits // 64, obits)
    elif inst.arch == "rdna3":
        # A and B are replicated, so the same in both wave sizes; 16-bit C/D use one half of
        # each VGPR.
        a, b = K * abits, K * bbits
        c = M * N // wave * 32
    else:
        a, b = KA * abits * 16 // wave, K * bbits * 16 // wave
        c = M * N // wave * obits
    a = max(a, 32)
    b = max(b, 32)
    scales = [32, 32] if inst.scaled else []  # SCALE_SRC0, SCALE_SRC1: one 32-bit VGPR
    return scales + [a, b, 32 if inst.sparse else c, c]


def _eval(expr, env):
    # The layout expressions use only integers, + * / % and parentheses; `/` truncates.
    return eval(expr.replace("/", "//"), {"__builtins__": {}}, env)


def selftest():
    """Evaluates the emitted layout expressions for every element and wave size: each A, B
    and C/D element must land in a lane of the wave and inside the operand's registers, no
    two on the same bits, and C/D must fill its registers exactly."""
    bad = 0
    for arch, names in INSTRUCTIONS.items():
        for name in names:
            inst = Inst(arch, name)
            lay = layout(inst)
            waves = [64] if arch.startswith("cdna") else [32, 64]
            for w in waves:
                env0 = {var: fn(w) for var, _, fn in lay["setup"]}
                widths = lane_bits(inst, w)[-4:]  # src0, src1, src2, vdst (after any scales)
                abits, bbits = TYPES[inst.a][0], TYPES[inst.b][0]
                obits = OUT_TYPES[inst.out][0]
                cslot = 32 if obits == 16 else obits  # a 16-bit C/D element owns its VGPR half
                probs = []
                for what, rows, kdim, lane_e, pos_e, bits, width in (
                    ("A", inst.M, inst.KA, lay["lane_a"], lay["pos_a"], abits, widths[0]),
                    ("B", inst.N, inst.K, lay["lane_b"], lay["pos_b"], bbits, widths[1]),
                ):
                    seen = set()
                    for b in range(inst.nb):
                        for o in range(rows):
                            for k in range(kdim):
                                env = dict(env0, b=b, i=o, j=o, k=k)
                                lane, pos = _eval(lane_e, env), _eval(pos_e, env)
                                slot = (lane, pos)
                                if not (0 <= lane < w) or (pos + 1) * bits > width or slot in seen:
                                    probs.append(f"{what}[{b}][{o}][{k}] -> lane {lane} pos {pos}")
                                seen.add(slot)
                seen = set()
                for b in range(inst.nb):
                    for i in range(inst.M):
                        for j in range(inst.N):
                            env = dict(env0, b=b, i=i, j=j)
                            lane, pos = _eval(lay["lane_c"], env), _eval(lay["pos_c"], env)
                            half = _eval(lay["half"], env) if lay["half"] else 0
                            slot = (lane, pos, half)
                            if not (0 <= lane < w) or (pos + 1) * cslot > widths[3] or slot in seen:
                                probs.append(f"D[{b}][{i}][{j}] -> lane {lane} item {pos}")
                            seen.add(slot)
                per_lane = widths[3] // cslot * (2 if obits == 16 and arch == "rdna4" else 1)
                if len(seen) != w * per_lane:
                    probs.append(f"C/D fills {len(seen)} of {w * per_lane} slots")
                if probs:
                    bad += 1
                    print(f"SELFTEST {arch} {name} wave{w}: {probs[:3]}")
    print("selftest:", "ok" if bad == 0 else f"{bad} problem(s)")
    return bad


def check(binary):
    bad = 0
    for arch, names in INSTRUCTIONS.items():
        out = subprocess.run([binary, "spec", "list", "--arch", arch, "--json"],
                             capture_output=True, text=True, check=True).stdout
        spec = {x["inst"]: x for x in json.loads(out)}
        for name in names:
            inst = Inst(arch, name)
            ops = spec[name]["operands"]
            got = [o["bits"] for o in ops]
            want = lane_bits(inst)
            if got != want:
                print(f"WIDTH {arch} {name}: spec {got}, layout {want}")
                bad += 1
            r = subprocess.run([binary, "show", "--arch", arch, name, "--ir"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"COMPILE {arch} {name}:\n{r.stderr or r.stdout}")
                bad += 1
    print("check:", "ok" if bad == 0 else f"{bad} problem(s)")
    return bad


def main(argv):
    if len(argv) >= 4 and argv[1] == "--stdout":
        sys.stdout.write(gen(Inst(argv[2], argv[3])))
        return 0
    n = 0
    for arch, names in INSTRUCTIONS.items():
        os.makedirs(os.path.join(HERE, arch), exist_ok=True)
        for name in names:
            text = gen(Inst(arch, name))
            with open(os.path.join(HERE, arch, name + ".pcode"), "w") as f:
                f.write(text)
            n += 1
    print(f"gen_matrix: wrote {n} files")
    bad = selftest()
    if len(argv) >= 3 and argv[1] == "--check":
        bad += check(argv[2])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
